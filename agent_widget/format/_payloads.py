"""A chunk's payloads in ``chunks.bin``: its frame parts, its large observations (one
zlib-runs payload a stream) and its infos (JSON, each position's bounded), with the
index row that places each."""

from __future__ import annotations

import json
import zlib
from typing import Any, NamedTuple

from agent_widget.format._chunk_index import ENCODINGS, FRAMES, INFOS, ZLIB_JSON, ZLIB_RUNS
from agent_widget.format._codec import CHUNK_SIZE, Part
from agent_widget.format._lazy_columns import MAX_INFO_BYTES


class Payload(NamedTuple):
    """One payload of chunks.bin and what its index row says of it but its place."""

    data: bytes
    stream: int
    start: int
    positions: int  # how many, from start
    encoding: int
    size: tuple[int, int] = (0, 0)

    def row(self, offset: int) -> list[int]:
        return [
            self.stream,
            self.start // CHUNK_SIZE,
            self.start,
            self.positions,
            *self.size,
            self.encoding,
            offset,
            len(self.data),
            zlib.crc32(self.data),
        ]


def chunk_payloads(
    start: int,
    stop: int,
    parts: list[Part] | None,
    streams: dict[int, bytes],
    infos: list[Any],
) -> list[Payload]:
    """Positions ``start..stop-1`` (one chunk) as payloads: frame parts, large
    observations (one zlib-runs payload a stream), infos (JSON)."""
    return [
        *frame_payloads(parts or []),
        *stream_payloads(start, stop, streams),
        infos_payload(start, stop, infos),
    ]


def frame_payloads(parts: list[Part]) -> list[Payload]:
    """A chunk's frame parts as payloads."""
    return [
        Payload(p.payload, FRAMES, p.start, p.count, ENCODINGS.index(p.encoding), p[2:4])
        for p in parts
    ]


def stream_payloads(start: int, stop: int, streams: dict[int, bytes]) -> list[Payload]:
    """A chunk's large observations as payloads, one zlib-runs payload a stream."""
    return [Payload(data, s, start, stop - start, ZLIB_RUNS) for s, data in streams.items()]


def infos_payload(start: int, stop: int, infos: list[Any]) -> Payload:
    """A chunk's infos as one payload of JSON, or a ValueError when they are too large:
    over :data:`MAX_INFO_BYTES` a position, each position measured when the chunk's JSON
    is over it (rare), so that one position cannot take its whole chunk's room."""
    what = f"the infos of positions {start}..{stop - 1}"
    text = json_text(infos, what).encode()
    if len(text) > MAX_INFO_BYTES:
        for t, info in enumerate(infos, start):
            _check_size(len(json_text(info, f"the info of position {t}").encode()), t, t + 1)
    _check_size(len(text), start, stop)
    return Payload(zlib.compress(text, 6), INFOS, start, stop - start, ZLIB_JSON)


def _check_size(size: int, start: int, stop: int) -> None:
    if size > (stop - start) * MAX_INFO_BYTES:
        which = (
            f"info of position {start}"
            if stop == start + 1
            else (f"infos of positions {start}..{stop - 1}")
        )
        raise ValueError(
            f"cannot save the {which}: {size:,} bytes of JSON, over {MAX_INFO_BYTES:,} a "
            "position; keep infos small (per-step arrays belong in extras)"
        )


def json_text(value: Any, what: str, indent: int | None = None) -> str:
    """``value`` as JSON text (compact unless indented); a ValueError naming ``what``."""
    try:
        separators = None if indent else (",", ":")
        return json.dumps(value, indent=indent, separators=separators, allow_nan=False)
    except (TypeError, ValueError) as error:
        raise ValueError(f"cannot save {what}: not JSON-able ({error})") from None
