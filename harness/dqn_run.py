"""A small Stable-Baselines3 DQN trained on CartPole with checkpoints recorded: the run
a checkpoint viewer is tested, benchmarked and shown on. Imported by tests, benchmarks
and their notebook kernels."""

from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np
import torch
from stable_baselines3 import DQN

from agent_widget.checkpoints import Checkpoints
from agent_widget.library import RunLibrary
from agent_widget.sb3 import RecordCheckpoints

RUN_NAME = "dqn"
RUN = f"CartPole-v1/DQN/{RUN_NAME}"


def dqn() -> DQN:
    """The model, untrained: what a checkpoint's weights are loaded into (a copy of).
    Tuned to learn within a few thousand steps (rl-zoo's CartPole settings, smaller), so
    that consecutive checkpoints act differently."""
    return DQN(
        "MlpPolicy",
        "CartPole-v1",
        learning_rate=2.3e-3,
        batch_size=64,
        learning_starts=500,
        target_update_interval=10,
        train_freq=256,
        gradient_steps=128,
        exploration_fraction=0.16,
        exploration_final_eps=0.04,
        policy_kwargs={"net_arch": [64, 64]},
        seed=0,
        device="cpu",
    )


def train(
    library: str | os.PathLike[str],
    steps: int = 4_000,
    every: int = 1_000,
    seeds: Sequence[int] = (0, 1),
) -> DQN:
    """Train :func:`dqn` for ``steps`` with a checkpoint every ``every`` into ``library``'s
    run :data:`RUN`, on one thread (a network this small only loses time to a second one
    on a busy machine); the trained model."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        model = dqn()
        record = RecordCheckpoints(
            "CartPole-v1", every=every, seeds=list(seeds), library=library, run=RUN_NAME
        )
        model.learn(steps, callback=record)
        return model
    finally:
        torch.set_num_threads(threads)


def checkpoint_q_values(
    library: str | os.PathLike[str], step: int, observation: np.ndarray, run: str = RUN
) -> np.ndarray:
    """The Q-values the checkpoint of ``step`` gives ``observation``: its weights loaded
    into a fresh :func:`dqn`, one forward pass (what its ``QValues`` card must show)."""
    model = dqn()
    Checkpoints(RunLibrary(library), run).load_weights(step, model.policy)
    with torch.no_grad():
        return model.q_net(torch.as_tensor(observation[None], dtype=torch.float32))[0].numpy()
