"""Whether an observation is a picture of the frame (issue #52), on real envs: Atari's
preprocessed screen and MiniGrid's full-grid pixels are; MiniGrid's egocentric 7x7
view, its egocentric pixels and its fully observable grid of indices are not."""

from __future__ import annotations

import ale_py
import gymnasium as gym
import numpy as np
import pytest
from minigrid.wrappers import (
    FullyObsWrapper,
    ImgObsWrapper,
    RGBImgObsWrapper,
    RGBImgPartialObsWrapper,
)

from agent_widget import record
from agent_widget.torch._same_picture import THRESHOLD, FramePictures, likeness

gym.register_envs(ale_py)


def pong():
    env = gym.make("ALE/Pong-v5", frameskip=1, render_mode="rgb_array")
    return gym.wrappers.FrameStackObservation(gym.wrappers.AtariPreprocessing(env), 4)


def grid(wrapper=None):
    env = gym.make("MiniGrid-Empty-5x5-v0", render_mode="rgb_array")
    return ImgObsWrapper(env if wrapper is None else wrapper(env))


def episode(env: gym.Env, steps: int = 6):
    rng = np.random.default_rng(0)
    return record(env, lambda obs: int(rng.integers(env.action_space.n)), seed=0, max_steps=steps)


@pytest.mark.parametrize(
    ("make", "picture"),
    [
        (pong, True),  # the whole screen shrunk to 84x84 grey, four of them stacked
        (lambda: grid(RGBImgObsWrapper), True),  # the whole grid, 8 pixels a cell
        (grid, False),  # the 7x7 egocentric view of object indices
        (lambda: grid(RGBImgPartialObsWrapper), False),  # the egocentric view's pixels
        (lambda: grid(FullyObsWrapper), False),  # the whole grid as indices, x first
    ],
    ids=["atari", "minigrid-rgb", "minigrid-view", "minigrid-view-rgb", "minigrid-indices"],
)
def test_an_observation_is_a_picture_of_the_frame_only_where_it_shows_it(make, picture):
    rollout = episode(make())
    scores = [likeness(rollout.observations[t], rollout.frames[t]) for t in range(3)]
    assert all((score > THRESHOLD) == picture for score in scores), scores
    assert FramePictures()(rollout) == picture


def test_a_crop_is_compared_with_its_box_of_the_frame():
    rollout = episode(grid(RGBImgObsWrapper))
    frame = np.zeros((300, 160, 3), np.uint8)
    frame[100:260] = rollout.frames[0]  # the grid lies in rows 100:260 of a taller frame
    box = (slice(100, 260), slice(None))
    assert likeness(rollout.observations[0], frame, box) > THRESHOLD
    assert likeness(rollout.observations[0], frame) < THRESHOLD


def test_what_is_no_image_is_no_picture():
    frame = np.zeros((10, 10, 3), np.uint8)
    assert likeness(np.arange(4.0), frame) == 0.0
    assert likeness({"image": np.zeros((7, 7, 3))}, frame) == 0.0
    assert likeness(np.ones((7, 7)), frame) == 0.0  # no contrast: nothing to compare
