"""Reading a ``.rollout`` file (:mod:`agent_widget.format._layout` describes it):
:func:`read_columns` opens it lazily, and recovers what a cut file holds from its
journal."""

from __future__ import annotations

import json
import os
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from agent_widget.format import _journal as journal
from agent_widget.format._archive import Archive
from agent_widget.format._chunk_index import BLOB, FRAMES, INFOS, ChunkIndex
from agent_widget.format._filesystems import is_url
from agent_widget.format._layout import (
    ACTION_KINDS,
    FORMAT,
    META,
    PER_STEP,
    VERSION,
    AgentColumns,
    Columns,
    own_column,
)
from agent_widget.format._lazy_columns import StoredArray, StoredFrames, StoredInfos

_MAX_META_BYTES = 64 * 2**20
_MAX_STEPS = 2**40


def read_columns(
    path: str | os.PathLike[str], *, storage_options: dict[str, Any] | None = None
) -> Columns:
    """The columns of the ``.rollout`` file at ``path`` (a local path or an fsspec URL),
    read lazily: opening reads the small members, frames, observations and infos a chunk
    at a time when asked for. ``agent_widget.load`` documents it for users.

    Raises RolloutFileError (a ValueError) naming the file and the problem; a file cut
    short opens, with a warning, from its journal.
    """
    archive = Archive(path if is_url(path) else Path(path), storage_options)
    if META not in archive.members and BLOB in archive.members:
        return _recover(archive)
    archive.warn_if_recovered()
    meta = _read_meta(archive)
    steps, n = meta["num_steps"], meta["num_positions"]
    arrays = {
        name: archive.npy(
            spec, f"arrays.{name}", steps, ACTION_KINDS if name == "actions" else "biufc"
        )
        for name, spec in _field(archive, meta, "arrays", dict).items()
        if name in PER_STEP
    }
    missing = set(PER_STEP) - set(arrays)
    if missing:
        raise archive.error(f"meta.json lists no {', '.join(sorted(missing))}")
    extras = {
        str(name): archive.npy(spec, f"extras.{name}", steps)
        for name, spec in _field(archive, meta, "extras", dict).items()
    }
    index = ChunkIndex.read(archive, _field(archive, meta, "chunks", dict), n)
    return _columns(
        index,
        arrays,
        extras,
        _load_observations(archive, index, meta, n),
        _field(archive, meta, "metadata", dict),
        frames=meta.get("frames") is not None,
        agents=_load_agents(archive, meta, steps),
    )


def _columns(
    index: ChunkIndex,
    arrays: dict[str, np.ndarray],
    extras: dict[str, np.ndarray],
    observations: Any,
    metadata: dict[str, Any],
    *,
    frames: bool,
    agents: AgentColumns | None = None,
) -> Columns:
    return Columns(
        frames=StoredFrames(index, index.rows(FRAMES, "frames")) if frames else None,
        observations=observations,
        actions=arrays["actions"],
        rewards=arrays["rewards"],
        terminated=arrays["terminated"],
        truncated=arrays["truncated"],
        infos=StoredInfos(index, index.one_row_per_chunk(INFOS, "infos")),
        extras=extras,
        metadata=metadata,
        agent_columns=agents,
    )


def _recover(archive: Archive) -> Columns:
    """The episode of a file whose recording stopped before its end, from its journal:
    every position up to its last whole chunk, and the steps between them (the last one
    marked truncated)."""
    found = journal.read_journal(archive, archive.data_start(archive.members[BLOB]))
    layout, arrays, n = found.layout, dict(found.arrays), found.num_positions
    index = ChunkIndex(archive, found.table, n, found.blob_size)
    missing = [name for name in PER_STEP if name not in arrays]
    metadata, spec = layout.get("metadata"), layout.get("observations")
    if missing or not isinstance(metadata, dict) or not isinstance(spec, (dict, type(None))):
        raise archive.error("its journal is malformed")
    if found.num_steps:
        arrays["truncated"] = arrays["truncated"].copy()
        arrays["truncated"][-1] = True
    extras = {k.removeprefix("extras/"): v for k, v in arrays.items() if k.startswith("extras/")}
    agents = None
    if "agents" in layout:
        names = _agent_names(archive, layout["agents"])
        per_agent = {
            k.removeprefix("agents/"): v for k, v in arrays.items() if k.startswith("agents/")
        }
        agents = _checked_agents(archive, names, per_agent)
    observations = None
    if spec is not None:
        observations = _recovered_observations(archive, index, spec, arrays)
    warnings.warn(
        f"{archive.path}: its recording stopped before the end; read the {n} positions "
        "of the chunks it finished",
        stacklevel=4,  # agent_widget.load's caller
    )
    note = f"the recording stopped after position {n - 1}, before the episode ended"
    return _columns(
        index,
        arrays,
        extras,
        observations,
        {**metadata, "recovered": note},
        frames=bool(layout.get("frames")),
        agents=agents,
    )


def _recovered_observations(
    archive: Archive, index: ChunkIndex, spec: dict[str, Any], arrays: dict[str, np.ndarray]
) -> Any:
    entries = spec.get("entries")
    if not isinstance(entries, dict):
        raise archive.error("its journal is malformed")
    observations: dict[str, Any] = {}
    for key, entry in entries.items():
        what = f"observations {key!r}"
        if isinstance(entry, dict) and "stream" in entry:
            shape = entry.get("shape")
            if not isinstance(shape, list):
                raise archive.error(f"its journal's entry for {what} is malformed")
            full = {**entry, "shape": [index.num_positions, *shape]}
            observations[key] = StoredArray(index, full, what)
        elif f"observations/{key}" in arrays:
            observations[key] = arrays[f"observations/{key}"]
        else:
            raise archive.error(f"its journal holds no {what}")
    return observations if spec.get("dict") else observations.get("")


def _read_meta(archive: Archive) -> dict[str, Any]:
    if META not in archive.members:
        raise archive.error("not a .rollout file: it is a zip archive without meta.json")
    try:
        meta = json.loads(archive.read(META, _MAX_META_BYTES))
    # ValueError: not UTF-8, not JSON, an integer of thousands of digits; RecursionError:
    # arrays nested thousands deep.
    except (ValueError, RecursionError) as error:
        raise archive.error(
            f"meta.json is not valid JSON ({type(error).__name__}: {error!s:.200})"
        ) from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise archive.error(f"meta.json does not describe an {FORMAT} file")
    version = meta.get("version")
    if type(version) is not int or version < 1:
        raise archive.error(f"meta.json has no format version (1 to {VERSION}): {version!r:.50}")
    if version > VERSION:
        raise archive.error(
            f"format version {version} is newer than this agent-widget reads ({VERSION}); "
            "upgrade agent-widget"
        )
    steps = _field(archive, meta, "num_steps", int)
    n = _field(archive, meta, "num_positions", int)
    if not 0 <= steps <= _MAX_STEPS or n not in (steps, steps + 1):
        raise archive.error(f"meta.json has impossible lengths: {steps} steps, {n} positions")
    return meta


def _field(archive: Archive, meta: dict[str, Any], key: str, kind: type) -> Any:
    value = meta.get(key)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise archive.error(f"meta.json: {key!r} is missing or not a {kind.__name__}")
    return value


def _load_observations(archive: Archive, index: ChunkIndex, meta: dict[str, Any], n: int) -> Any:
    spec = meta.get("observations")
    if spec is None:
        return None
    if not isinstance(spec, dict) or not isinstance(spec.get("entries"), dict):
        raise archive.error("meta.json: 'observations' is malformed")
    entries: dict[str, Any] = {}
    for key, entry in spec["entries"].items():
        what = f"observations {key!r}"
        if isinstance(entry, dict) and "member" in entry:
            entries[key] = archive.npy(entry, what, n)
        else:
            entries[key] = StoredArray(index, entry, what)
    if spec.get("dict"):
        return entries
    if set(entries) != {""}:
        raise archive.error("meta.json: 'observations' is malformed")
    return entries[""]


def _load_agents(archive: Archive, meta: dict[str, Any], steps: int) -> AgentColumns | None:
    """A version-3 or -4 file's per-agent columns (None for a single-agent episode)."""
    spec = meta.get("agents")
    if spec is None:
        return None
    if not isinstance(spec, dict) or not isinstance(spec.get("arrays"), dict):
        raise archive.error("meta.json: 'agents' is malformed")
    names = _agent_names(archive, spec.get("names"))
    arrays = {
        str(name): archive.npy(entry, f"agents.{name}", steps)
        for name, entry in spec["arrays"].items()
    }
    return _checked_agents(archive, names, arrays)


def _agent_names(archive: Archive, names: Any) -> list[str]:
    if (
        not isinstance(names, list)
        or not all(isinstance(name, str) for name in names)
        or len(set(names)) != len(names)
    ):
        raise archive.error("its agents' names are not a list of distinct strings")
    return names


def _checked_agents(
    archive: Archive, names: list[str], arrays: dict[str, np.ndarray]
) -> AgentColumns:
    """The columns, each array checked to hold a column per agent (or one value a step),
    but an agent's own (``<key>/<j>``, any shape)."""
    for name, array in arrays.items():
        own = own_column(name, len(names)) is not None
        if not own and array.ndim >= 2 and array.shape[1] != len(names):
            raise archive.error(
                f"agents.{name} has shape {array.shape}: not a column per agent ({len(names)})"
            )
    return AgentColumns(names, arrays)
