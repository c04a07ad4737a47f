"""The journal records of the chunks the encoder process holds
(:mod:`agent_widget.recording._encoder._held_chunks`): made for a live recording process to write
(:class:`RecordMaker`, :mod:`agent_widget.recording._encoder._remote_records`), or appended to the
file of one that died (:func:`append_held`). Imported by the encoder process only
when it first makes one, so it starts with the encoder alone.

The file's last whole journal record is found by the reader's own code, so the chunks
appended are exactly those that follow it, in order, up to the first one not held:
the journal never has a gap. They go over whatever a write cut short left after that
record. A full disk stops it there: the journal ends at its last whole record, as it
does for any write cut short. Equal payloads are stored once only among the chunks
appended (where the recording process stored earlier ones is not known here).
"""

from __future__ import annotations

import collections
import os
from collections.abc import Callable, Iterator, MutableMapping
from pathlib import Path

from agent_widget.format import (
    BLOB,
    CHUNK_SIZE,
    META,
    Archive,
    NoRecord,
    Part,
    Record,
    RolloutFileError,
    chunk_count,
    chunk_payloads,
    frame_rows_payload,
    journal_record,
    read_journal,
)
from agent_widget.recording._encoder._held_chunks import Held, HoldArea, unpacked


def append_held(chunks: dict[int, Held]) -> int:
    """Append the held ``chunks`` (one episode's, by number) that follow its file's last
    whole record; how many were appended."""
    path, device, inode = next(iter(chunks.values())).file
    try:
        end = _journal_end(path, device, inode)
    except (OSError, RolloutFileError):  # gone, or no whole record: nothing to follow
        return 0
    if end is None or end[2] not in chunks:
        return 0
    start, size, k = end
    appended = 0
    offsets: dict[bytes, int] = {}  # by digest, as the writer's
    try:
        with open(path, "r+b") as file:
            file.seek(start + size)
            while k in chunks:
                pieces, _ = held_record(k, chunks[k], size, offsets)
                for piece in pieces:
                    file.write(piece)
                    size += len(piece)
                file.flush()  # in the OS's hands, or the OSError of a full disk
                appended, k = appended + 1, k + 1
            file.truncate()  # what a write cut short left beyond the last record
    except OSError:  # a full disk: the journal ends at its last whole record
        pass
    return appended


def _journal_end(path: str, device: int, inode: int) -> tuple[int, int, int] | None:
    """Where the episode's chunks.bin starts in its file, the bytes its whole records
    take, and how many chunks they hold; None when the file at ``path`` is not the
    episode's any more (replaced) or was finished."""
    stat = os.stat(path)
    if (stat.st_dev, stat.st_ino) != (device, inode):
        return None
    archive = Archive(Path(path))
    member = archive.members.get(BLOB)
    if member is None or META in archive.members:
        return None
    start = archive.data_start(member)
    try:
        found = read_journal(archive, start)
    except NoRecord:  # killed before it wrote its first chunk: they go from there
        return start, 0, 0
    return start, found.blob_size, chunk_count(found.num_positions)


def held_record(
    k: int, held: Held, size: int, offsets: MutableMapping[bytes, int]
) -> tuple[list[bytes], list[list[int]]]:
    """Chunk ``k``'s journal record and index rows (:func:`journal_record`), as the
    recording process would have made them after the ``size`` bytes of chunks.bin
    before it (``offsets``: where its payloads are, by digest; the new ones are added)."""
    assert held.parts is not None  # held with the parts made for it, here or there
    start = k * CHUNK_SIZE  # a chunk is held once its steps are all known: it is whole
    streams = {
        stream: frame_rows_payload(held.parts, CHUNK_SIZE) if data is None else data
        for stream, data in held.streams
    }
    payloads = chunk_payloads(start, start + CHUNK_SIZE, held.parts, streams, held.infos)
    return journal_record(k, size, payloads, unpacked(held.arrays), held.layout or {}, offsets)


class RecordMaker:
    """In the encoder process: the records of the chunks an episode holds, made in order
    from chunk ``k`` on, after the ``size`` bytes of chunks.bin its recorder wrote
    (``offsets``: where its payloads are), for the recorder to write
    (:mod:`agent_widget.recording._encoder._remote_records`); sent to its stream ``to``."""

    def __init__(self, to: int, k: int, size: int, offsets: dict[bytes, int]) -> None:
        self.to, self.next, self.size, self.offsets = to, k, size, offsets

    def made(
        self, holds: HoldArea, parts_of: Callable[[int], list[Part] | None]
    ) -> Iterator[tuple[str, int, int, Record]]:
        """The messages of the records that can be made now: the next chunk's, while
        it is held and its parts are at hand (``parts_of``: those made here)."""
        while (held := holds.get(self.next)) is not None:
            parts = held.parts if held.parts is not None else parts_of(self.next)
            if parts is None:
                return
            added: dict[bytes, int] = {}
            offsets = collections.ChainMap(added, self.offsets)
            pieces, rows = held_record(self.next, held._replace(parts=parts), self.size, offsets)
            data = b"".join(pieces)
            yield "record", self.to, self.next, Record(self.size, data, rows, added)
            self.offsets.update(added)
            self.size += len(data)
            self.next += 1
