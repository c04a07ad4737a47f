"""The viewer's end of the wire: its views' requests answered, its growth pushed.

A view asks for frame chunks (the frame it waits for previewed first), for a range
of a long episode's timeline and for panel cards; the answers are made from the
served episode by :mod:`agent_widget.viewer._transport` and
:mod:`agent_widget.viewer._summary`, the cards by the panel worker. Steps appended
while a cell runs are pushed unasked, at most every ``_SYNC_INTERVAL`` seconds
(:meth:`ServesItsViews._sync` says why they go first).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager
from typing import Any

from agent_widget.format import CHUNK_SIZE
from agent_widget.panels import PanelRunner, card_message
from agent_widget.viewer._episode import ServedEpisode
from agent_widget.viewer._summary import range_reply, summary
from agent_widget.viewer._transport import (
    answer,
    chunk_reply,
    frame_preview,
    growth_push,
    panel_request,
)
from agent_widget.viewer._viewer_traits import ViewerTraits

# Live growth updates the front end at most this often (seconds): a training loop may
# append thousands of steps a second, and each update re-sends every series and pushes
# the newest frame chunks.
_SYNC_INTERVAL = 0.1


class ServesItsViews(ViewerTraits):
    """Mixin for :class:`~agent_widget.viewer.EpisodeViewer`: answers its views' messages
    (:meth:`_on_message`) and pushes the steps appended live (:meth:`_schedule_sync`)."""

    _lock: threading.RLock
    _episode: ServedEpisode
    _panels: PanelRunner
    _timer: threading.Timer | None  # a pending push
    _synced_at: float  # when the last push went (time.monotonic)
    _pushed: int  # positions the front end has been sent (or can ask for)
    send: Callable[..., None]
    hold_sync: Callable[[], AbstractContextManager[Any]]

    def _on_message(self, _widget: object, content: Any, _buffers: object) -> None:
        if isinstance(content, Mapping) and content.get("type") == "panel":
            self._on_panel_request(content)
            return
        for message, buffers in self.answers(content):
            self.send(message, buffers)

    def answers(self, content: Any) -> Iterator[tuple[dict[str, Any], list[bytes]]]:
        """The replies to a view's request for frame chunks or a stretch of the timeline,
        each made as the one before has gone (the frame a paint waits for first): what
        the comm sends, and what a host serving the viewer without a kernel (the
        TensorBoard plugin) answers over HTTP. A bad request gets an error reply."""
        if isinstance(content, Mapping) and content.get("type") == "timeline":
            with self._lock:
                reply = range_reply(content, self._episode)
            yield reply
            return
        with self._lock:
            preview = (
                frame_preview(content, self._episode) if isinstance(content, Mapping) else None
            )
        if preview is not None:
            yield preview
        with self._lock:
            reply = answer(content, self._episode)
        yield reply

    def card_answers(self, content: Mapping[str, Any]) -> list[tuple[dict[str, Any], list[bytes]]]:
        """The cards a view's ``{"type": "panel", "id", "step", "names"}`` asks for, one
        message each, computed now (within each panel's time limit, a stuck one's error
        card at once) unless cached: what the worker would send, for a host serving the
        viewer without a kernel (the TensorBoard plugin). ValueError for a bad request."""
        request = panel_request(content)
        known = [panel["name"] for panel in self._panels.describe()]
        unknown = [name for name in request.names or () if name not in known]
        if unknown:
            raise ValueError(f"no panel {unknown[0]!r} (the panels: {', '.join(known) or 'none'})")
        if not 0 <= request.step < self._episode.num_positions:
            raise ValueError(
                f"no step {request.step}: the episode has {self._episode.num_positions}"
            )
        messages = []
        for name in known if request.names is None else request.names:
            version, card = self._panels.card_now(name, request.step)
            messages.append(card_message(name, version, request.step, card, request.request_id))
        return messages

    def _on_panel_request(self, content: Mapping[str, Any]) -> None:
        """Queue a panel request; its cards are sent as they are ready, from the worker.

        A malformed request gets a ``panel-error`` reply: a plain ``error`` would fail
        the front end's frame request that happens to have the same id.
        """
        try:
            request = panel_request(content)
            self._panels.request(request.step, request.names, request.request_id)
        except ValueError as error:
            message = f"ValueError: {error}"
            self.send({"type": "panel-error", "id": content.get("id"), "message": message})

    def _set_series(self) -> None:
        """The timeline's data: every step's series, or a long episode's summary."""
        summarized = self._episode.summarized
        self.set_trait("series", {} if summarized else self._episode.series())
        self.set_trait("summary", summary(self._episode) if summarized else {})

    def _schedule_sync(self) -> None:
        """Sync now if the last sync is old enough, else once the interval has passed."""
        wait = self._synced_at + _SYNC_INTERVAL - time.monotonic()
        if wait <= 0:
            self._sync()
        elif self._timer is None:
            self._timer = threading.Timer(wait, self._sync)
            self._timer.daemon = True
            self._timer.start()

    def _embed_grown(self, old: int) -> None:
        """Embed again the chunk the positions after the first ``old`` grew, if the state
        carries it: a view opened later takes an embedded chunk as the whole of it, so one
        cut short would show "no frame" for the positions added since (a TrainingViewer
        shown after training). Other chunks are as they were; new ones are not embedded."""
        k = old // CHUNK_SIZE
        if k < len(self.embedded):
            embedded = list(self.embedded)
            embedded[k] = chunk_reply({"id": None, "chunks": [k]}, self._episode)[1]
            self.set_trait("embedded", embedded)

    def flush(self) -> None:
        """Send the steps appended since the last update now, not from its timer: a cell
        that ends leaves nothing pending, which a saved notebook's widget state (taken as
        the cell ends, by ``nbconvert --execute``) would miss."""
        with self._lock:
            timer, self._timer = self._timer, None
        if timer is not None:
            timer.cancel()
            self._sync()

    def _sync(self) -> None:
        """Send the grown episode: its newest chunks, then length and series, and the
        newest step when following.

        The chunks go unasked because the front end cannot get an answer while a cell
        is appending (the kernel handles its requests only between cells). They go
        first: the front end handles custom messages as they arrive but state updates a
        moment later, so it holds the new chunks before it learns the new length and
        has no reason to ask the busy kernel for them.
        """
        with self._lock:
            self._timer = None
            self._synced_at = time.monotonic()
            grown_from = self._pushed
            if self._episode.num_positions > self._pushed:
                self.send(*growth_push(self._episode, self._pushed))
                self._pushed = self._episode.num_positions
            following = self.step == self.length - 1
            with self.hold_sync():
                self._embed_grown(grown_from)
                self.set_trait("length", self._episode.num_positions)
                self._set_series()
                if following:
                    self.step = self.length - 1
