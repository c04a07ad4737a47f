"""The front end's side of EpisodeViewer's wire, in Python: messages delivered through
the widget's comm message handler, as ipywidgets delivers them, and the replies (captured
from ``send``) and traits read back as js/ reads them."""

from __future__ import annotations

import itertools
import json
import zlib

import numpy as np

from agent_widget.format._codec import CHUNK_SIZE, Part, decode_part
from agent_widget.viewer import EpisodeViewer
from agent_widget.viewer._transport import unpack_series


def exchange(viewer: EpisodeViewer, content: object, monkeypatch) -> list[tuple[dict, list]]:
    """Deliver ``content`` as a custom comm message; return what the widget sent back."""
    sent: list[tuple[dict, list]] = []
    monkeypatch.setattr(
        viewer, "send", lambda content, buffers=None: sent.append((content, buffers or []))
    )
    viewer._handle_msg(
        {"content": {"data": {"method": "custom", "content": content}}, "buffers": []}
    )
    return sent


def request(viewer: EpisodeViewer, chunks: list, monkeypatch, request_id: int = 7):
    [(reply, buffers)] = exchange(
        viewer, {"type": "chunks", "id": request_id, "chunks": chunks}, monkeypatch
    )
    return reply, buffers


def index(buffers: list) -> dict:
    """A chunk message's last buffer: its part headers, chunks and readout data."""
    return json.loads(zlib.decompress(bytes(buffers[-1])))


def parts(buffers: list) -> list[dict]:
    return index(buffers)["parts"]


def decoded(reply: dict, buffers: list) -> dict[int, np.ndarray]:
    """Position -> frame, from a chunk message's part headers and buffers."""
    assert set(reply) <= {"type", "id", "push"}
    frames = {}
    for header, payload in zip(parts(buffers), buffers[:-1], strict=True):
        part = Part(
            header["start"],
            header["count"],
            header["height"],
            header["width"],
            header["encoding"],
            bytes(payload),
        )
        for i, frame in enumerate(decode_part(part)):
            frames[header["start"] + i] = frame
    return frames


def unpacked(column: list | dict) -> list:
    """An info column's values, as js/frames/info-columns.ts sums up ``{"delta": ...}``."""
    return list(itertools.accumulate(column["delta"])) if isinstance(column, dict) else column


def readouts(buffers: list) -> dict[str, dict]:
    """Position -> {"info"} (and "action" where the kernel sends its text), from a
    chunk message's index, infos rebuilt from their columns as js/frames/info-columns.ts does."""
    table = index(buffers)
    infos = table["infos"]
    columns = {key: iter(unpacked(values)) for key, values in infos["columns"].items()}
    rows = [{key: next(columns[key]) for key in infos["keys"][s]} for s in infos["key_set"]]
    positions = [
        t
        for k, count in zip(table["chunks"], table["counts"], strict=True)
        for t in range(k * CHUNK_SIZE, k * CHUNK_SIZE + count)
    ]
    assert len(positions) == len(rows)
    out = {str(t): {"info": info} for t, info in zip(positions, rows, strict=True)}
    for t, text in zip(positions, table.get("actions", []), strict=False):
        out[str(t)]["action"] = text
    return out


def pushes(viewer: EpisodeViewer, monkeypatch) -> list[tuple[dict, list]]:
    """The messages the widget sends unasked from now on (its growth pushes), as they go."""
    sent: list[tuple[dict, list]] = []
    monkeypatch.setattr(
        viewer, "send", lambda content, buffers=None: sent.append((content, buffers or []))
    )
    return sent


def pushed_chunks(buffers: list) -> list[int]:
    return index(buffers)["chunks"]


def series(viewer: EpisodeViewer, name: str) -> np.ndarray:
    return unpack_series(viewer.series[name])


def returns(viewer: EpisodeViewer) -> np.ndarray:
    """The return before each position, as the front end sums it from the rewards."""
    return np.concatenate([[0.0], np.cumsum(series(viewer, "rewards"))])[: viewer.length]
