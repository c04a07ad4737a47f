"""Appending the chunks the encoder process held (:mod:`agent_widget.format._held_chunks`)
to the file of a recording process that died: imported by the encoder process only
then, so it starts with the encoder alone.

The file's last whole journal record is found by the reader's own code, so the chunks
appended are exactly those that follow it, in order, up to the first one not held:
the journal never has a gap. They go over whatever a write cut short left after that
record. A full disk stops it there: the journal ends at its last whole record, as it
does for any write cut short. Equal payloads are stored once only among the chunks
appended (where the recording process stored earlier ones is not known here).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from agent_widget.format._archive import Archive, RolloutFileError
from agent_widget.format._chunk_index import BLOB
from agent_widget.format._codec import CHUNK_SIZE, chunk_count
from agent_widget.format._encoded_array import frame_rows_payload
from agent_widget.format._held_chunks import Held, unpacked
from agent_widget.format._journal import read_journal
from agent_widget.format._layout import META
from agent_widget.format._writer import (
    Payload,
    frame_payloads,
    journal_record,
    stream_payloads,
)


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
                pieces, _ = journal_record(k, size, *_record(k, chunks[k]), offsets)
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
    found = read_journal(archive, start)
    return start, found.blob_size, chunk_count(found.num_positions)


def _record(k: int, held: Held) -> tuple[list[Payload], dict[str, np.ndarray], dict[str, Any]]:
    """Chunk ``k``'s payloads, arrays and layout, as the recording process would have
    written them."""
    assert held.parts is not None  # HeldChunks.hold keeps only chunks with their parts
    infos = Payload(*held.infos)
    start = k * CHUNK_SIZE
    streams = {
        stream: frame_rows_payload(held.parts, infos.positions) if data is None else data
        for stream, data in held.streams
    }
    payloads = [
        *frame_payloads(held.parts),
        *stream_payloads(start, start + infos.positions, streams),
        infos,
    ]
    return payloads, unpacked(held.arrays), held.layout or {}
