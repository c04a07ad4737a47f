"""Small episodes made from arrays, shared by the tests that need a Rollout of a few steps."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from agent_widget import Rollout
from tests.sample_frames import moving_frames


def episode(
    rewards: Sequence[float],
    *,
    seed: int = 0,
    env_id: str = "Moving-v0",
    algorithm: str = "random",
    **metadata: object,
) -> Rollout:
    """An episode of one step per reward that terminates at its last step: frames in
    which a pixel moves (``moving_frames``), actions cycling 0, 1, 2. ``seed``,
    ``env_id``, ``algorithm`` and any other keyword are its metadata, which a run
    library files it by.

    >>> rollout = episode([1.0, 0.5], seed=3)
    >>> rollout.num_positions, rollout.actions.tolist(), rollout.metadata["seed"]
    (3, [0, 1], 3)
    """
    steps = len(rewards)
    return Rollout.from_arrays(
        frames=moving_frames(steps + 1),
        actions=np.arange(steps) % 3,
        rewards=rewards,
        terminated=np.arange(steps) == steps - 1,
        metadata={"env_id": env_id, "algorithm": algorithm, "seed": seed, **metadata},
    )
