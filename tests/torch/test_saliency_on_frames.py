"""Where a saliency map lands on the frame (issue #41): a cropped observation's map on
the box of the frame it came from (real Pong, its playing field cropped and shrunk as
researchers do), one map per stacked frame, any other mapping as a function."""

from __future__ import annotations

import ale_py
import gymnasium as gym
import numpy as np
import pytest
import torch
from PIL import Image
from torch import nn

from agent_widget import record
from agent_widget.panels import Step
from agent_widget.torch import Saliency
from tests.torch_nets import RegionNet, image_step, region_image

gym.register_envs(ale_py)

FIELD = (slice(34, 194), slice(None))  # Pong's playing field: the score and borders cut
LOOK = (slice(40, 44), slice(60, 64))  # the 4x4 square of the 80x80 observation the net reads


class Looker(nn.Module):
    """Two actions, both read from one square of an 80x80 observation."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        energy = x[:, LOOK[0], LOOK[1]].pow(2).sum(dim=(1, 2))
        return torch.stack([energy, -energy], dim=1)


def field(frame: np.ndarray) -> np.ndarray:
    """The playing field, grey, shrunk to 80x80 in [0, 1]: Pong's usual preprocessing."""
    grey = Image.fromarray(frame[FIELD]).convert("L").resize((80, 80), Image.Resampling.BILINEAR)
    return np.asarray(grey, np.float32) / 255


def pong_step() -> Step:
    env = gym.make("ALE/Pong-v5", render_mode="rgb_array")
    space = gym.spaces.Box(0.0, 1.0, (80, 80), np.float32)
    cropped = gym.wrappers.TransformObservation(env, field, space)
    return Step(record(cropped, lambda obs: 0, seed=0, max_steps=5), 3)


def peak(values: np.ndarray) -> tuple[int, int]:
    row, col = np.unravel_index(np.argmax(values), values.shape)
    return int(row), int(col)


def test_a_cropped_observations_map_lands_on_its_box_of_the_frame():
    step = pong_step()
    cropped = Saliency(Looker(), crop=FIELD)(step)
    assert cropped.shape == (210, 160)
    # Observation rows 40:44 of 80 are frame rows 34 + 2 * (40:44) = 114:122; columns
    # 60:64 of 80 are 120:128 of 160.
    row, col = peak(cropped)
    assert 114 <= row < 122, row
    assert 120 <= col < 128, col
    assert cropped[:34].max() == cropped[194:].max() == 0  # nothing over the cut rows
    stretched = Saliency(Looker())(step)  # the whole frame: the square lands 9 rows higher
    assert not 114 <= peak(stretched)[0] < 122


def test_any_other_mapping_is_a_function_of_the_map_and_the_frame_size():
    step = pong_step()

    def upper_left(values: np.ndarray, size: tuple[int, int]) -> np.ndarray:
        placed = np.zeros(size)
        placed[:80, :80] = values
        return placed

    placed = Saliency(Looker(), to_frame=upper_left)(step)
    row, col = peak(placed)
    assert 40 <= row < 44, row  # the observation's own square, at its own place
    assert 60 <= col < 64, col
    with pytest.raises(ValueError, match="to_frame returned a map of shape"):
        Saliency(Looker(), to_frame=lambda values, size: values)(step)


def test_one_stacked_frame_has_its_own_map():
    image = region_image()
    image[:3] = 0  # only the newest of the four stacked frames shows the square
    newest = Saliency(RegionNet(), stacked=-1)(image_step(image))
    oldest = Saliency(RegionNet(), stacked=0)(image_step(image))
    summed = Saliency(RegionNet())(image_step(image))
    np.testing.assert_allclose(newest, summed, rtol=1e-6)  # all of it is the newest's
    assert oldest.max() == 0
    with pytest.raises(ValueError, match="stacks 4 frames"):
        Saliency(RegionNet(), stacked=4)(image_step(image))


def test_conflicting_placements_are_refused():
    with pytest.raises(ValueError, match=r"crop .* or to_frame"):
        Saliency(Looker(), crop=FIELD, to_frame=lambda values, size: values)
    with pytest.raises(ValueError, match="stacked= picks"):
        Saliency(Looker(), method="perturbation", stacked=0)
