"""Cards drawn as pixels for videos: a map's or an image's caption under its picture, the
greedy action of a bars card marked beside its label."""

from __future__ import annotations

import numpy as np
import pytest

from agent_widget.episodes import Rollout
from agent_widget.panels import Step
from agent_widget.panels._card_image import (
    BACKGROUND,
    LABEL_WIDTH,
    MUTED,
    PAD,
    ROW_HEIGHT,
    TEXT,
    TITLE_HEIGHT,
    VALUE_WIDTH,
    card_image,
)
from agent_widget.panels._cards import Card, to_card

STEP = Step(Rollout.from_arrays(observations=np.zeros((2, 1)), actions=[0]), 0)


class Captioned(np.ndarray):
    caption = "gradient of the critic's V, on the observation's 7x7 grid"


def muted_rows(picture: np.ndarray) -> np.ndarray:
    return np.flatnonzero((np.abs(picture.astype(int) - MUTED).sum(axis=2) < 30).any(axis=1))


@pytest.mark.parametrize(
    "values",
    [np.linspace(0, 1, 49).reshape(7, 7), np.full((7, 7, 3), 200, np.uint8)],
    ids=["heatmap", "image"],
)
def test_a_pictures_caption_is_drawn_under_it(values):
    captioned = np.asarray(card_image("s", to_card(values.view(Captioned), STEP), 400, 200))
    plain = np.asarray(card_image("s", to_card(values, STEP), 400, 200))
    added = np.setdiff1d(muted_rows(captioned), muted_rows(plain))
    assert len(added) > 4  # the caption's line...
    assert added.min() > 200 - 30  # ...at the bottom


def q_values(greedy: int | None) -> np.ndarray:
    """A bars card's body: Q 0.426 (greedy), 30 (taken), 12, drawn 400 px wide."""
    meta = {"labels": ["NOOP", "FIRE", "RIGHT"], "highlight": 1, "greedy": greedy}
    card = Card("bars", meta, [np.array([0.426, 30.0, 12.0], "<f8").tobytes()])
    picture = np.asarray(card_image("Q", card, 400, 120)).astype(int)
    return picture[TITLE_HEIGHT + PAD : TITLE_HEIGHT + PAD + 3 * ROW_HEIGHT, PAD : 400 - PAD]


def test_the_greedy_action_is_marked_beside_its_label_not_across_the_bars():
    """An outline across the row read as a bar at the axis maximum (0.426 like 30)."""
    marked, plain = q_values(greedy=0), q_values(greedy=None)
    width = marked.shape[1]
    left, right = round(width * LABEL_WIDTH), round(width * (1 - VALUE_WIDTH))
    np.testing.assert_array_equal(marked[:, left:right], plain[:, left:right])
    changed = np.flatnonzero((marked[:, :left] != plain[:, :left]).any(axis=(1, 2)))
    assert 0 < len(changed) <= ROW_HEIGHT
    assert changed.max() < ROW_HEIGHT  # the greedy row's label side only
    # The mark: text-coloured pixels just left of the bars' area, in that row.
    mark = marked[:ROW_HEIGHT, left - 9 : left - 3]
    assert (np.abs(mark - TEXT).sum(axis=2) < 30).sum() >= 12
    assert (plain[:ROW_HEIGHT, left - 9 : left - 3] == BACKGROUND).all()
