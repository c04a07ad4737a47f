"""The kernel side of the wire protocol (docs/contributing/wire-protocol.md).

The front end asks for frames by chunk index; the kernel answers each request with
one message whose buffers are the chunks' part payloads, exactly as the frames hold
them (stored payloads are never decoded or re-encoded on the way), and one more:
zlib-compressed JSON saying what the payloads are and carrying the readout data of
every position in those chunks (infos, and action texts the timeline's series cannot
show), so a step's readout arrives with its frame and never costs a round trip of its own.
While the episode grows, the kernel also pushes the newest chunks unasked, in the
same message shape (see :func:`growth_push`).
"""

from __future__ import annotations

import json
import operator
import zlib
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple, Protocol

import numpy as np

from agent_widget.format import CHUNK_SIZE, Frames, chunk_count

Message = dict[str, Any]
# A growth push carries at most this many chunks and payload bytes (the newest chunk goes
# even when larger): a training loop appending thousands of steps between pushes must
# not flood the websocket (the chunks left out are fetched on demand later).
PUSH_CHUNKS = 4
PUSH_BYTES = 4 * 2**20
# Chunks one request may ask for (js/frames/source.ts asks for 32 at most).
MAX_REQUEST_CHUNKS = 256
# A paint's chunk of more payload bytes than this is preceded by its one frame
# (:func:`frame_preview`): smaller chunks travel as fast as the frame alone would.
PREVIEW_BYTES = 32 * 2**10
# zlib's quickest level: a 480x480 frame deflates in ~1.7 ms to ~22 KB (level 6: ~8 ms, 18 KB).
PREVIEW_LEVEL = 1


class WireEpisode(Protocol):
    """What the wire needs from an episode: its frames and each position's readout data."""

    @property
    def num_positions(self) -> int: ...

    @property
    def frames(self) -> Frames | None: ...

    @property
    def infos(self) -> Sequence[Mapping[str, Any]]: ...

    def action_text(self, t: int) -> str | None:
        """Position ``t``'s action as the readout shows it; None when the timeline's
        ``actions`` series holds the actions (the front end writes them from it)."""
        ...

    def readout_values(self, positions: Sequence[int]) -> Mapping[str, Any] | None:
        """The readout's rewards, returns, flags and scalar actions of ``positions`` when
        the state does not carry the series (a long episode's summary); else None."""
        ...

    def agent_readout(self, positions: Sequence[int]) -> list[dict[str, Any]] | None:
        """A multi-agent episode's readout per agent at ``positions``
        (``agent_widget.viewer._agents``); None for one agent."""
        ...


# The dtypes a series travels in, narrowest first: 100,000 Pong steps of rewards, flags and
# actions take 1 byte each per step instead of 8 (float64), so the first frame of a long
# episode does not wait for megabytes of timeline data.
SERIES_DTYPES = tuple(np.dtype(d) for d in ("|u1", "|i1", "<u2", "<i2", "<u4", "<i4", "<f4", "<f8"))
_HEADER = 4


def pack_series(values: Any) -> bytes:
    """Pack a 1-D series in the narrowest little-endian dtype that holds every value exactly.

    The bytes are a 4-byte header, the dtype's numpy name in ASCII padded with spaces
    (``b"|i1 "``, ``b"<f4 "``, ...: one of :data:`SERIES_DTYPES`), then the values.
    Booleans become ``|u1``; integer-valued floats an integer type when one holds
    them; other floats ``<f4`` when that is exact, else ``<f8``. Nothing is rounded.

    Examples:
        >>> pack_series([1.0, 0.0, -1.0])
        b'|i1 \\x01\\x00\\xff'
        >>> pack_series([0.5, 0.25])[:4], pack_series([0.1])[:4]
        (b'<f4 ', b'<f8 ')
    """
    array = np.asarray(values)
    if array.ndim != 1:
        raise ValueError(f"a series must be 1-D, got shape {array.shape}")
    if array.dtype.kind not in "biuf":
        raise ValueError(f"a series must hold numbers or booleans, got {array.dtype}")
    dtype = _narrowest(array)
    return dtype.str.ljust(_HEADER).encode() + array.astype(dtype).tobytes()


def shows_actions(actions: np.ndarray) -> bool:
    """Whether the timeline's ``actions`` series holds ``actions`` (scalar numbers or
    booleans, what :func:`pack_series` takes): the readout then writes them from it, and
    the kernel sends no action text."""
    return actions.ndim == 1 and actions.dtype.kind in "biuf"


def unpack_series(data: bytes) -> np.ndarray:
    """The values :func:`pack_series` packed.

    Examples:
        >>> unpack_series(pack_series([True, False])).tolist()
        [1, 0]
    """
    dtype = np.dtype(data[:_HEADER].decode("ascii").strip())
    if dtype not in SERIES_DTYPES:
        raise ValueError(f"unknown series dtype {dtype.str!r}")
    return np.frombuffer(data, dtype, offset=_HEADER)


def _narrowest(array: np.ndarray) -> np.dtype:
    if array.size == 0 or array.dtype.kind == "b":
        return SERIES_DTYPES[0]
    integral = np.isfinite(array) & (array == np.round(array))
    if array.dtype.kind in "iu" or integral.all():
        low, high = array.min(), array.max()
        for dtype in SERIES_DTYPES[:6]:
            info = np.iinfo(dtype)
            if info.min <= low and high <= info.max:
                return dtype
    with np.errstate(over="ignore"):  # a value beyond float32's range is simply not exact
        as_float32 = array.astype("<f4")
    exact = np.array_equal(as_float32, array, equal_nan=True) and array.dtype.kind == "f"
    return SERIES_DTYPES[6] if exact or array.dtype.itemsize <= 2 else SERIES_DTYPES[7]


def action_text(action: Any, names: Sequence[str] = ()) -> str:
    """How the readout shows an action: ``"2 (RIGHT)"`` with names, ``"[0.1, -0.3]"`` for
    vectors, each component named where a continuous action's dimensions have names.

    An empty action (rollouts recorded without actions hold shape ``(T, 0)``) reads ``""``.

    Examples:
        >>> action_text(np.int64(2), ["NOOP", "FIRE", "RIGHT"])
        '2 (RIGHT)'
        >>> action_text(np.array([0.5, -1.0]), ["thigh", "shin"])
        '[thigh 0.5, shin -1]'
    """
    array = np.asarray(action)
    if array.size == 0:
        return ""
    if array.ndim > 0:
        texts = [action_text(item) for item in array]
        if array.ndim == 1 and array.dtype.kind == "f" and len(names) == len(texts):
            texts = [f"{name} {text}" for name, text in zip(names, texts, strict=True)]
        return "[" + ", ".join(texts) + "]"
    if array.dtype.kind in "biu":
        index = int(array)
        return f"{index} ({names[index]})" if 0 <= index < len(names) else str(index)
    if array.dtype.kind == "f":
        return f"{float(array):.4g}"
    return str(array.item())


def chunk_reply(request: Mapping[str, Any], episode: WireEpisode) -> tuple[Message, list[bytes]]:
    """The reply to ``{"type": "chunks", "id": i, "chunks": [k, ...]}``: content and buffers."""
    chunks = _chunk_indices(request.get("chunks"), episode.num_positions)
    return _chunks_message(request["id"], chunks, episode)


def frame_preview(
    request: Mapping[str, Any], episode: WireEpisode
) -> tuple[Message, list[bytes]] | None:
    """The frame a paint waits for, sent ahead of its chunk, or None when the chunk is small.

    A request may name the position a paint waits for (``"frame": t``, in the first
    chunk it asks for). When that chunk's payloads pass ``PREVIEW_BYTES``, the
    kernel first sends ``{"type": "frame", "id": i, "part": header}`` whose buffers are
    frame ``t`` alone as a one-frame zlib-runs part (for 480x480 frames ~22 KB instead
    of a ~150 KB chunk), then the chunk's index without parts (:func:`reply_index`, a
    few hundred bytes), so that the readout shows with the frame. The paint no longer
    waits for the whole chunk's bytes to cross the link. The chunk's reply follows.
    A request the reply will refuse gets no preview (the reply says why).
    """
    try:
        return _preview(request, episode)
    except Exception:  # the chunk's reply reports what is wrong with it
        return None


def _preview(
    request: Mapping[str, Any], episode: WireEpisode
) -> tuple[Message, list[bytes]] | None:
    t, chunks = request.get("frame"), request.get("chunks")
    frames = episode.frames
    if type(t) is not int or type(request.get("id")) is not int or frames is None:
        return None
    if not isinstance(chunks, list) or not chunks:
        return None
    k = t // CHUNK_SIZE
    if chunks[0] != k or not 0 <= t < min(episode.num_positions, len(frames)):
        return None
    parts = frames.chunk(k)
    part = next((p for p in parts if p.start <= t < p.start + p.count), None)
    if part is None or part.height * part.width == 0:
        return None
    if sum(len(p.payload) for p in parts) <= PREVIEW_BYTES:
        return None
    payload = zlib.compress(np.ascontiguousarray(frames[t]).tobytes(), PREVIEW_LEVEL)
    header = {"chunk": k, "start": t, "count": 1, "height": part.height, "width": part.width}
    message = {"type": "frame", "id": request["id"], "part": {**header, "encoding": "zlib-runs"}}
    return message, [payload, reply_index([k], [], episode)]


def growth_push(episode: WireEpisode, since: int) -> tuple[Message, list[bytes]]:
    """The chunks the kernel sends unasked once the episode has grown past ``since`` positions.

    While a cell appends steps the kernel cannot answer requests (its shell channel is
    busy), so it pushes the chunks that changed since the last push instead: always the
    chunk holding the newest position (re-sent as it fills), plus the other changed ones,
    newest first, while the push stays within ``PUSH_CHUNKS`` chunks and ``PUSH_BYTES``
    of payload. The chunk of the position that was the newest changed too: that
    position now has a step, whose readout (its action, each agent's) its chunk
    carries. Chunks left out are asked for as usual once the cell ends. The message is
    a request's reply with ``"id": None`` and ``"push": True``.
    """
    last = (episode.num_positions - 1) // CHUNK_SIZE
    chunks = [last]
    size = _payload_bytes(episode, last)
    for k in range(last - 1, max(since - 1, 0) // CHUNK_SIZE - 1, -1):
        if len(chunks) == PUSH_CHUNKS:
            break
        size += _payload_bytes(episode, k)
        if size > PUSH_BYTES:
            break
        chunks.append(k)
    content, buffers = _chunks_message(None, sorted(chunks), episode)
    content["push"] = True
    return content, buffers


def _payload_bytes(episode: WireEpisode, k: int) -> int:
    return 0 if episode.frames is None else sum(len(p.payload) for p in episode.frames.chunk(k))


def _chunks_message(
    request_id: int | None, chunks: Sequence[int], episode: WireEpisode
) -> tuple[Message, list[bytes]]:
    """A ``chunks`` message: the chunks' part payloads as buffers, then, as the last
    buffer, what they are and the readout data of the chunks' positions
    (:func:`reply_index`)."""
    parts: list[Message] = []
    buffers: list[bytes] = []
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
    buffers.append(reply_index(chunks, parts, episode))
    return {"type": "chunks", "id": request_id}, buffers


def reply_index(chunks: Sequence[int], parts: Sequence[Message], episode: WireEpisode) -> bytes:
    """A reply's last buffer: zlib-compressed JSON ``{"chunks": [k, ...], "counts": [...],
    "parts": [...], "infos": ...}`` and, for actions the timeline's ``actions`` series
    cannot show (vectors), ``"actions": [text, ...]``; for a summarized episode, whose
    state holds no series, ``"values"``: the readout's rewards, returns, flags and
    scalar actions of the positions (``_summary.readout_values``); for a multi-agent
    episode, ``"agents"``: who acted and each agent's action, reward and return
    (``_agents.AgentReadout.rows``).

    ``counts`` are the chunks' numbers of positions; ``parts`` the headers of the
    payload buffers, in order; ``infos`` (:func:`info_columns`) and ``actions`` cover
    every position of the chunks, chunk k's positions in order, chunk after chunk.
    Compressed, part headers and infos cost ~2 B a Pong position over a reply of many
    chunks, where as JSON in the message they cost ~120 B, 2.3x the frame.

    Examples:
        >>> class Tiny:
        ...     num_positions, frames, infos = 2, None, [{"mode": "a"}, {"mode": "b"}]
        ...     def action_text(self, t):
        ...         return None
        ...     def readout_values(self, positions):
        ...         return None
        ...     def agent_readout(self, positions):
        ...         return None
        >>> json.loads(zlib.decompress(reply_index([0], [], Tiny())))["infos"]["columns"]
        {'mode': ['a', 'b']}
    """
    n = episode.num_positions
    ranges = [range(k * CHUNK_SIZE, min((k + 1) * CHUNK_SIZE, n)) for k in chunks]
    positions = [t for steps in ranges for t in steps]
    infos = episode.infos
    index: Message = {
        "chunks": list(chunks),
        "counts": [len(steps) for steps in ranges],
        "parts": list(parts),
        "infos": info_columns([infos[t] for t in positions]),
    }
    if positions and episode.action_text(positions[0]) is not None:
        index["actions"] = [episode.action_text(t) or "" for t in positions]
    values = episode.readout_values(positions)
    if values is not None:
        index["values"] = values
    agents = episode.agent_readout(positions)
    if agents is not None:
        index["agents"] = agents
    text = json.dumps(index, separators=(",", ":"), allow_nan=False)
    return zlib.compress(text.encode(), 6)


def info_columns(infos: Sequence[Mapping[str, Any]]) -> Message:
    """Infos column by column: ``{"keys": [[key, ...], ...], "key_set": [i, ...],
    "columns": {key: [value, ...]}}``. Position j's info has the keys ``keys[key_set[j]]``,
    in that order, each taking the next value of its column.

    Down a column zlib finds what repeats from step to step (Pong's lives), and a
    column of integers goes as ``{"delta": [first, difference, ...]}``, so a counter
    (Pong's frame numbers, +4 a step) becomes one number repeated: a Pong reply's
    infos compress to ~0.1 B a position, against ~2 as plain columns and ~5 row by row.

    Examples:
        >>> columns = info_columns([{"lives": 3, "seed": 7}, {"lives": 3}])
        >>> columns["keys"], columns["key_set"], columns["columns"]
        ([['lives', 'seed'], ['lives']], [0, 1], {'lives': {'delta': [3, 0]}, 'seed': [7]})
    """
    key_sets: dict[tuple[str, ...], int] = {}
    key_set = [key_sets.setdefault(tuple(info), len(key_sets)) for info in infos]
    names = dict.fromkeys(key for keys in key_sets for key in keys)
    packed = {key: _packed([info[key] for info in infos if key in info]) for key in names}
    return {"keys": [list(keys) for keys in key_sets], "key_set": key_set, "columns": packed}


def _packed(column: list[Any]) -> Any:
    """A column of integers as its first value and differences, else as it is. Within
    +-2**52, so that every difference is exact in a JavaScript number."""
    if len(column) < 2 or set(map(type, column)) != {int}:
        return column
    try:
        values = np.array(column, np.int64)
    except OverflowError:
        return column
    if np.abs(values).max() >= 2**52:
        return column
    return {"delta": [column[0], *np.diff(values).tolist()]}


def answer(content: Mapping[str, Any], episode: WireEpisode) -> tuple[Message, list[bytes]]:
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
    panel, as they are ready (see :mod:`agent_widget.panels._runner`), not by one reply.

    Examples:
        >>> panel_request({"type": "panel", "id": 3, "step": 12, "names": ["Q"]})
        PanelRequest(request_id=3, step=12, names=['Q'])
    """
    names = content.get("names")
    if names is not None and (
        not isinstance(names, list) or not all(isinstance(name, str) for name in names)
    ):
        raise ValueError(f"'names' must be a list of panel names, got {names!r:.200}")
    request_id, step = (request_integer(content, key, "panel") for key in ("id", "step"))
    return PanelRequest(request_id, step, names)


def request_integer(content: Mapping[str, Any], key: str, kind: str) -> int:
    """``content[key]`` if it is a JSON integer (not a bool, not a float), else a
    ValueError naming the ``kind`` of request and what it holds."""
    value = content.get(key)
    if type(value) is not int:
        raise ValueError(f"a {kind} request needs an integer {key!r}: {content!r:.200}")
    return value


def _chunk_indices(chunks: Any, num_positions: int) -> list[int]:
    """The distinct chunks a request asks for, in order; at most ``MAX_REQUEST_CHUNKS``
    (the front end asks for 32 at most), so no message can make the kernel build a
    reply of the whole episode, or of one chunk many times over."""
    num_chunks = chunk_count(num_positions)
    if not isinstance(chunks, list):
        raise ValueError(f"'chunks' must be a list of chunk indices, got {chunks!r:.200}")
    if len(chunks) > MAX_REQUEST_CHUNKS:
        raise ValueError(
            f"the request asks for {len(chunks)} chunks; at most {MAX_REQUEST_CHUNKS} a request"
        )
    indices: list[int] = []
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
        if index not in indices:
            indices.append(index)
    return indices
