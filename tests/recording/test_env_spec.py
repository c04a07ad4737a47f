"""How an env was made, kept with its episodes (``metadata["env_spec"]``), and the env
made again from that to render frames by replay: registry ids and gymnasium's own
wrappers only, never a module a file names."""

from __future__ import annotations

import dataclasses
import sys

import gymnasium as gym
import numpy as np
import pytest

from agent_widget import RunLibrary, record
from agent_widget.recording import ReplayDivergenceError, render_frames
from tests.cartpole import lean


class Monitor(gym.Wrapper):
    """Counts steps, changes nothing the agent sees (as SB3's Monitor)."""

    steps = 0

    def step(self, action):
        self.steps += 1
        return self.env.step(action)


def stacked() -> gym.Env:
    """CartPole seen as its last 3 observations, flattened: replayed in plain CartPole,
    the first observation already differs."""
    env = gym.wrappers.FrameStackObservation(gym.make("CartPole-v1"), 3)
    return gym.wrappers.FlattenObservation(env)


def lean_stacked(obs: np.ndarray) -> int:
    return lean(obs[-4:])


def test_a_recording_keeps_how_its_env_was_made():
    spec = record(stacked(), lean_stacked, seed=0).metadata["env_spec"]
    assert (spec["id"], spec["max_episode_steps"], spec["kwargs"]) == ("CartPole-v1", 500, {})
    assert spec["additional_wrappers"] == [
        {
            "name": "FrameStackObservation",
            "entry_point": "gymnasium.wrappers.stateful_observation:FrameStackObservation",
            "kwargs": {"stack_size": 3, "padding_type": "reset"},
        },
        {
            "name": "FlattenObservation",
            "entry_point": "gymnasium.wrappers.transform_observation:FlattenObservation",
            "kwargs": {},
        },
    ]


def test_frames_of_a_library_episode_are_rendered_in_its_env_made_again(tmp_path):
    """A wrapped env's episode, read back from its run the next morning: no render_env."""
    episode = record(stacked(), lean_stacked, seed=3)
    RunLibrary(tmp_path).add(episode, algorithm="lean", run="stacked")
    (loaded,) = RunLibrary(tmp_path).open("CartPole-v1/lean/stacked")[:]
    rendered = render_frames(loaded)
    assert len(rendered.frames) == episode.num_positions
    assert rendered.frames[0].shape == (400, 600, 3)


def test_a_wrapper_with_arguments_json_reads_as_lists_is_made_again():
    """ResizeObservation insists on a tuple; JSON keeps lists."""
    env = gym.make("CartPole-v1", render_mode="rgb_array")
    env = gym.wrappers.AddRenderObservation(env, render_only=True)
    env = gym.wrappers.ResizeObservation(env, (30, 45))
    episode = record(env, lambda obs: 0, seed=1, max_steps=4)
    episode = dataclasses.replace(episode, frames=None)  # as a training keeps it
    assert render_frames(episode).frames[4].shape == (400, 600, 3)


def test_a_wrapper_of_another_package_is_left_out_and_the_replay_says_so():
    from minigrid.wrappers import ImgObsWrapper

    episode = record(ImgObsWrapper(gym.make("MiniGrid-Empty-5x5-v0")), lambda obs: 2, seed=0)
    with pytest.raises(
        ReplayDivergenceError,
        match=r"gives another observation at position 0, .* \(wrapper ImgObsWrapper "
        r"\(minigrid.wrappers:ImgObsWrapper\) is not one of gymnasium's .* left out: "
        r"pass render_env=",
    ):
        render_frames(episode)


def test_a_wrapper_given_a_function_is_left_out_and_the_replay_says_so():
    env = gym.wrappers.TransformObservation(gym.make("CartPole-v1"), lambda obs: 2 * obs, None)
    episode = record(env, lambda obs: 0, seed=0, max_steps=5)
    assert episode.metadata["env_spec"]["additional_wrappers"][0]["kwargs"] is None
    with pytest.raises(
        ReplayDivergenceError,
        match="wrapper TransformObservation is left out: its arguments were not kept",
    ):
        render_frames(episode)


def test_a_wrapper_that_changed_no_observation_is_left_out_harmlessly():
    """A monitor of the user's own: the replay without it gives the same observations."""
    episode = record(Monitor(gym.make("CartPole-v1")), lean, seed=2)
    assert episode.metadata["env_spec"]["additional_wrappers"][0]["name"] == "Monitor"
    assert len(render_frames(episode).frames) == episode.num_positions


def test_a_file_naming_another_module_never_makes_it_imported():
    episode = record(gym.make("CartPole-v1"), lean, seed=0, max_steps=5)
    wrapper = {"name": "Checker", "entry_point": "tabnanny:check", "kwargs": {}}
    episode.metadata["env_spec"]["additional_wrappers"] = [wrapper]
    sys.modules.pop("tabnanny", None)
    assert len(render_frames(episode).frames) == 6
    assert "tabnanny" not in sys.modules


def test_an_env_id_gymnasium_does_not_know_says_what_to_import():
    episode = record(gym.make("CartPole-v1"), lean, seed=0, max_steps=5)
    episode.metadata["env_spec"]["id"] = "Unregistered-v7"
    with pytest.raises(ValueError, match=r"env 'Unregistered-v7' is not in gymnasium's registry"):
        render_frames(episode)
