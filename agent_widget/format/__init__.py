"""The ``.rollout`` file format and the bytes it is made of: the lowest layer.

An episode's frames and large observations are held and sent as the file stores them:
chunks of 16 positions encoded by the chunk codec (zlib over runs of changed bytes),
which the browser decodes too. This layer holds that codec, the frame containers that
hand out encoded chunks (in memory, made on demand, or read lazily from a file), the
file's writer and reader, and what they stand on: the zip archive read defensively,
the chunk index, the journal that lets a cut file load, the spool that writes an
episode as it is recorded, env states held as deltas, atomic writes and fsspec
filesystems. It starts no process and shares no memory: encoding frames in another
process while recording is the recording layer's (:mod:`agent_widget.recording`).

It speaks in columns (:class:`Columns`), not in ``Rollout``\\ s: the episode layer above
builds its ``Rollout`` from them. None of it is the user API: its modules are private,
and the names below are what the layers above use of it.
"""

from agent_widget.format._archive import Archive, RolloutFileError
from agent_widget.format._array_frames import ArrayFrames, ImageFrames, OpenChunk, encode_chunk
from agent_widget.format._atomic import (
    atomic_path,
    atomic_write,
    checked_name,
    fsync_directory,
    named,
    remove_stale,
    temporary_name,
)
from agent_widget.format._chunk_index import BLOB, OBSERVATIONS
from agent_widget.format._codec import (
    CHUNK_SIZE,
    ENCODINGS,
    Part,
    chunk_count,
    encode_rows,
)
from agent_widget.format._encoded_array import (
    LARGE_ROW_BYTES,
    ChunkedRows,
    EncodedArray,
    FrameRows,
    frame_rows_payload,
)
from agent_widget.format._filesystems import is_url, url_to_fs
from agent_widget.format._frames import Frames, held
from agent_widget.format._journal import NoRecord, Record, read_journal
from agent_widget.format._layout import ACTION_KINDS, META, AgentColumns, Columns, own_column
from agent_widget.format._payloads import (
    Payload,
    chunk_payloads,
    frame_payloads,
    infos_payload,
    stream_payloads,
)
from agent_widget.format._reader import read_columns
from agent_widget.format._spool import Spool, part_of
from agent_widget.format._state_deltas import Delta, DeltaState, Split, pack_state
from agent_widget.format._writer import Members, journal_layout, journal_record, write_columns

__all__ = [
    "ACTION_KINDS",
    "BLOB",
    "CHUNK_SIZE",
    "ENCODINGS",
    "LARGE_ROW_BYTES",
    "META",
    "OBSERVATIONS",
    "AgentColumns",
    "Archive",
    "ArrayFrames",
    "ChunkedRows",
    "Columns",
    "Delta",
    "DeltaState",
    "EncodedArray",
    "FrameRows",
    "Frames",
    "ImageFrames",
    "Members",
    "NoRecord",
    "OpenChunk",
    "Part",
    "Payload",
    "Record",
    "RolloutFileError",
    "Split",
    "Spool",
    "atomic_path",
    "atomic_write",
    "checked_name",
    "chunk_count",
    "chunk_payloads",
    "encode_chunk",
    "encode_rows",
    "frame_payloads",
    "frame_rows_payload",
    "fsync_directory",
    "held",
    "infos_payload",
    "is_url",
    "journal_layout",
    "journal_record",
    "named",
    "own_column",
    "pack_state",
    "part_of",
    "read_columns",
    "read_journal",
    "remove_stale",
    "stream_payloads",
    "temporary_name",
    "url_to_fs",
    "write_columns",
]
