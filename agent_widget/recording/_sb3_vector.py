"""A Stable-Baselines3 ``VecEnv`` (``DummyVecEnv``, ``SubprocVecEnv``, ``make_atari_env``,
and wrappers such as ``VecFrameStack`` or ``VecTransposeImage``) as
:func:`~agent_widget.recording.record_vector` drives it.

Known by its API, not its type: nothing here imports SB3, which stays optional.
SB3's VecEnvs differ from gymnasium's in three ways this adapter absorbs: ``reset()``
takes no seed (``seed(seed)`` before it seeds sub-env ``i`` with ``seed + i``); a step
returns ``(obs, rewards, dones, infos)``, a truncation told apart by
``infos[i]["TimeLimit.truncated"]``; and a sub-env is reset inside the step that ends
its episode, so that step's observation is in ``infos[i]["terminal_observation"]`` and
the frame rendered after the step already shows the next episode's start.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium as gym
from gymnasium.vector.utils import batch_space, iterate

from agent_widget.episodes import known_action_names
from agent_widget.recording._vector_steps import NO_FRAME, Outcome, Start, SubEnvStep, VectorSteps

_SB3_API = ("num_envs", "step_async", "step_wait", "get_images", "seed", "env_method")


def is_sb3_vec_env(envs: Any) -> bool:
    """Whether ``envs`` has Stable-Baselines3's ``VecEnv`` API."""
    return all(hasattr(envs, name) for name in _SB3_API)


def _innermost(venv: Any) -> Any:
    """The VecEnv under its wrappers (``VecFrameStack(...).venv``...): the one that keeps
    the sub-envs' reset infos."""
    while hasattr(venv, "venv"):
        venv = venv.venv
    return venv


class SB3Steps(VectorSteps):
    """An SB3 VecEnv. An episode that ends keeps its terminal observation as its last
    position, with no frame (``None``, which the file keeps as missing and the viewer
    shows as such) and ``info["no_frame"]`` saying why; the frame rendered after that
    step starts the sub-env's next episode, with the observation the step returned.
    Frames come from ``get_images()`` when ``render_mode == "rgb_array"``."""

    def __init__(self, venv: Any) -> None:
        self.venv, self.num_envs = venv, int(venv.num_envs)
        self.renders = getattr(venv, "render_mode", None) == "rgb_array"
        self._observations = batch_space(venv.observation_space, self.num_envs)
        self._actions = batch_space(venv.action_space, self.num_envs)

    def _frames(self) -> Sequence[Any]:
        return self.venv.get_images() if self.renders else (None,) * self.num_envs

    def _reset_info(self, i: int) -> dict[str, Any]:
        reset_infos = getattr(_innermost(self.venv), "reset_infos", None)
        return dict(reset_infos[i]) if reset_infos else {}

    def reset(self, seed: int | None) -> list[Start]:
        if seed is not None:
            self.venv.seed(seed)
        self.obs = self.venv.reset()
        rows = iterate(self._observations, self.obs)
        return [
            Start(obs_i, self._reset_info(i), frame)
            for i, (obs_i, frame) in enumerate(zip(rows, self._frames(), strict=True))
        ]

    def step(self, actions: Any) -> list[SubEnvStep]:
        self.obs, rewards, dones, infos = self.venv.step(actions)
        frames = self._frames()
        steps = []
        for i, obs_i in enumerate(iterate(self._observations, self.obs)):
            info = dict(infos[i])
            terminal = info.pop("terminal_observation", None)
            if not dones[i]:
                steps.append(SubEnvStep(Outcome(obs_i, rewards[i], False, False, info, frames[i])))
                continue
            truncated = bool(info.get("TimeLimit.truncated", False))
            last = Outcome(
                terminal, rewards[i], not truncated, truncated, {**info, "no_frame": NO_FRAME}, None
            )
            steps.append(SubEnvStep(last, Start(obs_i, self._reset_info(i), frames[i])))
        return steps

    def action_rows(self, actions: Any) -> Sequence[Any]:
        return list(iterate(self._actions, actions))

    def sub_env_seed(self, seed: int | None, i: int) -> int | None:
        return None if seed is None else seed + i  # VecEnv.seed's rule

    def describe(self) -> tuple[str | None, list[str] | None, gym.Space[Any]]:
        space = self.venv.action_space
        spec = self.venv.get_attr("spec", indices=[0])[0]
        # Asked before called: a SubprocVecEnv's worker dies on a method it lacks.
        if self.venv.env_method("has_wrapper_attr", "get_action_meanings", indices=[0])[0]:
            meanings = self.venv.env_method("get_action_meanings", indices=[0])[0]
            return getattr(spec, "id", None), [str(name) for name in meanings], space
        if spec is None:
            return None, None, space
        return spec.id, known_action_names(spec.entry_point, space), space
