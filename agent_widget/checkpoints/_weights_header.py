"""A safetensors file's bytes, read only after its header adds up against its real size.

safetensors parses a file it is handed whole, so a file is read into memory before it
is judged: a sparse file of 6 GB (a few blocks on disk) costs 6 GB to be told it is no
weights file, and a header declaring 80 MB of JSON gigabytes to parse. Here the first
8 bytes (the header's length) and the header are checked first: the header no longer
than :data:`MAX_HEADER_BYTES` nor than the file, each tensor's bytes where its dtype
and shape say, inside the file, one after another up to its end. Only then is the rest
read, so what a file can cost is what it truly holds.
"""

from __future__ import annotations

import json
import math
from typing import Any, BinaryIO, TypeGuard

MAX_HEADER_BYTES = 16 * 2**20
"""A header's longest: about 100,000 tensors' names, shapes and offsets."""
# Bytes per element of safetensors' dtypes; a dtype not named here is left to safetensors.
_ITEM_BYTES = {
    "BOOL": 1, "U8": 1, "I8": 1, "F8_E5M2": 1, "F8_E4M3": 1,
    "I16": 2, "U16": 2, "F16": 2, "BF16": 2,
    "I32": 4, "U32": 4, "F32": 4,
    "I64": 8, "U64": 8, "F64": 8,
}  # fmt: skip


class HeaderError(ValueError):
    """What is wrong with a file's header, for the caller to name the file."""


def read_checked(file: BinaryIO, size: int) -> bytes:
    """The whole of ``file`` (``size`` bytes, as ``fstat`` says), read once its header
    is checked; a :class:`HeaderError` saying what does not add up otherwise."""
    prefix = file.read(8)
    if len(prefix) < 8:
        raise HeaderError(f"{size} bytes, shorter than the 8 that give a header's length")
    length = int.from_bytes(prefix, "little")
    if length > min(MAX_HEADER_BYTES, size - 8):
        raise HeaderError(
            f"its header declares {length:,} bytes, more than the "
            f"{min(MAX_HEADER_BYTES, size - 8):,} it can have"
        )
    header = file.read(length)
    _check_tensors(_parsed(header), size - 8 - length)
    rest = file.read(size - 8 - length + 1)
    if len(header) < length or len(rest) != size - 8 - length:
        raise HeaderError("it changed size while being read")
    return prefix + header + rest


def _parsed(header: bytes) -> dict[str, Any]:
    try:
        parsed = json.loads(header)
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise HeaderError(f"its header is no JSON ({error})") from None
    if not isinstance(parsed, dict):
        raise HeaderError("its header is no JSON object")
    return parsed


def _check_tensors(header: dict[str, Any], data_bytes: int) -> None:
    """Each tensor's offsets in the data, its byte count as its dtype and shape say, and
    the tensors packed end to end over exactly ``data_bytes``."""
    spans = []
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        entry = entry if isinstance(entry, dict) else {}
        offsets, shape = entry.get("data_offsets"), entry.get("shape")
        if not _ints(offsets) or not _ints(shape) or len(offsets) != 2:
            raise HeaderError(f"tensor {name!r} has no shape and data offsets")
        begin, end = offsets
        if not 0 <= begin <= end <= data_bytes:
            raise HeaderError(
                f"tensor {name!r} lies at bytes {begin:,}..{end:,} of {data_bytes:,} of data"
            )
        item = _ITEM_BYTES.get(str(entry.get("dtype")))
        if item is not None and end - begin != item * math.prod(shape):
            raise HeaderError(
                f"tensor {name!r} holds {end - begin:,} bytes, not the "
                f"{item * math.prod(shape):,} of {entry['dtype']} {tuple(shape)}"
            )
        spans.append((begin, end))
    position = 0
    for begin, end in sorted(spans):
        if begin != position:
            raise HeaderError(f"its tensors leave a gap or overlap at byte {position:,} of data")
        position = end
    if position != data_bytes:
        raise HeaderError(f"its tensors hold {position:,} bytes; the file has {data_bytes:,}")


def _ints(values: Any) -> TypeGuard[list[int]]:
    return isinstance(values, list) and all(
        isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in values
    )
