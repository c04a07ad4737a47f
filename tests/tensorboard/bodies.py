"""Reading the plugin's packed bodies back, as js/tensorboard/packed.ts does, for the
tests to look at what went over the wire."""

from __future__ import annotations

import json
import struct
from typing import Any


def unpacked(body: bytes) -> Any:
    """The JSON of a packed body with each ``{"buffer": i, "size": n}`` made its bytes."""
    (length,) = struct.unpack_from("<I", body)
    head = json.loads(body[4 : 4 + length])
    sizes: dict[int, int] = {}
    _visit(head, lambda ref: sizes.__setitem__(ref["buffer"], ref["size"]))
    starts, offset = {}, 4 + length
    for i in range(len(sizes)):
        starts[i], offset = offset, offset + sizes[i]
    assert offset == len(body), f"the body holds {len(body)} bytes, its JSON names {offset}"
    return _visit(
        head, lambda ref: body[starts[ref["buffer"]] : starts[ref["buffer"]] + ref["size"]]
    )


def _visit(value: Any, buffer: Any) -> Any:
    if isinstance(value, list):
        return [_visit(item, buffer) for item in value]
    if isinstance(value, dict):
        if set(value) == {"buffer", "size"}:
            return buffer(value)
        return {key: _visit(item, buffer) for key, item in value.items()}
    return value
