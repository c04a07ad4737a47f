"""A gymnasium ``VectorEnv`` as :func:`~agent_widget.recording.record_vector` drives it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import AsyncVectorEnv, AutoresetMode, SyncVectorEnv, VectorEnv
from gymnasium.vector.utils import iterate

from agent_widget.episodes import action_names, known_action_names
from agent_widget.recording._recording_metadata import spec_id
from agent_widget.recording._vector_steps import (
    NO_FRAME,
    Outcome,
    Start,
    SubEnvStep,
    VectorSteps,
)


def _sub_env_info(infos: Mapping[str, Any], i: int) -> dict[str, Any]:
    """Sub-env ``i``'s info from a vector env's batched info dict (``key``/``_key`` mask pairs)."""
    info = {}
    for key, value in infos.items():
        if key.startswith("_") and key[1:] in infos:
            continue
        mask = infos.get(f"_{key}")
        if mask is not None and not mask[i]:
            continue
        info[key] = _sub_env_info(value, i) if isinstance(value, Mapping) else value[i]
    return info


class GymnasiumSteps(VectorSteps):
    """A gymnasium vector env with autoreset mode ``NEXT_STEP`` (its default: the step
    after an episode's end resets that sub-env and ignores its action), ``DISABLED``
    (finished sub-envs are reset here, after the frame of their last step) or
    ``SAME_STEP`` (the step that ends an episode resets its sub-env: the episode's last
    position is ``infos["final_obs"][i]`` with no frame, as for SB3's VecEnvs, since the
    frame rendered after the step shows the next episode's start). Frames come from
    ``envs.render()`` when ``render_mode == "rgb_array"``."""

    def __init__(self, envs: VectorEnv[Any, Any, Any]) -> None:
        self.mode = envs.metadata.get("autoreset_mode", AutoresetMode.NEXT_STEP)
        self.envs, self.num_envs = envs, envs.num_envs
        self.renders = envs.render_mode == "rgb_array"
        self._resetting = np.zeros(self.num_envs, bool)  # NEXT_STEP: reset by the next step

    def _frames(self) -> Sequence[Any]:
        rendered = self.envs.render() if self.renders else None
        return (None,) * self.num_envs if rendered is None else rendered

    def _starts(self, obs: Any, infos: Mapping[str, Any]) -> list[Start]:
        rows = iterate(self.envs.observation_space, obs)
        return [
            Start(obs_i, _sub_env_info(infos, i), frame)
            for i, (obs_i, frame) in enumerate(zip(rows, self._frames(), strict=True))
        ]

    def reset(self, seed: int | None) -> list[Start]:
        self.obs, infos = self.envs.reset(seed=seed)
        self._resetting[:] = False
        return self._starts(self.obs, infos)

    def step(self, actions: Any) -> list[SubEnvStep]:
        obs, rewards, terminated, truncated, infos = self.envs.step(actions)
        frames = self._frames()
        steps = []
        for i, obs_i in enumerate(iterate(self.envs.observation_space, obs)):
            info = _sub_env_info(infos, i)
            if self._resetting[i]:
                steps.append(SubEnvStep(None, Start(obs_i, info, frames[i])))
            elif self.mode == AutoresetMode.SAME_STEP and (terminated[i] or truncated[i]):
                ended = Outcome(None, rewards[i], terminated[i], truncated[i], {}, None)
                steps.append(self._reset_in_step(ended, obs_i, infos, i, frames[i]))
            else:
                outcome = Outcome(obs_i, rewards[i], terminated[i], truncated[i], info, frames[i])
                steps.append(SubEnvStep(outcome))
        ended = (terminated | truncated) & ~self._resetting
        self.obs = obs
        if self.mode == AutoresetMode.NEXT_STEP:
            self._resetting = ended
        elif self.mode == AutoresetMode.DISABLED and ended.any():
            # Reset here, after the ended episodes' last frames.
            self.obs, infos = self.envs.reset(options={"reset_mask": ended})
            starts = self._starts(self.obs, infos)
            for i in np.flatnonzero(ended).tolist():
                steps[i] = SubEnvStep(steps[i].outcome, starts[i])
        return steps

    @staticmethod
    def _reset_in_step(
        ended: Outcome, obs: Any, infos: Mapping[str, Any], i: int, frame: Any
    ) -> SubEnvStep:
        """A ``SAME_STEP`` sub-env whose episode ended (``ended``: its reward and flags):
        its last position (the final observation and info, no frame) and the next
        episode's start (the observation, reset info and frame the step returned)."""
        info = _sub_env_info(infos, i)
        final_info = {**info.pop("final_info", {}), "no_frame": NO_FRAME}
        last = replace(ended, obs=info.pop("final_obs"), info=final_info)
        return SubEnvStep(last, Start(obs, info, frame))

    def action_rows(self, actions: Any) -> Sequence[Any]:
        return list(iterate(self.envs.action_space, actions))

    def sub_env_seed(self, seed: int | None, i: int) -> int | None:
        # Sync/Async vector envs reset sub-env i with seed + i; natively vectorized envs
        # (e.g. CartPoleVectorEnv) share one generator, so only the vector seed means anything.
        per_env_seeds = isinstance(self.envs, (SyncVectorEnv, AsyncVectorEnv))
        return seed + i if seed is not None and per_env_seeds else seed

    def describe(self) -> tuple[str | None, list[str] | None, gym.Space[Any]]:
        space = self.envs.single_action_space
        sub_envs = getattr(self.envs, "envs", None)  # SyncVectorEnv holds its sub-envs
        if sub_envs:
            return spec_id(sub_envs[0]), action_names(sub_envs[0]), space
        spec = self.envs.spec
        if spec is None:
            return None, None, space
        return spec.id, known_action_names(spec.entry_point, space), space
