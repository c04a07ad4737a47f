"""A new run as :meth:`RunLibrary.add` makes it, before anything is written: its
episodes checked, each one's success kept in its metadata, its names given or read
from the episodes' metadata (a run named by the UTC time when not), and its params
as plain JSON.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

from agent_widget.episodes import Rollout
from agent_widget.library._run_file import Run, folder_name


def new_run(
    rollouts: Rollout | Iterable[Rollout],
    run_path: Callable[[str], Path | str],
    *,
    env_id: str | None = None,
    algorithm: str | None = None,
    run: str | None = None,
    params: dict[str, Any] | None = None,
    success: Callable[[Rollout], bool] | None = None,
) -> tuple[Run, list[Rollout]]:
    """The record of a run of ``rollouts`` (:meth:`RunLibrary.add` documents the
    keywords), at ``run_path(run_id)``, with no episodes listed yet; and the episodes
    to write."""
    episodes = [rollouts] if isinstance(rollouts, Rollout) else list(rollouts)
    if not episodes or not all(isinstance(r, Rollout) for r in episodes):
        raise ValueError("add() needs one Rollout or a non-empty list of Rollouts")
    if success is not None:
        episodes = [_with_success(r, success) for r in episodes]
    env_id = env_id or _from_metadata(episodes, "env_id")
    algorithm = algorithm or _from_metadata(episodes, "algorithm")
    run = run or (datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S-") + os.urandom(2).hex())
    run_id = "/".join(map(folder_name, (env_id, algorithm, run)))
    record = Run(
        id=run_id,
        path=run_path(run_id),
        env_id=env_id,
        algorithm=algorithm,
        run=run,
        params=_jsonable_params(params),
        created=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        episodes=(),
    )
    return record, episodes


def _from_metadata(rollouts: Sequence[Rollout], key: str) -> str:
    """The one name the rollouts' metadata gives for ``key``, else a ValueError."""
    values = sorted({repr(r.metadata.get(key)) for r in rollouts})
    value = rollouts[0].metadata.get(key)
    if len(values) != 1 or not isinstance(value, str) or not value:
        raise ValueError(
            f"{key} not given and the rollouts' metadata[{key!r}] is not one name "
            f"(found {', '.join(values)}): pass {key}=..."
        )
    return value


def _with_success(rollout: Rollout, success: Callable[[Rollout], bool]) -> Rollout:
    """``rollout`` with ``metadata["success"]`` set, so its file says it (see summarize)."""
    return dataclasses.replace(
        rollout, metadata={**rollout.metadata, "success": bool(success(rollout))}
    )


def _jsonable_params(params: dict[str, Any] | None) -> dict[str, Any]:
    """``params`` as plain JSON values (numpy scalars become numbers), else a ValueError."""
    if params is None:
        return {}
    if not isinstance(params, dict):
        raise ValueError(f"params must be a dict, got {type(params).__name__}")

    def plain(value: Any) -> Any:
        if isinstance(value, np.generic):
            return value.item()
        raise TypeError(f"{type(value).__name__} is not JSON-able")

    try:
        return json.loads(json.dumps(params, default=plain, allow_nan=False))
    except (TypeError, ValueError) as error:
        raise ValueError(f"params must be JSON-able: {error}") from None
    except RecursionError:
        raise ValueError("params are nested too deeply to store (or contain themselves)") from None
