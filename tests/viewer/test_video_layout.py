"""What a video shows besides the frame: its size (``scale``), the step counter, the
readout, the timeline strip, and captions wrapped whole. Real files, decoded again."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
from PIL import Image, ImageDraw

from agent_widget.episodes import Rollout
from agent_widget.panels._card_image import FONT_SIZE as CARD_FONT_SIZE
from agent_widget.panels._card_image import (
    HIGHLIGHT,
    MUTED,
    PAD,
    ROW_HEIGHT,
    TEXT,
    TITLE_HEIGHT,
    text_font,
    wrapped,
)
from agent_widget.viewer import EpisodeViewer
from agent_widget.viewer._film import FONT_SIZE, MIN_FRAME_HEIGHT
from agent_widget.viewer._film import PAD as VIDEO_PAD
from tests.viewer.test_video import BARE, FRAMES, HEIGHT, LENGTH, WIDTH, gif_frames, near

pytestmark = pytest.mark.usefixtures("empty_panel_registry")


@pytest.fixture
def viewer() -> Iterator[EpisodeViewer]:
    rewards = np.zeros(LENGTH - 1)
    rewards[[4, 9]] = [1.0, -2.0]
    rollout = Rollout.from_arrays(frames=FRAMES, actions=np.arange(LENGTH - 1) % 3, rewards=rewards)
    viewer = EpisodeViewer(rollout, fps=8)
    yield viewer
    viewer.close()


def close(pixels: np.ndarray, colour, within: int) -> np.ndarray:
    """Where ``pixels`` are within ``within`` of ``colour`` in every channel."""
    return (np.abs(pixels.astype(int) - colour) <= within).all(axis=-1)


def counter_alone(t: int, width: int, height: int) -> np.ndarray:
    """The step counter as the readout writes it, drawn by Pillow alone at the video's
    text size and margin on a white box (the oracle for the header)."""
    image = Image.new("RGB", (width, height), (255, 255, 255))
    ImageDraw.Draw(image).text(
        (VIDEO_PAD, VIDEO_PAD), f"t = {t} / {LENGTH - 1}", TEXT, text_font(FONT_SIZE)
    )
    return np.asarray(image)


# Size


@pytest.mark.parametrize("scale", [1, 3, 7])
def test_a_whole_scale_repeats_each_pixel(viewer, tmp_path, scale):
    options = {**BARE, "scale": scale}
    decoded = gif_frames(viewer.save_video(tmp_path / "s.gif", 0, 3, progress=False, **options))
    for t, frame in enumerate(decoded):
        assert frame.shape == (HEIGHT * scale, WIDTH * scale, 3)
        assert (frame == FRAMES[t].repeat(scale, 0).repeat(scale, 1)).all()


def test_a_fractional_scale_resizes_smoothly(tmp_path):
    frames = np.zeros((2, 16, 24, 3), np.uint8)
    frames[:, :, 12:] = 255  # a sharp edge down the middle
    options = {**BARE, "scale": 1.5}
    video = EpisodeViewer(frames).save_video(tmp_path / "f.gif", progress=False, **options)
    decoded = gif_frames(video)
    assert decoded[0].shape == (24, 36, 3)
    assert len(np.unique(decoded[0][..., 0])) > 2  # blended across the edge, not blocks


def test_by_default_a_small_frame_grows_by_a_whole_factor_to_at_least_400_px(tmp_path):
    palette = np.random.default_rng(0).integers(0, 256, (8, 3), dtype=np.uint8)
    pong = palette[np.random.default_rng(1).integers(0, 8, (2, 210, 160))]  # a GIF keeps 8
    decoded = gif_frames(
        EpisodeViewer(pong).save_video(tmp_path / "p.gif", step_counter=False, progress=False)
    )
    assert decoded[0].shape == (420, 320, 3)  # twice: Pong's panels are readable
    assert (decoded[1] == pong[1].repeat(2, 0).repeat(2, 1)).all()
    big = np.zeros((1, MIN_FRAME_HEIGHT + 80, 30, 3), np.uint8)
    film = EpisodeViewer(big).save_video(tmp_path / "b.gif", step_counter=False, progress=False)
    assert gif_frames(film)[0].shape[:2] == (MIN_FRAME_HEIGHT + 80, 30)  # large enough as it is


@pytest.mark.parametrize("scale", [0, -2, float("nan"), float("inf")])
def test_a_scale_that_is_not_positive_is_refused_before_any_file(viewer, tmp_path, scale):
    with pytest.raises(ValueError, match="scale must be a positive number"):
        viewer.save_video(tmp_path / "x.gif", scale=scale, progress=False)
    assert list(tmp_path.iterdir()) == []


def test_cards_grow_with_the_frame(viewer, tmp_path):
    viewer.add_panel("Q", lambda step: np.array([1.0, 2.0, -3.0]))
    small = gif_frames(
        viewer.save_video(tmp_path / "1.gif", 0, 1, scale=1, panels=True, progress=False)
    )
    large = gif_frames(
        viewer.save_video(tmp_path / "2.gif", 0, 1, scale=2, panels=True, progress=False)
    )
    small_card = small[0][:, small[0].shape[1] - 320 :]
    large_card = large[0][:, large[0].shape[1] - 640 :]
    doubled = large_card[::2, ::2].astype(int)
    assert np.abs(doubled - small_card).max() <= 8  # the same card, in 2x2 blocks


# The step counter


def test_the_step_counter_above_the_frame_is_the_counter_drawn_alone(viewer, tmp_path):
    decoded = gif_frames(viewer.save_video(tmp_path / "c.gif", 3, 12, scale=1, progress=False))
    width = decoded[0].shape[1]
    header = decoded[0].shape[0] - HEIGHT  # the frame is below the counter, at the bottom
    for t, frame in zip(range(3, 12), decoded, strict=True):
        alone = counter_alone(t, width, header)
        assert (alone < 128).any()
        # GIF's 256-colour palette moves the text's grey edges a little, nothing more.
        assert np.abs(frame[:header].astype(int) - alone).max() <= 24
        assert (frame[header:, :WIDTH] == FRAMES[t]).all()
    assert (decoded[0][:header] != decoded[1][:header]).any()  # it counts


def test_without_the_counter_the_video_is_the_frame(viewer, tmp_path):
    decoded = gif_frames(viewer.save_video(tmp_path / "n.gif", 0, 2, **BARE, progress=False))
    assert decoded[0].shape == (HEIGHT, WIDTH, 3)


# Readout and timeline


def test_the_readout_below_the_frame_says_each_steps_reward(viewer, tmp_path):
    bare = gif_frames(viewer.save_video(tmp_path / "b.gif", 3, 6, scale=1, progress=False))
    read = gif_frames(
        viewer.save_video(tmp_path / "r.gif", 3, 6, scale=1, readout=True, progress=False)
    )
    below = bare[0].shape[0]
    assert read[0].shape[0] > below + 4 * 18  # action, reward, return, flags at least
    readouts = [frame[below:] for frame in read]
    assert all(near(r, TEXT, within=40) > 50 for r in readouts)
    assert (readouts[0] != readouts[1]).any()  # step 4 earned 1, step 3 nothing


def test_the_timeline_cursor_moves_across_the_strip(viewer, tmp_path):
    video = viewer.save_video(tmp_path / "t.gif", 0, 20, scale=1, timeline=True, progress=False)
    decoded = gif_frames(video)
    strip = [frame[-40:] for frame in decoded]
    cursors = [np.flatnonzero(close(s, HIGHLIGHT, 20).sum(axis=0) > 20) for s in strip]
    assert all(len(c) >= 1 for c in cursors)
    xs = [float(c.mean()) for c in cursors]
    assert xs == sorted(xs)
    assert xs[-1] - xs[0] > decoded[0].shape[1] / 2
    assert near(strip[0], MUTED, within=40) > 0  # its legend


# Captions


class Captioned(dict):
    caption = "greedy a · taken b · " + "a caption far too long for one line of a card " * 3


def test_a_bars_caption_is_wrapped_inside_its_card_never_cut(viewer, tmp_path):
    viewer.add_panel("Q", lambda step: Captioned(a=1.0, b=2.0))
    video = viewer.save_video(tmp_path / "q.gif", 0, 1, scale=1, panels=True, progress=False)
    frame = gif_frames(video)[0]
    card = frame[:, frame.shape[1] - 320 :]
    below_bars = card[TITLE_HEIGHT + PAD + 2 * ROW_HEIGHT :]  # the labels' grey edges above
    lines = wrapped(Captioned.caption, 320 - 2 * PAD, text_font(CARD_FONT_SIZE))
    assert len(lines) >= 3
    muted_rows = np.flatnonzero(close(below_bars, MUTED, 30).any(axis=1))
    bands = 1 + int((np.diff(muted_rows) > 3).sum())
    assert bands == len(lines)  # every line drawn, one under the other
    muted_columns = np.flatnonzero(close(below_bars, MUTED, 30).any(axis=0))
    assert muted_columns.max() < 320 - PAD  # inside the card
    assert frame.shape[0] >= TITLE_HEIGHT + 2 * PAD + ROW_HEIGHT * (
        2 + len(lines)
    )  # the card made room
