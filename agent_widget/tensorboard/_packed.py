"""One HTTP body holding JSON and binary buffers: how the plugin's routes answer.

A kernel's message carries its buffers beside its JSON; an HTTP response has one body.
The body is a 4-byte little-endian length, that many bytes of UTF-8 JSON, then the
buffers one after another. In the JSON each buffer stands where its bytes were, as
``{"buffer": i, "size": n}``, so frame chunks travel as stored, never as base64 or
arrays of numbers (js/tensorboard/packed.ts reads it back).
"""

from __future__ import annotations

import json
import struct
from collections.abc import Mapping
from typing import Any

_LENGTH = struct.Struct("<I")


def packed(value: Any) -> bytes:
    """``value`` (JSON with ``bytes`` anywhere in it) as one body.

    Examples:
        >>> body = packed({"reply": [b"ab", b"c"]})
        >>> body[4:-3].decode(), body[-3:]
        ('{"reply":[{"buffer":0,"size":2},{"buffer":1,"size":1}]}', b'abc')
    """
    buffers: list[bytes] = []
    text = json.dumps(_replaced(value, buffers), separators=(",", ":"), allow_nan=False)
    head = text.encode()
    return b"".join([_LENGTH.pack(len(head)), head, *buffers])


def _replaced(value: Any, buffers: list[bytes]) -> Any:
    if isinstance(value, (bytes, bytearray, memoryview)):
        buffers.append(bytes(value))
        return {"buffer": len(buffers) - 1, "size": len(buffers[-1])}
    if isinstance(value, Mapping):
        return {str(key): _replaced(item, buffers) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_replaced(item, buffers) for item in value]
    return value
