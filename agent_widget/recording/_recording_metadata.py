"""What every recorded rollout carries in its metadata: the env, the seed, the action
names and space, the time, and what the user tells about the recording."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timezone
from typing import Any

import gymnasium as gym
from gymnasium.vector import VectorEnv

from agent_widget.episodes import describe_space


def labels(
    agent: str | None, algorithm: str | None, metadata: Mapping[str, Any] | None
) -> dict[str, Any]:
    """What the user tells about a recording; their ``metadata`` wins on clashes."""
    return {"agent": agent, "algorithm": algorithm, **(metadata or {})}


def base_metadata(
    env_id: str | None,
    seed: int | None,
    names: list[str] | None,
    action_space: gym.Space[Any],
    labels: Mapping[str, Any],
) -> dict[str, Any]:
    """The metadata every recorded rollout carries."""
    return {
        "env_id": env_id,
        "seed": seed,
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "action_names": names,
        "action_space": describe_space(action_space),
        **labels,
    }


def spec_id(env: gym.Env[Any, Any] | VectorEnv[Any, Any, Any]) -> str | None:
    return env.spec.id if env.spec is not None else None
