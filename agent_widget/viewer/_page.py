"""One self-contained HTML page of an episode: the viewer with its frames and cards, no kernel.

The page holds the front end's bundle and stylesheet, the viewer's state, and the
messages the kernel would have sent, made beforehand: the replies to frame chunk
requests (the part payloads as stored, not re-encoded, and their indexes) and every
panel's card at every step. A small model in the page (js/page/) answers the
viewer's requests from them, so the very same front end runs from ``file://`` with
no kernel and no network; the page's Content-Security-Policy refuses every request,
so a page that tried one would show it in the console rather than leak it.

The episode is cut into *blocks* of consecutive chunks (at most ``BLOCK_BYTES`` of
payload, one reply and one index each) in script elements of their own, after the
script that shows the viewer, the block of the step shown first. The browser runs
that script as soon as it has parsed it, and the viewer paints from the first block
while the rest of the file is still being read: the first frame does not wait for
the whole page. Buffers are base64 (a third larger than the bytes, decoded natively,
a block at a time as the viewer asks for it).
"""

from __future__ import annotations

import base64
import html
import json
import os
import pathlib
import zlib
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

from tqdm.auto import tqdm

from agent_widget.format import CHUNK_SIZE, atomic_write, chunk_count
from agent_widget.panels import Card, card_message
from agent_widget.viewer._episode import ServedEpisode
from agent_widget.viewer._transport import chunk_reply

DEFAULT_MAX_BYTES = 100 * 2**20
# A block holds consecutive chunks up to this much payload (one chunk at least), and at
# most BLOCK_CHUNKS of them: big enough that its index compresses well (every Pong
# chunk of 1,000 steps in one), small enough to parse in a few ms as the viewer asks.
BLOCK_BYTES = 256 * 2**10
BLOCK_CHUNKS = 64
# What a viewer's state carries of its frames (first_chunks), by default: ~250 Pong steps,
# the same size whatever the length, so that it never makes a long episode's first frame
# wait, and small, since a saved notebook holds it for every viewer in it (a notebook of
# a Pong viewer, a comparison and a training viewer: benchmarks/RESULTS.md, "Notebook
# size with viewers"). More is a viewer's embed_bytes away.
DEFAULT_EMBED_BYTES = 16 * 2**10
# The first chunk goes past a smaller embed_bytes up to this, so that a saved notebook
# shows its first frames and a live view paints without a round trip (a 480x480
# render's chunk is ~150 KB).
FIRST_CHUNK_BYTES = 256 * 2**10
FORMAT = "agent-widget.page"
VERSION = 1

_STATIC = pathlib.Path(__file__).parent.parent / "static"
# What the viewer's state holds for the page: the traits its front end reads.
STATE_TRAITS = (
    "step",
    "length",
    "chunk_size",
    "has_frames",
    "action_names",
    "fps",
    "loop",
    "height",
    "scale",
    "title",
    "readout",
    "timeline_names",
    "timeline_rates",
    "timeline_smoothing",
    "timeline_mark",
)
# Only inline scripts and styles, and images made in the page; nothing is fetched.
_POLICY = (
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
    "img-src data: blob:; base-uri 'none'; form-action 'none'"
)
_PAGE_CSS = """
body { margin: 16px; background: #fff; color: #222; font-family: system-ui, sans-serif; }
.aw-page-note { color: #777; font-size: 12px; margin-top: 12px; }
"""

CardOf = Callable[[str, int], tuple[int, Card]]


class PageTooLarge(ValueError):
    """The page would pass its size limit; the message says how to make it smaller."""


class Export:
    """A page being made: the bytes it holds so far, kept within ``max_bytes`` so an
    oversized page stops early, and a progress bar over the items still to make: made
    when the first items are expected, so it never shows an empty count first."""

    def __init__(self, max_bytes: int = DEFAULT_MAX_BYTES, progress: bool = True) -> None:
        self.max_bytes, self.used = max_bytes, 0
        self._progress = progress
        self._bar: tqdm | None = None

    def __enter__(self) -> Export:
        return self

    def __exit__(self, *_: object) -> None:
        if self._bar is not None:
            self._bar.close()

    def expect(self, items: int) -> None:
        if self._bar is None:
            self._bar = tqdm(total=items, desc="page", unit="item", disable=not self._progress)
        else:
            self._bar.total += items
            self._bar.refresh()

    def encoded(self, buffers: Sequence[bytes], what: str) -> list[str]:
        """``buffers`` as base64, counted against the limit; one item done."""
        encoded = [_b64(buffer) for buffer in buffers]
        self.used += sum(len(text) for text in encoded)
        if self.used > self.max_bytes:
            raise PageTooLarge(
                f"the page passed max_bytes={self.max_bytes:,} ({self.used / 2**20:.1f} MiB "
                f"at {what}): export a range of steps (start=, stop=), leave panels out "
                "(skip_panels=[...]), or raise max_bytes"
            )
        if self._bar is not None:
            self._bar.update()
        return encoded


def episode_data(
    episode: ServedEpisode,
    state: Mapping[str, Any],
    panels: Sequence[Mapping[str, Any]],
    card_of: CardOf,
    export: Export,
    start: int = 0,
) -> dict[str, Any]:
    """What a page needs to show ``episode`` (already cut to the range exported, which
    began at ``start``) as its viewer does: the state, and blocks of chunk replies with
    the cards of ``panels`` at their positions (``card_of(name, t)``: the version and
    card at the original position ``t``). Each block is ``{"chunks": [first, end],
    "reply": [...], "cards": {name: [[meta, buffers], ...]}}``."""
    n = episode.num_positions
    ranges = _blocks(episode)
    export.expect(len(ranges) + len(panels) * n)
    blocks = []
    for first, end in ranges:
        _, buffers = chunk_reply({"id": None, "chunks": list(range(first, end))}, episode)
        block: dict[str, Any] = {
            "chunks": [first, end],
            "reply": export.encoded(buffers, f"frame chunks {first} to {end - 1}"),
            "cards": {},
        }
        for panel in panels:
            name = panel["name"]
            block["cards"][name] = []
            for t in range(first * CHUNK_SIZE, min(end * CHUNK_SIZE, n)):
                version, card = card_of(name, start + t)
                content, buffers = card_message(name, version, t, card)
                meta = {k: v for k, v in content.items() if k not in ("type", "name", "step")}
                block["cards"][name].append([meta, export.encoded(buffers, f"panel {name!r}")])
        blocks.append(block)
    full_state = {**state, "series": episode.series(), "panels": list(panels)}
    return {"widget": "episode", "state": page_state(full_state), "blocks": blocks}


def _blocks(episode: ServedEpisode) -> list[tuple[int, int]]:
    """``[first, end)`` chunk ranges: consecutive chunks within ``BLOCK_BYTES`` of payload."""
    frames, ranges = episode.frames, []
    first, size = 0, 0
    for k in range(chunk_count(episode.num_positions)):
        payload = 0 if frames is None else sum(len(part.payload) for part in frames.chunk(k))
        if k > first and (size + payload > BLOCK_BYTES or k - first == BLOCK_CHUNKS):
            ranges.append((first, k))
            first, size = k, 0
        size += payload
    ranges.append((first, chunk_count(episode.num_positions)))
    return ranges


def first_chunks(episode: ServedEpisode, max_bytes: int) -> list[list[bytes]]:
    """The replies of chunk 0 (within ``FIRST_CHUNK_BYTES`` if larger than ``max_bytes``,
    none if that is 0), then of chunks 1, 2, ... while their bytes stay within ``max_bytes``.

    A viewer carries them in its state, so a notebook saved with its widget state
    shows those frames with no kernel, and a live view paints its first frame
    without waiting for a reply: chunk 0 goes even when larger than the budget (a
    480x480 one is ~150 KB), since a reply would bring the same bytes a round trip later.
    """
    replies: list[list[bytes]] = []
    used = 0
    for k in range(chunk_count(episode.num_positions) if max_bytes > 0 else 0):
        try:
            _, buffers = chunk_reply({"id": None, "chunks": [k]}, episode)
        except Exception:  # a damaged chunk: the front end's request for it reports it
            break
        used += sum(len(buffer) for buffer in buffers)
        if used > (max(max_bytes, FIRST_CHUNK_BYTES) if k == 0 else max_bytes):
            break
        replies.append(buffers)
    return replies


def page_state(value: Any) -> Any:
    """Trait values as JSON: bytes become ``{"zlib": base64}`` (the page inflates them)."""
    if isinstance(value, bytes):
        return {"zlib": _b64(zlib.compress(value))}
    if isinstance(value, Mapping):
        return {key: page_state(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [page_state(item) for item in value]
    return value


def render(data: Mapping[str, Any], title: str, styles: Sequence[str] = ("widget",)) -> str:
    """The page around ``data``, with the stylesheets of the widgets in it: its head
    (without the blocks), the script, then each viewer's blocks, the block of its first
    step first. Every user string is escaped, as HTML or inside JSON."""
    head = dict(data)
    if "children" in head:  # a comparison's or a checkpoint viewer's episodes
        head["children"] = [dict(child) for child in head["children"]]
    viewers = head.get("children", [head])
    elements = []
    for i, viewer in enumerate(viewers):
        blocks = viewer.pop("blocks")
        viewer["blocks"] = [block["chunks"] for block in blocks]
        viewer["id"] = str(i)
        step = viewer["state"]["step"] // CHUNK_SIZE
        order = sorted(
            range(len(blocks)),
            key=lambda b: not blocks[b]["chunks"][0] <= step < blocks[b]["chunks"][1],
        )
        for b in order:
            content = {key: value for key, value in blocks[b].items() if key != "chunks"}
            elements.append(_json_element(f"agent-widget-block-{i}-{b}", content))
    document = {"format": FORMAT, "version": VERSION, **head}
    script = (_STATIC / "page.js").read_text().replace("</script", "<\\/script")
    style = "".join((_STATIC / f"{name}.css").read_text() for name in styles) + _PAGE_CSS
    return (
        "<!doctype html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{_POLICY}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{html.escape(_encodable(title))}</title><style>{style}</style></head>\n"
        '<body><div id="agent-widget"></div>'
        '<p class="aw-page-note">Made with agent-widget: arrow keys step, space plays.</p>\n'
        f"{_json_element('agent-widget-data', document)}\n"
        f"<script>{script}</script>\n" + "\n".join(elements) + "\n"
        '<script type="application/json" id="agent-widget-end">0</script>\n'
        "</body></html>\n"
    )


def _encodable(text: str) -> str:
    """``text`` that UTF-8 can encode: surrogate pairs joined into their character, and
    each lone surrogate (a title decoded with ``errors="surrogateescape"``, say) made
    U+FFFD, which is what a browser shows for it anyway. Replaced rather than refused: a
    title is a label, and the page is worth more than one odd character of it; nor
    written with "surrogatepass", which would make the file invalid UTF-8."""
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def _json_element(element_id: str, content: Any) -> str:
    # "<" escaped in the JSON so that no string in it can close the script element.
    text = json.dumps(content, separators=(",", ":"), allow_nan=False).replace("<", "\\u003c")
    return f'<script type="application/json" id="{element_id}">{text}</script>'


def written(page: str, path: str | os.PathLike[str] | None) -> str | pathlib.Path:
    """``page`` itself without a path, else the path it was written to, atomically."""
    if path is None:
        return page
    path = pathlib.Path(path)
    with atomic_write(path) as file:
        file.write(page.encode("utf-8"))
    return path


def exported_panels(
    panels: Sequence[Mapping[str, Any]], skip: Collection[str]
) -> list[Mapping[str, Any]]:
    """The panels a page shows: all but those named in ``skip`` (each must exist)."""
    names = [panel["name"] for panel in panels]
    unknown = [name for name in skip if name not in names]
    if unknown:
        known = ", ".join(map(repr, names)) or "none"
        raise KeyError(f"skip_panels: the viewer has no panel {unknown[0]!r} (it has: {known})")
    return [panel for panel in panels if panel["name"] not in skip]


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")
