"""What a ``CheckpointViewer`` shows of its run, read from its checkpoints: the
checkpoints (the newest held back while its weights are not written), their seeds and
returns, where each acts differently from the one before, the episodes a page holds,
a run of one env, and the run's title.
"""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import unquote

import numpy as np

from agent_widget.checkpoints._checkpoints import Checkpoints
from agent_widget.compare import first_divergence


def shown_run(checkpoints: Checkpoints) -> tuple[list[int], list[int], list[bytes]]:
    """The training steps, the seeds, and per seed the return at each step as
    little-endian float64 (NaN where it was not evaluated); the newest checkpoint held
    back while its weights file is not written yet (the recorder writes it after the
    episodes)."""
    steps = checkpoints.steps
    if steps and checkpoints.weights_pending(steps[-1]):
        steps = steps[:-1]
    seeds = sorted({seed for step in steps for seed in checkpoints.seeds(step)})
    returns = checkpoints.returns()
    lines = [
        np.array([returns[step].get(seed, np.nan) for step in steps], "<f8").tobytes()
        for seed in seeds
    ]
    return steps, seeds, lines


def divergence_from_previous(
    checkpoints: Checkpoints, steps: list[int], index: int, seed: int
) -> int | None:
    """The first step where checkpoint ``index`` of ``steps`` acts differently from the
    one before (None when either evaluation failed)."""
    if index == 0:
        return None
    before, now = steps[index - 1], steps[index]
    failed = checkpoints.failures
    if seed not in checkpoints.seeds(before) or (before, seed) in failed:
        return None
    if (now, seed) in failed:
        return None  # a failed evaluation stopped where it raised, not where it chose
    return first_divergence(checkpoints.recorded(before, seed), checkpoints.recorded(now, seed))


def page_episodes(
    checkpoints: Checkpoints,
    known: list[int],
    all_seeds: list[int],
    steps: Sequence[int] | None,
    seeds: Sequence[int] | None,
) -> list[tuple[int, int]]:
    """The (training step, seed) of each episode a page of ``steps`` and ``seeds`` holds
    (None: every one shown, ``known`` and ``all_seeds``), checked: a KeyError for a step
    with no checkpoint, a ValueError when no episode is left."""
    chosen = list(known if steps is None else steps)
    missing = [step for step in chosen if step not in known]
    if missing:
        raise KeyError(f"no checkpoint at training steps {missing}; the run has {known}")
    wanted = all_seeds if seeds is None else list(seeds)
    pairs = [(step, seed) for step in chosen for seed in checkpoints.seeds(step) if seed in wanted]
    if not pairs:
        raise ValueError(f"no episode of seeds {wanted} at training steps {chosen}")
    return pairs


def one_env(checkpoints: Checkpoints) -> None:
    """A ValueError naming each env's steps for a run mixing envs."""
    envs = checkpoints.env_ids()
    if len(envs) > 1:
        raise ValueError(mixed(envs) + ": record each env's training in a run of its own")


def mixed(envs: dict[str, list[int]]) -> str:
    parts = "; ".join(f"{env} at training steps {steps}" for env, steps in envs.items())
    return f"the run mixes envs ({parts})"


def run_title(run: str) -> str:
    """The run as its viewer's title says it: ``"DQN on CartPole-v1 · run dqn"`` for the
    id ``"CartPole-v1/DQN/dqn"`` (its folder names decoded); another id as it is.

    Examples:
        >>> run_title("CartPole-v1/DQN/dqn")
        'DQN on CartPole-v1 · run dqn'
    """
    parts = [unquote(part) for part in run.split("/")]
    if len(parts) != 3 or not all(parts):
        return run
    env_id, algorithm, name = parts
    return f"{algorithm} on {env_id} · run {name}"
