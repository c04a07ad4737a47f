"""TextBox: a video's text set from glyphs drawn once, against Pillow drawing each line."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image, ImageDraw

from agent_widget.panels import BACKGROUND, TEXT, text_font
from agent_widget.viewer._lettering import Glyphs, TextBox

COLOURS = (BACKGROUND, TEXT)


def drawn_by_pillow(lines: list[str], size: tuple[int, int], zoom: int) -> np.ndarray:
    image = Image.new("RGB", size, BACKGROUND)
    draw = ImageDraw.Draw(image)
    for i, line in enumerate(lines):
        draw.text((6 * zoom, 6 * zoom + i * 18 * zoom), line, TEXT, text_font(13 * zoom))
    return np.asarray(image)


def box(size: tuple[int, int], zoom: int) -> TextBox:
    return TextBox(size, Glyphs(text_font(13 * zoom)), 18 * zoom, 6 * zoom, COLOURS)


@pytest.mark.parametrize("zoom", [1, 2])
def test_a_step_counter_is_exactly_the_line_pillow_draws(zoom):
    size = (200 * zoom, 30 * zoom)
    text = box(size, zoom)
    for line in ["t = 0 / 1000", "t = 417 / 1000", "t = 999 / 1000 · ended", "position 3 / 9"]:
        assert (text([line]) == drawn_by_pillow([line], size, zoom)).all(), line


@pytest.mark.parametrize("zoom", [1, 2])
def test_readout_lines_are_within_a_few_levels_of_pillows(zoom):
    lines = [
        "action: 3 (UP)",
        "reward: -1.5 (of action 4)",
        "terminated: false  truncated: false (after action 4)",
        'info: {"lives": 3, "episode_frame_number": 1204}',
    ]
    size = (420 * zoom, 90 * zoom)
    ours = box(size, zoom)(lines).astype(int)
    theirs = drawn_by_pillow(lines, size, zoom)
    assert (theirs != BACKGROUND).any(axis=-1).sum() > 500  # there is text to compare
    assert np.abs(ours - theirs).max() <= 16  # where glyphs overlap their neighbours


def test_text_past_the_box_is_cut_as_pillow_cuts_it():
    size = (60, 20)
    line = "t = 123456789 / 123456789"
    assert (box(size, 1)([line]) == drawn_by_pillow([line], size, 1)).all()


@pytest.mark.parametrize("zoom", [1, 2])
def test_a_lines_length_from_its_glyphs_is_pillows(zoom):
    font = text_font(13 * zoom)
    glyphs = Glyphs(font)
    for line in ["t = 417 / 1000 · ended", "terminated: false  truncated: false", "Wj{|}"]:
        assert glyphs.length(line) == font.getlength(line)


def test_lines_are_set_again_only_when_they_change():
    text = box((200, 30), 1)
    first = text(["t = 1 / 9"])
    assert text(["t = 1 / 9"]) is first
    assert (text(["t = 2 / 9"]) != first).any()
