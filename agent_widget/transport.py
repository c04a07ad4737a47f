"""The kernel side of the wire protocol (README, "Wire protocol").

The front end asks for frames by chunk index; the kernel answers each request with
one message whose buffers are the chunks' part payloads, exactly as the frames hold
them (stored payloads are never decoded or re-encoded on the way). The same reply
carries the readout data of every position in those chunks (action text, info), so
a step's readout arrives with its frame and never costs a round trip of its own.
While the episode grows, the kernel also pushes the newest chunks unasked, in the
same message shape (see :func:`growth_push`).
"""

from __future__ import annotations

import operator
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple, Protocol

import numpy as np

from agent_widget.frames import CHUNK_SIZE, Frames

Message = dict[str, Any]
# A growth push carries at most this many chunks and payload bytes (the newest chunk goes
# even when larger): a training loop appending thousands of steps between pushes must
# not flood the websocket (the chunks left out are fetched on demand later).
PUSH_CHUNKS = 4
PUSH_BYTES = 4 * 2**20


class Served(Protocol):
    """What the wire needs from an episode: its frames and each position's readout data."""

    @property
    def num_positions(self) -> int: ...

    @property
    def frames(self) -> Frames | None: ...

    def readout(self, t: int) -> Message:
        """``{"action": <text>, "info": <JSON-able dict>}`` for position ``t``."""
        ...


def pack_series(values: Any) -> bytes:
    """Pack a 1-D series as little-endian float64 bytes, which the browser reads as a DataView.

    Example:
        >>> pack_series([1, 0.5])
        b'\\x00\\x00\\x00\\x00\\x00\\x00\\xf0?\\x00\\x00\\x00\\x00\\x00\\x00\\xe0?'
    """
    array = np.asarray(values, dtype="<f8")
    if array.ndim != 1:
        raise ValueError(f"a series must be 1-D, got shape {array.shape}")
    return array.tobytes()


def action_text(action: Any, names: Sequence[str] = ()) -> str:
    """How the readout shows an action: ``"2 (RIGHT)"`` with names, ``"[0.1, -0.3]"`` for vectors.

    An empty action (rollouts recorded without actions hold shape ``(T, 0)``) reads ``""``.

    Example:
        >>> action_text(np.int64(2), ["NOOP", "FIRE", "RIGHT"])
        '2 (RIGHT)'
    """
    array = np.asarray(action)
    if array.size == 0:
        return ""
    if array.ndim > 0:
        return "[" + ", ".join(action_text(item) for item in array) + "]"
    if array.dtype.kind in "biu":
        index = int(array)
        return f"{index} ({names[index]})" if 0 <= index < len(names) else str(index)
    if array.dtype.kind == "f":
        return f"{float(array):.4g}"
    return str(array.item())


def chunk_reply(request: Mapping[str, Any], episode: Served) -> tuple[Message, list[bytes]]:
    """The reply to ``{"type": "chunks", "id": i, "chunks": [k, ...]}``: content and buffers."""
    chunks = _chunk_indices(request.get("chunks"), episode.num_positions)
    return _chunks_message(request["id"], chunks, episode)


def growth_push(episode: Served, since: int) -> tuple[Message, list[bytes]]:
    """The chunks the kernel sends unasked once the episode has grown past ``since`` positions.

    While a cell appends steps the kernel cannot answer requests (its shell channel is
    busy), so it pushes the chunks that changed since the last push instead: always the
    chunk holding the newest position (re-sent as it fills), plus the other changed ones,
    newest first, while the push stays within ``PUSH_CHUNKS`` chunks and ``PUSH_BYTES``
    of payload. Chunks left out are asked for as usual once the cell ends. The message
    is a request's reply with ``"id": None`` and ``"push": True``.
    """
    last = (episode.num_positions - 1) // CHUNK_SIZE
    chunks = [last]
    size = _payload_bytes(episode, last)
    for k in range(last - 1, since // CHUNK_SIZE - 1, -1):
        if len(chunks) == PUSH_CHUNKS:
            break
        size += _payload_bytes(episode, k)
        if size > PUSH_BYTES:
            break
        chunks.append(k)
    content, buffers = _chunks_message(None, sorted(chunks), episode)
    content["push"] = True
    return content, buffers


def _payload_bytes(episode: Served, k: int) -> int:
    return 0 if episode.frames is None else sum(len(p.payload) for p in episode.frames.chunk(k))


def _chunks_message(
    request_id: int | None, chunks: Sequence[int], episode: Served
) -> tuple[Message, list[bytes]]:
    """A ``chunks`` message: each chunk's part headers and readout data, payloads as buffers."""
    parts: list[Message] = []
    buffers: list[bytes] = []
    steps: dict[str, Message] = {}
    for k in chunks:
        if episode.frames is not None:
            for part in episode.frames.chunk(k):
                parts.append(
                    {
                        "chunk": k,
                        "start": part.start,
                        "count": part.count,
                        "height": part.height,
                        "width": part.width,
                        "encoding": part.encoding,
                    }
                )
                buffers.append(part.payload)
        stop = min((k + 1) * CHUNK_SIZE, episode.num_positions)
        for t in range(k * CHUNK_SIZE, stop):
            steps[str(t)] = episode.readout(t)
    content = {"type": "chunks", "id": request_id, "parts": parts, "steps": steps}
    return content, buffers


def answer(content: Mapping[str, Any], episode: Served) -> tuple[Message, list[bytes]]:
    """Answer one front-end message; any failure becomes an error reply, never an exception.

    An exception escaping a comm handler would only reach the kernel's log, while the
    front end waited for an answer that never comes; an error reply lets it show why.
    """
    request_id = content.get("id") if isinstance(content, Mapping) else None
    try:
        if not isinstance(request_id, int) or isinstance(request_id, bool):
            raise ValueError(f"the message has no integer 'id': {content!r:.200}")
        if content.get("type") != "chunks":
            raise ValueError(f"unknown message type {content.get('type')!r}")
        return chunk_reply(content, episode)
    except Exception as error:  # reported to the front end instead
        message = f"{type(error).__name__}: {error}"
        return {"type": "error", "id": request_id, "message": message}, []


class PanelRequest(NamedTuple):
    request_id: int
    step: int
    names: list[str] | None  # None: every panel


def panel_request(content: Mapping[str, Any]) -> PanelRequest:
    """Read ``{"type": "panel", "id": i, "step": t, "names": [name, ...]}``, else ValueError.

    Without ``names`` every panel is asked for. The cards are answered one message per
    panel, as they are ready (see :mod:`agent_widget.panel_runner`), not by one reply.

    Example:
        >>> panel_request({"type": "panel", "id": 3, "step": 12, "names": ["Q"]})
        PanelRequest(request_id=3, step=12, names=['Q'])
    """
    names = content.get("names")
    if names is not None and (
        not isinstance(names, list) or not all(isinstance(name, str) for name in names)
    ):
        raise ValueError(f"'names' must be a list of panel names, got {names!r:.200}")
    return PanelRequest(_integer(content, "id"), _integer(content, "step"), names)


def _integer(content: Mapping[str, Any], key: str) -> int:
    value = content.get(key)
    if type(value) is not int:  # JSON numbers only: not a bool, not a float
        raise ValueError(f"a panel request needs an integer {key!r}: {content!r:.200}")
    return value


def _chunk_indices(chunks: Any, num_positions: int) -> list[int]:
    num_chunks = -(-num_positions // CHUNK_SIZE)
    if not isinstance(chunks, list):
        raise ValueError(f"'chunks' must be a list of chunk indices, got {chunks!r:.200}")
    indices = []
    for k in chunks:
        try:
            index = operator.index(k)
        except TypeError:
            raise ValueError(f"chunk index {k!r:.50} is not an integer") from None
        if isinstance(k, bool) or not 0 <= index < num_chunks:
            raise ValueError(
                f"chunk {k!r} is out of range: the episode has {num_chunks} chunks "
                f"({num_positions} positions)"
            )
        indices.append(index)
    return indices
