"""What :func:`~agent_widget.recording.record_vector` asks of a vector env, whatever its
library: a reset and a step that say, for each sub-env, what the step did to its
episode and whether a new episode began. gymnasium's ``VectorEnv``
(:mod:`agent_widget.recording._gymnasium_vector`) and Stable-Baselines3's ``VecEnv``
(:mod:`agent_widget.recording._sb3_vector`) reset a finished sub-env at different
moments; their adapters hide that, so the recording loop is written once.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import gymnasium as gym

NO_FRAME = (
    "terminal observation: the vector env reset this sub-env in the step that ended its "
    "episode, so the frame rendered after it shows the next episode's start"
)
"""What an episode's last position's info says (as ``"no_frame"``) when it has no frame
(SB3's VecEnvs, gymnasium's ``SAME_STEP`` autoreset): "<what>: <why>", the viewer's
canvas saying "<what>, no frame at step t"."""


@dataclass(frozen=True)
class Start:
    """A sub-env's episode's first position: its observation, info and frame."""

    obs: Any
    info: dict[str, Any]
    frame: Any | None


@dataclass(frozen=True)
class Outcome:
    """What one action did in a sub-env's episode (a position after the action)."""

    obs: Any
    reward: Any
    terminated: bool
    truncated: bool
    info: dict[str, Any]
    frame: Any | None


@dataclass(frozen=True)
class SubEnvStep:
    """One vector step as sub-env ``i`` saw it. ``outcome`` is None when the step only
    reset the sub-env (gymnasium's next-step autoreset ignores the action then);
    ``start`` is set when a new episode begins at this step."""

    outcome: Outcome | None
    start: Start | None = None


class VectorSteps(ABC):
    """A vector env as the recording loop drives it."""

    num_envs: int
    renders: bool
    obs: Any
    """The batch of observations the policy acts on next."""

    @abstractmethod
    def reset(self, seed: int | None) -> list[Start]:
        """Resets every sub-env (seeded from ``seed``): each one's first position."""

    @abstractmethod
    def step(self, actions: Any) -> list[SubEnvStep]:
        """Steps every sub-env with its row of ``actions``."""

    @abstractmethod
    def action_rows(self, actions: Any) -> Sequence[Any]:
        """``actions`` split into each sub-env's action."""

    @abstractmethod
    def sub_env_seed(self, seed: int | None, i: int) -> int | None:
        """The seed sub-env ``i``'s first episode was reset with, when it has one."""

    @abstractmethod
    def describe(self) -> tuple[str | None, list[str] | None, gym.Space[Any]]:
        """The sub-envs' env id, action names and (single) action space."""


def episode_targets(episodes: int | None, num_envs: int) -> list[int]:
    """How many episodes to keep from each sub-env: one each by default; for
    ``episodes=N``, N spread as Stable-Baselines3's ``evaluate_policy`` spreads them,
    fixed before any episode runs, so sub-envs whose episodes end sooner do not
    contribute more of them (short episodes are not favoured).

    Examples:
        >>> episode_targets(5, 2), episode_targets(None, 3), episode_targets(1, 2)
        ([2, 3], [1, 1, 1], [0, 1])
    """
    if episodes is None:
        return [1] * num_envs
    if episodes < 0:
        raise ValueError(f"episodes must be at least 0, got {episodes}")
    return [(episodes + i) // num_envs for i in range(num_envs)]
