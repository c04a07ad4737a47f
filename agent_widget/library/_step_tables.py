"""An episode as rows of a table, one per step, from whatever per-step columns it has.

Every column of the ``steps`` table a query sees comes from :func:`step_columns`,
which asks each function of ``COLUMN_SOURCES`` in turn for the columns it finds in a
:class:`Rollout`; a new kind of per-step data (per-agent columns, say) is one more
function there. Frames and observations are never touched: a table is built from the
arrays a lazily loaded episode holds in memory (actions, rewards, flags, extras) and
its infos (small JSON, read a chunk at a time).

Row ``t`` is action ``t``: its reward, the flags it raised and the info the env returned
with them (position ``t + 1``'s; position ``t``'s for data with one frame per action).
``return_so_far`` is the return collected before it, ``return_to_go`` from it on, so
their sum is the episode's return. Scalar numbers are DOUBLE (BOOLEAN when every value
is one), strings VARCHAR; an extra of shape ``(T, k)`` (q-values, action
probabilities) is a LIST of k DOUBLEs. A multi-agent episode brings a column of each
kind per agent (:func:`_agents`). A column whose name a fixed one takes is
prefixed ``extra_`` or ``info_`` (as is one that a column
from the episode, ``FROM_EPISODE``, takes). Scalar metadata (``training_step``, ``checkpoint``)
is the episode's, kept apart by :func:`episode_metadata`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pyarrow as pa

from agent_widget.episodes import Rollout, kept_names, own_names
from agent_widget.format import own_column

# The columns every table has, before those an episode brings.
FIXED = (
    "run",
    "file",
    "segment",
    "t",
    "action",
    "action_vector",
    "action_name",
    "reward",
    "return_so_far",
    "return_to_go",
    "terminated",
    "truncated",
)
# Columns the steps table takes from the episode it is in (agent_widget.library._query).
FROM_EPISODE = ("env_id", "algorithm", "episode", "seed", "training_step", "checkpoint")
# Metadata keys the episodes table shows when episodes carry them (checkpoint
# evaluations carry both; see agent_widget.checkpoints).
EPISODE_METADATA = ("training_step", "checkpoint")

Columns = dict[str, pa.Array]


def step_columns(rollout: Rollout) -> Columns:
    """The per-step columns of ``rollout`` (but ``run``, ``file`` and ``segment``, which
    say where it lies): each source's, later ones renamed where an earlier took the name."""
    columns: Columns = {}
    for source, prefix in COLUMN_SOURCES:
        for name, values in source(rollout).items():
            taken = name in columns or name in FIXED[:3] or name in FROM_EPISODE
            columns[f"{prefix}{name}" if taken else name] = values
    return columns


def _base(rollout: Rollout) -> Columns:
    """t, the action (and its name), reward, returns and flags."""
    steps = rollout.num_steps
    rewards = np.asarray(rollout.rewards, np.float64)
    before = np.concatenate([[0.0], np.cumsum(rewards)[:-1]]) if steps else rewards
    after = np.cumsum(rewards[::-1])[::-1]
    columns: Columns = {"t": pa.array(np.arange(steps, dtype=np.int64))}
    columns.update(_actions(rollout))
    columns.update(
        reward=pa.array(rewards),
        return_so_far=pa.array(before),
        return_to_go=pa.array(after),
        terminated=pa.array(np.asarray(rollout.terminated, bool)),
        truncated=pa.array(np.asarray(rollout.truncated, bool)),
    )
    return columns


def _actions(rollout: Rollout) -> Columns:
    """``action`` for one number per step (BIGINT for discrete actions), else
    ``action_vector``; ``action_name`` where the metadata names discrete actions."""
    actions = np.asarray(rollout.actions)
    steps = len(actions)
    if actions.ndim == 1:
        kind = np.int64 if actions.dtype.kind in "biu" else np.float64
        scalar, vector = pa.array(actions.astype(kind)), pa.nulls(steps, pa.list_(pa.float64()))
    else:  # a vector per step; (T, 0) when the episode's data gave no actions: NULL
        flat = actions.reshape(steps, math.prod(actions.shape[1:])).astype(np.float64)
        scalar = pa.nulls(steps, pa.int64())
        vector = _lists(flat) if flat.shape[1] else pa.nulls(steps, pa.list_(pa.float64()))
    names = rollout.metadata.get("action_names")
    named = _named(actions, names if isinstance(names, list) else [])
    return {
        "action": scalar,
        "action_vector": vector,
        "action_name": named if named is not None else pa.nulls(steps, pa.string()),
    }


def _named(actions: np.ndarray, names: Sequence[str]) -> pa.Array | None:
    """Discrete actions by name (NULL where a number has none), or None when they are
    not discrete or there are no names."""
    if actions.ndim != 1 or actions.dtype.kind not in "iu" or not names:
        return None
    labels = np.array([str(n) for n in names] + [None], dtype=object)
    index = np.where((actions >= 0) & (actions < len(names)), actions, len(names))
    return pa.array(labels[index], pa.string())


def _extras(rollout: Rollout) -> Columns:
    """Each numeric extra of one value per step, or of a few (shape ``(T, k)``)."""
    columns: Columns = {}
    for name, values in rollout.extras.items():
        array = np.asarray(values)
        if array.dtype.kind not in "biuf" or array.ndim > 2:
            continue
        if array.ndim == 2:
            columns[name] = _lists(array.astype(np.float64))
        elif array.dtype.kind == "b":
            columns[name] = pa.array(array)
        else:
            columns[name] = pa.array(array.astype(np.float64))
    return columns


def _infos(rollout: Rollout) -> Columns:
    """Each info key whose values are scalars (numbers, flags, strings) at every step
    that has it; NULL at the steps that do not."""
    steps, infos = rollout.num_steps, rollout.infos
    if not steps or infos is None:
        return {}
    first = 1 if len(infos) == steps + 1 else 0
    returned = list(infos[first : first + steps])
    try:  # pyarrow reads the dicts at once when each key keeps one type
        struct = pa.array(returned)
    except pa.ArrowException:
        return _infos_by_key(returned)
    columns: Columns = {}
    for field, values in zip(struct.type, struct.flatten(), strict=True):
        if pa.types.is_boolean(field.type) or pa.types.is_string(field.type):
            columns[field.name] = values
        elif pa.types.is_integer(field.type) or pa.types.is_floating(field.type):
            columns[field.name] = values.cast(pa.float64())
    return columns


def _infos_by_key(infos: list[dict[str, Any]]) -> Columns:
    """What :func:`_infos` finds, key by key: the keys of one scalar kind, the others
    (a number at one step, a string at another) left out."""
    found: dict[str, list[Any]] = {}
    for t, info in enumerate(infos):
        for key, value in info.items():
            found.setdefault(key, [None] * len(infos))[t] = value
    columns: Columns = {}
    for key, values in found.items():
        column = _scalars(values)
        if column is not None:
            columns[key] = column
    return columns


def _scalars(values: list[Any]) -> pa.Array | None:
    """``values`` (None where missing) as one column, or None when they are not all of
    one scalar kind: flags, numbers or strings."""
    present = [v for v in values if v is not None]
    if all(isinstance(v, bool) for v in present):
        return pa.array(values, pa.bool_())
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in present):
        return pa.array([None if v is None else float(v) for v in values], pa.float64())
    if all(isinstance(v, str) for v in present):
        return pa.array(values, pa.string())
    return None


def _lists(array: np.ndarray) -> pa.Array:
    """Rows of a 2-D float array as a LIST column (one list of k values per step)."""
    steps, width = array.shape
    offsets = np.arange(steps + 1, dtype=np.int32) * width
    return pa.ListArray.from_arrays(pa.array(offsets), pa.array(array.reshape(-1)))


def _agents(rollout: Rollout) -> Columns:
    """A multi-agent episode's (PettingZoo) per-agent columns, whichever it holds:
    ``acting_agent``, whose turn the step was (AEC envs), and for each agent
    ``reward_<agent>``, ``action_<agent>`` (NULL where it took none),
    ``action_name_<agent>`` (where names fit its own space, :func:`own_names`),
    ``acted_<agent>``, ``present_<agent>``, ``terminated_<agent>``,
    ``truncated_<agent>``... (a list per step where the agent has several values). The
    fixed columns hold the step as a whole (``reward`` summed over the agents)."""
    found = rollout.agent_columns
    if found is None:
        return {}
    columns: Columns = {}
    acting = rollout.acting_agent
    if acting is not None:
        columns["acting_agent"] = pa.array([str(a) or None for a in acting], pa.string())
    acted = found.arrays.get("acted")
    for key, values in found.arrays.items():
        array = np.asarray(values)
        own = own_column(key, len(found.names))
        if own is not None:  # one agent's column (its actions' shape differs from others')
            key, i = own
            per_agent = [(i, array)]
        elif key == "acting" or array.ndim < 2 or array.ndim > 3:
            continue
        else:
            per_agent = [(i, array[:, i]) for i in range(len(found.names))]
        name = _SINGULAR.get(key, key)
        for i, agent_values in per_agent:
            took = None if acted is None or key != "actions" else ~np.asarray(acted[:, i], bool)
            column = _per_agent(agent_values, took)
            if column is not None:
                columns[f"{name}_{found.names[i]}"] = column
            agent = found.names[i]
            if key == "actions" and (named := _agent_named(rollout, agent, agent_values, took)):
                columns[f"action_name_{agent}"] = named
    return columns


def _agent_named(
    rollout: Rollout, agent: str, actions: np.ndarray, missing: np.ndarray | None
) -> pa.Array | None:
    """``agent``'s discrete actions by the names that fit its own action space
    (``metadata["agent_action_names"]``, or the episode's one list where it fits);
    NULL where ``missing`` (a step it took no action)."""
    metadata = rollout.metadata
    named = _named(actions, own_names(kept_names(metadata) or [], metadata, agent))
    if named is None or missing is None:
        return named
    return pa.array(named.to_pylist(), pa.string(), mask=missing)


_SINGULAR = {"rewards": "reward", "actions": "action"}


def _per_agent(values: np.ndarray, missing: np.ndarray | None) -> pa.Array | None:
    """One agent's column: numbers, flags, or a list of numbers per step; NULL where
    ``missing`` (an action it did not take) or NaN (a reward while absent)."""
    if values.dtype.kind not in "biuf" or values.ndim > 2:
        return None
    if values.ndim == 2:
        return _lists(values.astype(np.float64))
    if values.dtype.kind == "b":
        return pa.array(values)
    kind = np.int64 if values.dtype.kind in "iu" else np.float64
    return pa.array(values.astype(kind), mask=missing, from_pandas=True)


COLUMN_SOURCES: tuple[tuple[Callable[[Rollout], Columns], str], ...] = (
    (_base, ""),
    (_agents, "agent_"),
    (_extras, "extra_"),
    (_infos, "info_"),
)
"""Where columns come from, in order, and the prefix a later one takes on a clash."""


def episode_metadata(rollout: Rollout) -> dict[str, Any]:
    """The metadata of ``rollout`` the episodes table shows: ``EPISODE_METADATA``'s
    keys whose values are plain scalars."""
    found = {}
    for key in EPISODE_METADATA:
        value = rollout.metadata.get(key)
        if isinstance(value, (bool, int, str)) or (
            isinstance(value, float) and math.isfinite(value)
        ):
            found[key] = value
    return found
