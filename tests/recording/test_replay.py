"""Frames rendered after the fact, by replaying an episode's actions from its seed."""

from __future__ import annotations

import dataclasses

import gymnasium as gym
import numpy as np
import pytest

from agent_widget.recording import ReplayDivergenceError, record, render_frames
from tests.cartpole import cartpole, lean


def test_frames_rendered_by_replay_are_the_frames_recorded_with_rendering():
    rendered = record(cartpole(), lean, seed=3)
    bare = record(cartpole(render_mode=None), lean, seed=3)
    assert bare.frames is None
    replayed = render_frames(bare)
    assert len(replayed.frames) == len(rendered.frames) == bare.num_positions
    for t in range(bare.num_positions):
        assert np.array_equal(replayed.frames[t], rendered.frames[t]), t
    assert np.array_equal(replayed.actions, bare.actions)
    assert render_frames(rendered) is rendered


def test_an_env_given_as_a_function_is_used_and_closed():
    bare = record(cartpole(render_mode=None), lean, seed=1)
    made: list[gym.Env] = []

    def make() -> gym.Env:
        made.append(cartpole())
        return made[-1]

    assert render_frames(bare, make).frames[-1].shape == (400, 600, 3)
    assert len(made) == 1
    assert not made[0].unwrapped.isopen  # closed


def test_another_seed_diverges_at_the_reset():
    bare = record(cartpole(render_mode=None), lean, seed=1)
    other = dataclasses.replace(bare, metadata={**bare.metadata, "seed": 2})
    with pytest.raises(
        ReplayDivergenceError, match="from seed 2 gives another observation at position 0"
    ) as error:
        render_frames(other)
    assert error.value.position == 0


def test_an_env_ending_early_diverges_where_it_ends():
    bare = record(cartpole(render_mode=None), lean, seed=1)
    short = lambda: gym.make("CartPole-v1", render_mode="rgb_array", max_episode_steps=5)  # noqa: E731
    with pytest.raises(ReplayDivergenceError, match="ends after action 4") as error:
        render_frames(bare, short)
    assert error.value.position == 5


def test_what_cannot_be_replayed_says_why():
    bare = record(cartpole(render_mode=None), lean)
    with pytest.raises(ValueError, match=r"has no seed \(metadata\['seed'\]\)"):
        render_frames(bare)
    seeded = record(cartpole(render_mode=None), lean, seed=0)
    with pytest.raises(ValueError, match="this env's is None"):
        render_frames(seeded, cartpole(render_mode=None))
