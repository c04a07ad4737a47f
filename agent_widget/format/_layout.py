"""The ``.rollout`` file format: its layout, and the columns it holds of an episode.

A ``.rollout`` file is a zip archive whose members are all stored uncompressed
(``ZIP_STORED``), so any byte range is one seek away and ordinary zip tools can list
and extract it. Members, in this order:

``chunks.bin``
    the payloads, chunk by chunk (chunk k = positions 16k..16k+15): the frame parts
    of chunk k exactly as the browser receives them (zlib-runs or raw, see
    :mod:`agent_widget.format._codec`), its large observations (zlib-runs over their raw
    bytes, any dtype, one payload a chunk), and its infos (a zlib-compressed JSON
    list). Identical payloads are stored once: an observation that is the frame
    (Pong's) has the frame part's payload when the chunk is one part. Each chunk's
    payloads are framed by a journal record (:mod:`agent_widget.format._journal`):
    what the members below say of that chunk, so a file cut anywhere keeps every
    chunk before the cut.
``meta.json``
    format name and version, episode lengths, the user's metadata, and the dtype and
    shape of every array below: the table of contents.
``actions.npy``, ``rewards.npy``, ``terminated.npy``, ``truncated.npy``, ``extras/<i>.npy``
    per-step arrays in numpy's ``.npy`` format (read with ``allow_pickle=False``).
``observations/<i>.npy``
    observations of under 1 KiB per position (vectors), also ``.npy``
    (:data:`~agent_widget.format._encoded_array.LARGE_ROW_BYTES`).
``agents/<i>.npy`` (version 3, multi-agent episodes only)
    per-agent per-step arrays, one row per step: ``(T, n_agents, ...)`` with a column
    per agent in the order ``meta.json``'s ``agents.names`` gives, or ``(T,)`` for
    what is one value a step (which agent acted). ``meta.json``'s ``agents`` lists
    them by name as ``arrays`` lists the per-step ones. Version 4: an array named
    ``<key>/<j>`` holds agent j's column alone, ``(T, ...)`` of its own shape and
    dtype (the actions of agents whose action spaces differ in shape).
``chunks.index.npy``
    int64 table, one row per payload in ``chunks.bin``: ``stream, chunk, start, count,
    height, width, encoding, offset, length, crc32``. Streams: 0 frames, 1 infos,
    2 + i the i-th large observation entry. Encodings: 0 raw, 1 zlib-xor, 2 zlib-json,
    3 zlib-runs.

Version 3 adds the ``agents`` entry and its members (a PettingZoo episode: one column
per agent); version 4 its arrays of one agent each (:func:`own_column`). A file is
written with the lowest version that describes it (:func:`file_version`), so a
single-agent episode is still written as version 2, which agent-widget releases that
know no agents read, and a multi-agent one whose columns are all shared as version 3.
Version 2 stores frames and large observations as zlib-runs; version 1 stored them as
zlib-xor. Version-1 files still load: their frames and observations
decode as they are, and their frame chunks are re-encoded as zlib-runs when handed
out (:mod:`agent_widget.format._lazy_columns`), so saving one again writes version 2.

Why this layout:

- Opening reads only the central directory, ``meta.json``, the per-step arrays and
  the index (a few bytes per step); frames, large observations and infos are read
  on demand, a chunk at a time.
- One frame costs one read of its part and inflating the stream up to that frame.
- Chunks come first, so a file can be written as it is recorded (``record(...,
  path=...)``) and a writer killed at any moment leaves the chunks it finished.
- Damage stays local. Every payload carries its own CRC, and every chunk its
  journal record, so a file cut short keeps every chunk before the cut: when the zip
  central directory is lost, the local headers are scanned instead, and when the
  small members are lost too the journal stands in for them. A corrupted payload
  raises only when its chunk is read.
- Nothing is pickled or evaluated, and every size and shape read from a file is
  checked before it is used, so opening a stranger's file is safe.
- :func:`save` writes a temporary file in the same folder, fsyncs it and renames it
  over the target: a crash mid-save leaves the previous file untouched.

Reading is layered: :mod:`agent_widget.format._archive` reads the zip members (recovering
them from a cut file), :mod:`agent_widget.format._chunk_index` checks the index, and
:mod:`agent_widget.format._lazy_columns` holds the lazy frames, observations and infos.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np

from agent_widget.format._frames import Frames

FORMAT = "agent-widget.rollout"
# 4: an agent's own columns; 3: per-agent columns; 2: frames and observations as
# zlib-runs; 1: zlib-xor
VERSION = 4

META = "meta.json"
PER_STEP = ("actions", "rewards", "terminated", "truncated")
# Actions are numbers, or text where they are not (a Text space, a Tuple of mixed parts).
ACTION_KINDS = "biufcU"


class AgentColumns(NamedTuple):
    """A multi-agent episode's per-agent columns (version 3): the agents' ``names``, and
    ``arrays`` by name, each with one row per step: ``(T, len(names), ...)`` holds a
    column per agent, ``(T,)`` one value a step, and ``<key>/<j>`` agent j's column
    alone (version 4, :func:`own_column`). What the arrays mean is the episode
    layer's (``agent_widget.episodes``); the format only stores them."""

    names: list[str]
    arrays: Mapping[str, np.ndarray]


def own_column(key: str, agents: int) -> tuple[str, int] | None:
    """``("actions", 1)`` for an agents array named ``"actions/1"``: agent 1's column
    alone, ``(T, ...)``, where the agents' values differ in shape (version 4); None for
    an array of every agent's (``(T, n_agents, ...)`` or ``(T,)``), or a name whose
    index is not an agent's."""
    base, slash, index = key.rpartition("/")
    if not slash or not index.isdigit() or int(index) >= agents:
        return None
    return base, int(index)


def file_version(agents: AgentColumns | None) -> int:
    """The lowest version that describes an episode with these per-agent columns."""
    if agents is None:
        return 2
    if any(own_column(key, len(agents.names)) for key in agents.arrays):
        return 4
    return 3


class Columns(NamedTuple):
    """An episode as the file holds it: what :func:`write_columns` writes and
    :func:`read_columns` gives back (frames, observations and infos read lazily).

    It knows no ``Rollout``: the episode layer builds one from these columns and gives
    its own back (``Rollout.columns``). Observations are an array, a lazy array or a
    dict of them; ``infos`` has one dict per position.
    """

    frames: Frames | None
    observations: Any
    actions: np.ndarray
    rewards: np.ndarray
    terminated: np.ndarray
    truncated: np.ndarray
    infos: Sequence[dict[str, Any]]
    extras: Mapping[str, np.ndarray]
    metadata: dict[str, Any]
    agent_columns: AgentColumns | None = None  # multi-agent episodes only

    @property
    def num_positions(self) -> int:
        return len(self.infos)
