"""Cards drawn as pixels for videos: a map's or an image's caption under its picture."""

from __future__ import annotations

import numpy as np
import pytest

from agent_widget.episodes import Rollout
from agent_widget.panels import Step
from agent_widget.panels._card_image import MUTED, card_image
from agent_widget.panels._cards import to_card

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
