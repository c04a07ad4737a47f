"""Writing a ``.rollout`` file (:mod:`agent_widget.format._layout` describes it): the
whole of an episode at once (:func:`write_columns`), or a chunk at a time as it is
recorded (:class:`RolloutWriter`, through :mod:`agent_widget.format._spool`)."""

from __future__ import annotations

import hashlib
import io
import math
import os
import zipfile
from collections.abc import Mapping, MutableMapping
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from agent_widget.format import _journal as journal
from agent_widget.format._atomic import atomic_write
from agent_widget.format._chunk_index import (
    BLOB,
    COLUMNS,
    ENCODINGS,
    FRAMES,
    INDEX,
    INFOS,
    OBSERVATIONS,
)
from agent_widget.format._codec import CHUNK_SIZE, Part, chunk_count, encode_rows
from agent_widget.format._codec import ENCODINGS as FRAME_ENCODINGS
from agent_widget.format._encoded_array import LARGE_ROW_BYTES, ChunkedRows
from agent_widget.format._frames import Frames
from agent_widget.format._layout import (
    ACTION_KINDS,
    FORMAT,
    META,
    PER_STEP,
    AgentColumns,
    Columns,
    file_version,
    own_column,
)
from agent_widget.format._payloads import Payload, chunk_payloads, json_text

_DATE = (1980, 1, 1, 0, 0, 0)  # fixed, so equal episodes give equal files


def write_columns(columns: Columns, path: str | os.PathLike[str]) -> Path:
    """Write an episode's ``columns`` to ``path`` atomically: a temporary file in the
    same folder, fsynced and renamed over the target, so a crash mid-write leaves the
    previous file untouched.

    Chunk payloads go to the file as they are read, so writing a loaded episode of any
    length holds one chunk at a time.
    """
    path = Path(path)
    with atomic_write(path) as file, RolloutWriter(file) as writer:
        members = Members()
        observations, chunked = members.observations(columns.observations)
        steps = {name: getattr(columns, name) for name in PER_STEP}
        agents = columns.agent_columns
        per_step = {
            **steps,
            **{f"extras/{k}": v for k, v in columns.extras.items()},
            **({} if agents is None else {f"agents/{k}": v for k, v in agents.arrays.items()}),
        }
        small = _small_observations(columns.observations, chunked)
        layout = journal_layout(
            columns.metadata, columns.frames is not None, observations, agents=agents
        )
        for k in range(chunk_count(columns.num_positions)):
            start = k * CHUNK_SIZE
            stop = min(start + CHUNK_SIZE, columns.num_positions)
            parts = None if columns.frames is None else _checked_parts(columns.frames, k, stop)
            streams = {s: _stream_payload(value, k, start, stop) for s, value in chunked.items()}
            infos = [columns.infos[t] for t in range(start, stop)] if columns.infos else []
            arrays = {name: np.asarray(v[start:stop]) for name, v in per_step.items()}
            arrays |= {name: np.asarray(v[start:stop]) for name, v in small.items()}
            writer.chunk(chunk_payloads(start, stop, parts, streams, infos), arrays, layout)
        writer.finish(
            members.meta(
                steps,
                columns.extras,
                observations,
                num_positions=columns.num_positions,
                metadata=columns.metadata,
                frames=columns.frames is not None,
                agents=agents,
            )
        )
    return path


def journal_record(
    chunk: int,
    size: int,
    payloads: list[Payload],
    arrays: dict[str, np.ndarray],
    layout: dict[str, Any],
    offsets: MutableMapping[bytes, int],
) -> tuple[list[bytes], list[list[int]]]:
    """Chunk number ``chunk`` as the bytes that follow the ``size`` bytes of chunks.bin
    before it (its record's prefix, its new payloads, its body) and its index rows.
    ``offsets``: where each payload already in chunks.bin is, by digest; equal payloads
    are stored once, and the new ones are added to it."""
    first = size + journal.PREFIX.size
    new: list[bytes] = []
    rows = []
    for payload in payloads:
        key = hashlib.blake2b(payload.data, digest_size=16).digest()
        offset = offsets.get(key)
        if offset is None:
            offset = offsets[key] = first + sum(map(len, new))
            new.append(payload.data)
        rows.append(payload.row(offset))
    header = {
        "chunk": chunk,
        "positions": payloads[-1].positions,
        "steps": len(arrays["actions"]),
        "rows": rows,
        **({"layout": layout} if chunk == 0 else {}),
    }
    record = journal.body(header, arrays)
    return [journal.prefix(sum(map(len, new))), *new, record], rows


def journal_layout(
    metadata: dict[str, Any],
    frames: bool,
    observations: Any,
    agents: AgentColumns | None = None,
) -> dict[str, Any]:
    """What a journal's first record says of the episode: its metadata, whether it has
    frames, its observations as :meth:`Members.observations` describes them (a large
    entry's shape without its length, which grows), and its agents' names if it has
    per-agent columns (their arrays go in each record, as the per-step arrays do)."""
    json_text(metadata, "metadata")
    named = {} if agents is None else {"agents": _agent_names(agents)}
    if observations is not None:
        entries = {
            key: {**spec, "shape": spec["shape"][1:]} if "stream" in spec else {}
            for key, spec in observations["entries"].items()
        }
        observations = {"dict": observations["dict"], "entries": entries}
    return {"metadata": metadata, "frames": frames, "observations": observations, **named}


def _agent_names(agents: AgentColumns) -> list[str]:
    """The agents' names, checked with their arrays' shapes: a file must be readable."""
    names = list(agents.names)
    if not all(isinstance(name, str) for name in names) or len(set(names)) != len(names):
        raise ValueError(f"cannot save agents: their names must be distinct strings: {names}")
    for key, array in agents.arrays.items():
        shared = own_column(key, len(names)) is None  # not one agent's column alone
        if shared and np.ndim(array) >= 2 and np.shape(array)[1] != len(names):
            raise ValueError(
                f"cannot save agents[{key!r}]: shape {np.shape(array)} has no column per "
                f"agent ({len(names)})"
            )
    return names


def _small_observations(observations: Any, chunked: dict[int, Any]) -> dict[str, Any]:
    """The observation entries stored as .npy members, by their journal names."""
    if observations is None:
        return {}
    entries = observations if isinstance(observations, dict) else {"": observations}
    return {
        f"observations/{key}": value
        for i, (key, value) in enumerate(entries.items())
        if OBSERVATIONS + i not in chunked
    }


def _stream_payload(value: Any, k: int, start: int, stop: int) -> bytes:
    if isinstance(value, ChunkedRows):  # recorded: already encoded
        return value.payload(k)
    rows = np.ascontiguousarray(value[start:stop]).reshape(stop - start, -1)
    return encode_rows(rows.view(np.uint8))


class RolloutWriter:
    """Writes a ``.rollout`` zip to an open file: chunks.bin first, chunk by chunk, then
    the small members and the zip directory (:meth:`finish`).

    Equal payloads are stored once. Each chunk is framed by a journal record and flushed
    to the OS, so a writer killed at any moment leaves a file that :func:`load` reads up
    to its last whole chunk (:mod:`agent_widget.format._journal`).
    """

    def __init__(self, file: BinaryIO) -> None:
        self._file = file
        self._zip = zipfile.ZipFile(file, "w", zipfile.ZIP_STORED)
        # Its size is unknown until the end: zip64 sizes, filled in when it is closed.
        self._blob = self._zip.open(zipfile.ZipInfo(BLOB, _DATE), "w", force_zip64=True)
        self.data_start = file.tell()  # where chunks.bin's bytes start in the file
        self._rows: list[list[int]] = []
        self._offsets: dict[bytes, int] = {}  # by payload digest
        self._size = 0
        self.chunks = 0

    def __enter__(self) -> RolloutWriter:
        return self

    def __exit__(self, kind: type[BaseException] | None, *_: Any) -> None:
        if kind is not None:
            self.abandon()

    def abandon(self) -> None:
        """Close the zip unfinished, chunks.bin its one member: read back through its
        journal, as a killed writer's file is (the file itself stays open)."""
        try:
            self._blob.close()
            self._zip.close()
        except (OSError, ValueError):
            # A write failed (a full disk): the journal ends before it. The zip is done
            # with its file all the same (ZipFile would try again when collected, on
            # a file closed by then, and print the error).
            self._zip.fp = None

    def chunk(
        self, payloads: list[Payload], arrays: dict[str, np.ndarray], layout: dict[str, Any]
    ) -> np.ndarray:
        """Add the next chunk: its payloads (the infos' last) and, for its journal record,
        its per-step arrays (``actions`` ..., ``extras/<name>``) and small observations
        (``observations/<key>``), and the episode's ``layout`` (:func:`journal_layout`).
        Returns the chunk's index rows."""
        pieces, rows = journal_record(
            self.chunks, self._size, payloads, arrays, layout, self._offsets
        )
        return self.record(pieces, rows)

    def record(self, pieces: list[bytes], rows: list[list[int]]) -> np.ndarray:
        """Add the next chunk as :func:`journal_record` made it (here, or in the encoder
        process from :attr:`state`: :mod:`agent_widget.recording._encoder._remote_records`);
        returns its index rows."""
        for piece in pieces:
            self._blob.write(piece)
            self._size += len(piece)
        self._file.flush()  # in the OS's hands: a kill -9 from now on loses none of it
        self._rows.extend(rows)
        self.chunks += 1
        return np.array(rows, np.int64)

    @property
    def state(self) -> tuple[int, int, dict[bytes, int]]:
        """What :func:`journal_record` needs to make the next chunk's record: the chunk's
        number, the bytes of chunks.bin so far and where each payload is (the dict itself:
        the records made elsewhere add theirs with :meth:`stored`)."""
        return self.chunks, self._size, self._offsets

    def stored(self, offsets: dict[bytes, int]) -> None:
        """Note the payloads a record made elsewhere added (by digest)."""
        self._offsets.update(offsets)

    def finish(self, members: list[tuple[str, bytes]]) -> None:
        """Close chunks.bin and add ``members`` (meta.json first) and the chunk index."""
        self._blob.close()
        index = np.array(self._rows, np.int64).reshape(-1, len(COLUMNS))
        for name, data in [*members, (INDEX, _npy_bytes(index))]:
            self._zip.writestr(zipfile.ZipInfo(name, _DATE), data)
        self._zip.close()


def _npy_bytes(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    return buffer.getvalue()


class Members:
    """The small members: per-step arrays, extras, small observations, as .npy."""

    def __init__(self) -> None:
        self.members: list[tuple[str, bytes]] = []

    def npy(self, member: str, value: Any, what: str, kinds: str = "biufc") -> dict[str, Any]:
        """Add a .npy member; returns its meta.json entry."""
        array = np.asarray(value)
        if array.dtype.kind not in kinds:
            raise ValueError(f"cannot save {what}: dtype {array.dtype} is not numeric")
        self.members.append((member, _npy_bytes(array)))
        return {"member": member, "dtype": array.dtype.str, "shape": list(array.shape)}

    def observations(self, observations: Any) -> tuple[Any, dict[int, Any]]:
        """Small observations become .npy members, large ones chunked streams (returned
        by id); a large entry needs only a dtype and shape (recorded ones are on disk)."""
        if observations is None:
            return None, {}
        is_dict = isinstance(observations, dict)
        entries = observations if is_dict else {"": observations}
        specs, chunked = {}, {}
        for i, (key, value) in enumerate(entries.items()):
            dtype, shape = np.dtype(value.dtype), tuple(value.shape)
            if dtype.kind not in "biufc":
                raise ValueError(f"cannot save observations {key!r}: dtype {dtype} is not numeric")
            if dtype.itemsize * math.prod(shape[1:]) < LARGE_ROW_BYTES:
                specs[key] = self.npy(f"observations/{i}.npy", value, f"observations {key!r}")
            else:
                chunked[OBSERVATIONS + i] = value
                specs[key] = {"stream": OBSERVATIONS + i, "dtype": dtype.str, "shape": list(shape)}
        return {"dict": is_dict, "entries": specs}, chunked

    def meta(
        self,
        steps: Mapping[str, Any],
        extras: Mapping[str, Any],
        observations: Any,
        *,
        num_positions: int,
        metadata: dict[str, Any],
        frames: bool,
        agents: AgentColumns | None = None,
    ) -> list[tuple[str, bytes]]:
        """meta.json, then the members: ``steps`` holds the per-step arrays (actions,
        rewards, terminated, truncated), ``observations`` is what :meth:`observations`
        returned, ``agents`` the per-agent columns (version 3 or 4) if any."""
        arrays = {
            name: self.npy(
                f"{name}.npy", steps[name], name, ACTION_KINDS if name == "actions" else "biufc"
            )
            for name in PER_STEP
        }
        extras = {
            name: self.npy(f"extras/{i}.npy", value, f"extras[{name!r}]")
            for i, (name, value) in enumerate(extras.items())
        }
        named = {}
        if agents is not None:
            names = _agent_names(agents)
            arrays_of_agents = {
                name: self.npy(f"agents/{i}.npy", value, f"agents[{name!r}]")
                for i, (name, value) in enumerate(agents.arrays.items())
            }
            named = {"agents": {"names": names, "arrays": arrays_of_agents}}
        meta = {
            "format": FORMAT,
            "version": file_version(agents),
            "num_steps": len(steps["actions"]),
            "num_positions": num_positions,
            "metadata": metadata,
            "arrays": arrays,
            "extras": extras,
            "observations": observations,
            "frames": {"stream": FRAMES} if frames else None,
            "infos": {"stream": INFOS},
            "chunks": {
                "member": BLOB,
                "index": INDEX,
                "chunk_size": CHUNK_SIZE,
                "columns": list(COLUMNS),
                "encodings": list(ENCODINGS),
            },
            **named,
        }
        text = json_text(meta, "metadata", indent=1).encode()
        return [(META, text), *self.members]


def _checked_parts(frames: Frames, k: int, stop: int) -> list[Part]:
    """Chunk k's parts, checked to tile its positions: a file must never be unreadable."""
    parts = frames.chunk(k)
    covered = k * CHUNK_SIZE
    for part in parts:
        if part.start != covered or part.count < 1 or part.encoding not in FRAME_ENCODINGS:
            raise ValueError(f"cannot save frames: chunk {k} has a bad part {part[:5]}")
        covered += part.count
    if covered != stop:
        raise ValueError(f"cannot save frames: chunk {k} ends at {covered}, not at {stop}")
    return parts
