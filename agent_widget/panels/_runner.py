"""Runs a viewer's panel functions on a worker thread, so a slow panel never holds up frames.

The comm handler only looks up the cache and queues: a cached card is answered at
once, anything else waits for the worker. Each panel has at most one queued
request and the newest wins: a request for another step replaces it, and the
replaced one is answered ``"skipped"`` at once (the user has left that step), so
every request gets exactly one answer and a front end that waits for answers
always learns when to ask again. A running panel function cannot be interrupted;
once it returns, the worker goes straight to the newest step asked for. Panels run
one at a time (user functions and pyplot need not be thread-safe), in turn: the
panel that ran least recently goes first, so a slow panel asked for again and
again never goes twice while another waits. The front end replaces a queued
request as the user moves on, so once a running call returns, the next call
computes the step the user is on: a panel waits for at most one call of each
other panel.

With nothing asked for, the worker precomputes the steps of ``precompute=True``
panels, but only once a front end has asked for something (the viewer is shown),
and it reports its progress.

The worker never runs a panel function itself: each call runs on a call thread
(:mod:`agent_widget.panels._calls`), waited for up to the panel's ``timeout``. A call
still running then (an infinite loop) is left to its thread: its request, and every
request for that panel until the call returns, is answered at once with a "no answer
after N s" card that no cache keeps; a fresh call thread serves the other panels.
Once the stuck call returns, its card is cached and pushed to the front end (``id``
None). Removing or replacing a panel gives up on its call at once.
"""

from __future__ import annotations

import itertools
import logging
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from agent_widget.panels._calls import IDLE_EXIT, Caller, GaveUp
from agent_widget.panels._card_cache import DEFAULT_CACHE_BYTES, CardCache
from agent_widget.panels._cards import Card, compute, error_card, no_answer_card
from agent_widget.panels._registry import Panel
from agent_widget.panels._step import Step

Message = dict[str, Any]
Send = Callable[[Message, list[bytes]], None]
PROGRESS_INTERVAL = 0.25  # seconds between precompute progress messages of one panel

_log = logging.getLogger(__name__)


@dataclass(frozen=True)
class _Entry:
    panel: Panel
    version: int


@dataclass(frozen=True)
class _Job:
    entry: _Entry
    t: int
    asked: bool  # by a front end (else precomputed)
    request_id: int | None
    card: Card | None  # already cached: only to be sent
    length: int  # the episode's length when the job started


def card_message(
    name: str, version: int, t: int, card: Card, request_id: int | None = None
) -> tuple[Message, list[bytes]]:
    """``{"type": "panel", "id", "name", "step", "version", "kind", ...meta}`` and buffers."""
    content: Message = {"type": "panel", "name": name, "step": t, "version": version}
    if request_id is not None:
        content["id"] = request_id
    content.update(kind=card.kind, **card.meta)
    return content, list(card.buffers)


class PanelRunner:
    """A viewer's panels, their cached cards and the worker thread that computes them.

    Args:
        step_at: the :class:`Step` of a position.
        num_positions: the episode's current number of positions.
        send: sends a message with its buffers to the front end (from any thread).
        cache_bytes: bound of the card cache.
    """

    def __init__(
        self,
        step_at: Callable[[int], Step],
        num_positions: Callable[[], int],
        send: Send,
        cache_bytes: int = DEFAULT_CACHE_BYTES,
    ) -> None:
        self._step_at, self._num_positions, self._send = step_at, num_positions, send
        self._cache = CardCache(cache_bytes)
        self._lock = threading.Condition()  # guards all the state below
        self._send_lock = threading.Lock()  # one message at a time, whichever thread sends
        self._caller = Caller("agent-widget panel call")  # one user function at a time
        self._entries: dict[str, _Entry] = {}
        self._wanted: dict[str, tuple[int, int | None]] = {}  # name -> (step, request id)
        self._turns = itertools.count()
        self._last_turn: dict[str, int] = {}  # name -> when its last asked-for call started
        self._done: dict[str, np.ndarray] = {}  # precompute panels: steps computed
        self._stuck: dict[str, tuple[_Entry, Card]] = {}  # a call past its limit: its card
        self._progress_sent: dict[str, float] = {}
        self._versions = itertools.count(1)
        self._length = num_positions()
        self._shown = False
        self._closed = False
        self._thread: threading.Thread | None = None

    def describe(self) -> list[Message]:
        """The panels as the front end sees them: name, overlay, precompute and version."""
        with self._lock:
            return [
                {
                    "name": name,
                    "overlay": entry.panel.overlay,
                    "precompute": entry.panel.precompute,
                    "version": entry.version,
                }
                for name, entry in self._entries.items()
            ]

    def card_now(self, name: str, t: int) -> tuple[int, Card]:
        """Panel ``name``'s version and card at step ``t``, computed now if not cached.

        For exports (a page, a video) that need every step's card while no front end
        asks: a cached card is used as it is, a computed one is cached. The worker may
        be precomputing meanwhile; user functions still run one at a time. A stuck
        panel's card says so at once, so an export waits for it once at most.
        """
        with self._lock:
            if name not in self._entries:
                known = ", ".join(map(repr, self._entries)) or "none"
                raise KeyError(f"the viewer has no panel {name!r} (it has: {known})")
            entry = self._entries[name]
            card = self._cache.get(name, t) or self._stuck_card(name)
        if card is None:
            card = self._call(entry, t)
            with self._lock:
                if self._entries.get(name) is entry and _kept(card):
                    self._cache.put(name, t, card)
        return entry.version, card

    def set(self, panel: Panel) -> None:
        """Add ``panel``, or replace the one of that name (keeping its place), forgetting
        the replaced one's cards; a queued request is answered by the new function, and
        a running call of the replaced one is given up on at once."""
        with self._lock:
            self._forget_call(panel.name)
            self._entries[panel.name] = _Entry(panel, next(self._versions))
            self._cache.drop(panel.name)
            self._done.pop(panel.name, None)
            if panel.precompute:
                self._done[panel.name] = np.zeros(self._length, bool)
                self._progress_sent[panel.name] = 0.0
            self._wake()

    def remove(self, name: str) -> None:
        """Remove panel ``name`` and its cards; KeyError naming the panels when unknown."""
        with self._lock:
            if name not in self._entries:
                known = ", ".join(map(repr, self._entries)) or "none"
                raise KeyError(f"the viewer has no panel {name!r} (it has: {known})")
            self._forget_call(name)
            del self._entries[name]
            self._wanted.pop(name, None)
            self._last_turn.pop(name, None)
            self._done.pop(name, None)
            self._cache.drop(name)

    def request(
        self, t: int, names: Iterable[str] | None = None, request_id: int | None = None
    ) -> None:
        """Ask for the cards of ``names`` (all panels when None) at step ``t``.

        Cached cards are sent before this returns; the rest as the worker computes them,
        after a ``{"type": "panel-queued", "id", "step", "names"}`` sent at once, which
        tells the front end that the kernel has the request (so a card waiting for a
        slow panel is not taken for a kernel that does not answer) and that a request
        for a newer step would replace it. A name that is not a panel (any more) is
        answered ``"skipped"``, a stuck panel with its "no answer" card.
        """
        if isinstance(t, bool) or not isinstance(t, int) or not 0 <= t < self._num_positions():
            raise ValueError(
                f"panel step {t!r:.50} is out of range: the episode has "
                f"{self._num_positions()} positions"
            )
        replies = []
        queued = []
        with self._lock:
            self._shown = True
            for name in self._entries if names is None else names:
                entry = self._entries.get(name)
                card = None if entry is None else self._cache.get(name, t)
                card = card or self._stuck_card(name)
                if entry is None:
                    replies.append(_skipped(name, 0, t, request_id))
                elif card is not None:
                    replies.append(card_message(name, entry.version, t, card, request_id))
                else:
                    replaced = self._wanted.pop(name, None)
                    if replaced is not None and replaced[0] != t:
                        replies.append(_skipped(name, entry.version, *replaced))
                    self._wanted[name] = (t, request_id)  # last in line, like any new request
                    queued.append(name)
            if queued:
                ack = {"type": "panel-queued", "id": request_id, "step": t, "names": queued}
                replies.append((ack, []))
            self._wake()
        for content, buffers in replies:
            self._deliver(content, buffers)

    def grew(self) -> None:
        """The episode grew: its old last position gained an action, so its cards are redone."""
        with self._lock:
            old, self._length = self._length, self._num_positions()
            if self._length == old:
                return
            self._cache.drop_step(old - 1)
            for name, done in self._done.items():
                grown = np.zeros(self._length, bool)
                grown[: old - 1] = done[: old - 1]
                self._done[name] = grown
            self._wake()

    def close(self) -> None:
        """Stop the worker, giving up on its current call; queued requests are dropped."""
        with self._lock:
            self._closed = True
            self._wanted.clear()
            for entry in self._entries.values():
                self._caller.give_up(entry)
            self._lock.notify_all()

    def _forget_call(self, name: str) -> None:
        """Panel ``name`` is removed or replaced: stop waiting for its call (lock held)."""
        self._stuck.pop(name, None)
        entry = self._entries.get(name)
        if entry is not None:
            self._caller.give_up(entry)

    def _stuck_card(self, name: str) -> Card | None:
        """Panel ``name``'s card while its call is stuck, else None (lock held)."""
        stuck = self._stuck.get(name)
        return None if stuck is None else stuck[1]

    def _wake(self) -> None:
        """Start the worker if needed and tell it there may be work (lock held)."""
        if self._closed:
            return
        if self._thread is None:
            self._thread = threading.Thread(target=self._work, name="agent-widget panels")
            self._thread.daemon = True  # a panel stuck in user code must not hold up exit
            self._thread.start()
        self._lock.notify_all()

    def _work(self) -> None:
        try:
            while True:
                with self._lock:
                    job = self._next_job()
                if job is None:
                    return
                try:
                    card = job.card if job.card is not None else self._call(job.entry, job.t)
                    self._finish(job, card)
                except Exception as error:  # ours, not the panel's (those are cards): answer
                    _log.exception("agent-widget: a panel job failed")
                    if job.asked:
                        panel, version = job.entry.panel.name, job.entry.version
                        card = error_card(error, "")
                        self._deliver(*card_message(panel, version, job.t, card, job.request_id))
        finally:
            # However this thread ends, work left queued gets a worker of its own.
            with self._lock:
                if self._thread is threading.current_thread():
                    self._thread = None
                if self._wanted:
                    self._wake()

    def _call(self, entry: _Entry, t: int) -> Card:
        """The panel's card at ``t``, computed on the call thread; past the panel's limit,
        its "no answer" card, the panel marked stuck until the call returns."""
        panel = entry.panel
        returned = threading.Event()

        def late(card: Card | None) -> None:
            with self._lock:
                returned.set()
                push = self._returned(entry, t, card)
            if push is not None:
                self._deliver(*push)

        try:
            return self._caller.call(
                lambda: compute(panel.fn, self._step_at(t), panel.overlay),
                panel.timeout,
                late,
                tag=entry,
            )
        except GaveUp as gave_up:
            if not gave_up.timed_out:  # removed or replaced: the answer is dropped
                return Card("skipped")
            assert panel.timeout is not None  # only a limited call times out
            card = no_answer_card(panel.name, panel.timeout, t, gave_up.where)
            with self._lock:
                if not returned.is_set() and self._entries.get(panel.name) is entry:
                    self._stuck[panel.name] = (entry, card)
            return card

    def _returned(
        self, entry: _Entry, t: int, card: Card | None
    ) -> tuple[Message, list[bytes]] | None:
        """A stuck call returned: the panel answers again, and its card is cached; the
        card to push to the front end, still showing "no answer" there (lock held)."""
        name = entry.panel.name
        if self._stuck.get(name, (None,))[0] is entry:
            del self._stuck[name]
            self._wake()  # its precompute goes on
        if card is None or self._entries.get(name) is not entry or t >= self._length:
            return None
        self._cache.put(name, t, card)
        return card_message(name, entry.version, t, card)

    def _next_job(self) -> _Job | None:
        """The request of the panel that ran least recently (the oldest request among
        equals), else a step to precompute; waits for one (lock held).

        None once closed, or after waiting ``IDLE_EXIT`` in vain: idle viewers hold no
        thread (``_wake`` starts another when work comes).
        """
        while not self._closed:
            if self._wanted:
                name = min(self._wanted, key=lambda name: self._last_turn.get(name, -1))
                self._last_turn[name] = next(self._turns)
                t, request_id = self._wanted.pop(name)
                entry = self._entries[name]
                card = self._cache.get(name, t) or self._stuck_card(name)
                return _Job(entry, t, True, request_id, card, self._length)
            job = self._precompute_job() if self._shown else None
            if job is not None:
                return job
            if not self._lock.wait(IDLE_EXIT):
                break
        self._thread = None
        return None

    def _precompute_job(self) -> _Job | None:
        for name, done in self._done.items():
            if name not in self._stuck and not done.all():
                t = int(np.argmin(done))  # the first step not done
                card = self._cache.get(name, t)
                return _Job(self._entries[name], t, False, None, card, self._length)
        return None

    def _finish(self, job: _Job, card: Card) -> None:
        """Cache and send ``card``, unless the panel or the step changed while it ran."""
        name, t = job.entry.panel.name, job.t
        replies = []
        with self._lock:
            changed_step = self._length != job.length and t == job.length - 1
            if self._entries.get(name) is not job.entry or changed_step:
                if job.asked and name in self._entries:
                    self._wanted.setdefault(name, (t, job.request_id))  # redo it, unless moved on
                return
            if _kept(card):
                self._cache.put(name, t, card)
            if job.asked:
                replies.append(card_message(name, job.entry.version, t, card, job.request_id))
            progress = self._progress(name, job.entry.version, t) if _kept(card) else None
            if progress is not None:
                replies.append((progress, []))
        for content, buffers in replies:
            self._deliver(content, buffers)

    def _progress(self, name: str, version: int, t: int) -> Message | None:
        """Marks ``t`` done for a precompute panel; the progress message, when one is due."""
        done = self._done.get(name)
        if done is None or done[t]:
            return None
        done[t] = True
        count, total = int(done.sum()), len(done)
        now = time.monotonic()
        if count < total and now - self._progress_sent[name] < PROGRESS_INTERVAL:
            return None
        self._progress_sent[name] = now
        return {"type": "panel-progress", "name": name, "version": version, "done": count,
                "total": total}  # fmt: skip

    def _deliver(self, content: Message, buffers: list[bytes]) -> None:
        with self._send_lock:
            try:
                self._send(content, buffers)
            except Exception:  # a closed comm must not kill the worker
                _log.exception("agent-widget: could not send a panel message")


def _kept(card: Card) -> bool:
    """Whether a card is a result to cache: a "no answer" card is not (it is asked for
    again), nor the "skipped" of a call given up on (the runner closed meanwhile)."""
    return card.kind != "skipped" and not card.meta.get("retry", False)


def _skipped(
    name: str, version: int, t: int, request_id: int | None
) -> tuple[Message, list[bytes]]:
    return card_message(name, version, t, Card("skipped"), request_id)
