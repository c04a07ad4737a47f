"""An episode recorded straight to its ``.rollout`` file, a chunk at a time.

The file is there from the first step, chunks.bin growing a chunk (16 positions) at a
time, each chunk with its journal record (:mod:`agent_widget.format._journal`) and
flushed to the OS; the end adds ``meta.json``, the per-step arrays and the index. A
run killed at any moment leaves a file that
:func:`~agent_widget.format.read_columns` reads up to its last whole chunk.

What a chunk held in memory (its encoded frames and large observations) is let go
once it is written and read back from the file when asked for, so an episode's memory
does not grow with its frames: the recorder keeps only the small per-step values.
"""

from __future__ import annotations

import contextlib
import os
import re
import weakref
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from agent_widget.format._atomic import checked_name, fsync_directory, named, temporary_name
from agent_widget.format._chunk_index import (
    CHUNK,
    CRC,
    ENCODING,
    ENCODINGS,
    FRAMES,
    HEIGHT,
    INFOS,
    LENGTH,
    OFFSET,
    START,
    STREAM,
    WIDTH,
)
from agent_widget.format._chunk_index import COUNT as POSITIONS
from agent_widget.format._codec import Part
from agent_widget.format._journal import Record
from agent_widget.format._lazy_columns import decode_infos
from agent_widget.format._payloads import Payload
from agent_widget.format._writer import RolloutWriter

EPISODE_FILE = re.compile(r"episode-(\d+)\.rollout")


def part_of(path: str | os.PathLike[str]) -> Path:
    """What a file being recorded to ``path`` is called until it is whole: ``<path>.part``."""
    path = Path(path)
    return path.with_name(path.name + ".part")


class Spool:
    """Writes one episode to ``file`` (at ``path``) as its chunks fill, and reads the
    chunks it wrote back when the recorder is asked for them.

    Open one with :meth:`to_path` or :meth:`in_folder`. A spool to a path writes
    ``<path>.part`` and renames it to the path when it is finished, so the file that
    was there survives a recording that fails before its end (:meth:`finish`).
    """

    @classmethod
    def to_path(cls, path: str | os.PathLike[str]) -> Spool:
        """A spool to ``path``, writing ``<path>.part`` (a new file, replacing a part a
        killed recording left: a reader of that one keeps reading it)."""
        destination = Path(path)
        part = part_of(destination)
        checked_name(part.name)
        tmp = temporary_name(part)
        with named(destination, tmp):
            file = open(tmp, "xb")  # noqa: SIM115 (the Spool closes it)
            os.replace(tmp, part)
            fsync_directory(part.parent)
        return cls(part, file, destination)

    @classmethod
    def in_folder(cls, directory: str | os.PathLike[str]) -> Spool:
        """A spool to the first free ``episode-NNN.rollout`` in ``directory`` (created);
        several recorders may share a directory (the name is taken by creating it)."""
        folder = Path(directory)
        with named(folder):
            folder.mkdir(parents=True, exist_ok=True)
            numbers = [int(m[1]) for m in map(EPISODE_FILE.fullmatch, os.listdir(folder)) if m]
        number = max(numbers, default=-1) + 1
        while True:
            path = folder / f"episode-{number:03d}.rollout"
            try:
                with named(path):
                    return cls(path, open(path, "xb"))
            except FileExistsError:
                number += 1

    def __init__(self, path: Path, file: BinaryIO, destination: Path | None = None) -> None:
        self.path, self._file, self.destination = path, file, destination
        # The file by its path and identity, for the recording layer's encoder process to
        # append to (agent_widget.recording._encoder._held_chunks): by then the path may
        # be another file.
        stat = os.fstat(file.fileno())
        self.identity = (str(path), stat.st_dev, stat.st_ino)
        self._writer = RolloutWriter(file)
        # Its zip header in the file from now on: the encoder process appends the chunks
        # it holds to a file with that much (a recorder killed before it wrote one).
        with named(path):
            file.flush()
        self._rows: list[np.ndarray] = []  # each written chunk's index rows
        self.failed = False  # a write failed: the file ends before it
        # A recorder dropped unfinished leaves its file closed, as a killed one's.
        self._abandon = weakref.finalize(self, _abandon, self._writer, file)

    @property
    def written(self) -> int:
        """How many chunks are written."""
        return len(self._rows)

    def write(
        self, payloads: list[Payload], arrays: dict[str, np.ndarray], layout: dict[str, Any]
    ) -> None:
        """Write chunk :attr:`written`: its payloads and its journal arrays (``layout``:
        what the first record says of the episode, :func:`journal_layout`)."""
        with named(self.path):
            self._rows.append(self._writer.chunk(payloads, arrays, layout))

    def write_record(self, record: Record) -> None:
        """Write chunk :attr:`written` as the encoder process made its record, lent
        :attr:`state` (:mod:`agent_widget.recording._encoder._remote_records`)."""
        assert record.size == self._writer.state[1], "a record made after other bytes"
        with named(self.path):
            self._writer.stored(record.offsets)
            self._rows.append(self._writer.record([record.data], record.rows))

    @property
    def state(self) -> tuple[int, int, dict[bytes, int]]:
        """What making the next chunk's record takes (:attr:`RolloutWriter.state`)."""
        return self._writer.state

    def frame_parts(self, k: int) -> list[Part]:
        """The frame parts of written chunk ``k``, read back from the file."""
        return [
            Part(
                int(row[START]),
                int(row[POSITIONS]),
                int(row[HEIGHT]),
                int(row[WIDTH]),
                ENCODINGS[row[ENCODING]],
                self._read(row),
            )
            for row in self._chunk_rows(FRAMES, k)
        ]

    def payload(self, stream: int, k: int) -> bytes:
        """The one payload of ``stream`` in written chunk ``k``, read back from the file."""
        (row,) = self._chunk_rows(stream, k)
        return self._read(row)

    def infos(self, k: int) -> list[dict[str, Any]]:
        """The infos of written chunk ``k``, read back from the file."""
        (row,) = self._chunk_rows(INFOS, k)
        infos = decode_infos(self._read(row), int(row[POSITIONS]))
        if infos is None:
            raise OSError(f"{self.path} changed under the recorder: chunk {k}'s infos")
        return infos

    def _chunk_rows(self, stream: int, k: int) -> np.ndarray:
        rows = self._rows[k]
        return rows[rows[:, STREAM] == stream]

    def _read(self, row: np.ndarray) -> bytes:
        with open(self.path, "rb") as file:
            file.seek(self._writer.data_start + int(row[OFFSET]))
            data = file.read(int(row[LENGTH]))
        if zlib.crc32(data) != row[CRC]:
            raise OSError(
                f"{self.path} changed under the recorder: chunk {int(row[CHUNK])} reads back "
                "other bytes than were written"
            )
        return data

    def discard(self) -> None:
        """Close and remove the file (an episode that took no action)."""
        self.close()
        self.path.unlink(missing_ok=True)

    def close(self) -> None:
        """Close the file unfinished: read back through its journal, as a killed run's."""
        self._abandon()

    def finish(self, members: Callable[[], list[tuple[str, bytes]]], *, replace: bool) -> Path:
        """Add the small members (``members()``: meta.json first) and close the file,
        whole; where it is now (the recorder reads the episode back from it).

        A spool to a path renames its part to the path, unless ``replace`` is False and
        a file is there (a recording cut short keeps the file it was to replace, and
        stays at ``<path>.part``).
        """
        try:
            with named(self.path):
                self._writer.finish(members())
                self._file.flush()
                os.fsync(self._file.fileno())
        except BaseException:
            self.failed = True
            self.close()
            raise
        self._abandon.detach()
        self._file.close()
        destination = self.destination
        if destination is not None and (replace or not destination.exists()):
            with named(destination):
                os.replace(self.path, destination)
                fsync_directory(destination.parent)
            self.path = destination
        return self.path


def _abandon(writer: RolloutWriter, file: BinaryIO) -> None:
    try:
        writer.abandon()
    finally:
        # What is still buffered may not fit either (a full disk); the file is closed all
        # the same, and the journal ends at its last whole chunk.
        with contextlib.suppress(OSError):
            file.close()
