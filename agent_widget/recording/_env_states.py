"""Env states saved while recording, so a branch replays a few steps instead of all.

Envs that can save and restore their whole state (ALE's ``clone_state`` /
``restore_state``, or any env whose unwrapped env has that pair) get states saved by
default: every 64 positions while the episode runs, then, when it ends, every 128, 256...
(the fewest doublings) so that they hold at most 10% of the episode's encoded size
(its file's, or what its file would be), each held as a delta against the one before
(:mod:`~agent_widget.format._state_deltas`), packed by the frame encoder process where
there is one (:mod:`~agent_widget.recording._encoder._state_packing`).
``states_every=K`` saves every K positions whatever they cost; ``states_every=0``
saves none. An env that cannot save its state, or whose ``clone_state`` raises,
records all the same without states: a branch then replays from the seed.
:func:`~agent_widget.recording._branch.branch` restores the last state before its
branch point and replays only from there (the replay is checked all the same, and
falls back to the seed when it differs). A restored ALE state does not bring its
screen back, so the replay always takes at least one step from a state, to check
what it shows.

States are kept in memory only, on the rollout (``rollout.states``), never written
to a file: restoring a state read from a stranger's file would hand its bytes to the
env's own deserializer, which makes no promise about hostile input.
"""

from __future__ import annotations

import functools
import inspect
import sys
import warnings
from collections.abc import Callable
from typing import Any

import gymnasium as gym

from agent_widget.format import DeltaState
from agent_widget.recording._encoder import StateChain
from agent_widget.recording._interrupts import interrupts_held


def can_save(env: gym.Env[Any, Any]) -> bool:
    """Whether ``env`` can save and restore its state."""
    inner = env.unwrapped
    return callable(getattr(inner, "clone_state", None)) and callable(
        getattr(inner, "restore_state", None)
    )


AUTOMATIC_EVERY = 64  # positions between states while an episode runs, by default
STATES_SHARE = 0.10  # the most of an episode's encoded bytes its states hold, by default
HELD_MOST = 1 << 20  # bytes of states an episode holds while it runs, by default


def _cloner(env: gym.Env[Any, Any]) -> Callable[[], Any]:
    """What saves the env's whole state, its random generator included where it can
    say so (ALE's sticky actions draw from it)."""
    clone = env.unwrapped.clone_state  # type: ignore[attr-defined]
    if "include_rng" in inspect.signature(clone).parameters:
        return functools.partial(clone, include_rng=True)
    return clone  # type: ignore[no-any-return]


def _serializable(state: Any) -> bool:
    """Whether ``state``'s type rebuilds it from its ``serialize()`` bytes (ALE's does)."""
    serialize = getattr(state, "serialize", None)
    if not callable(serialize):
        return False
    try:
        raw = serialize()
        return isinstance(raw, bytes) and type(state)(raw).serialize() == raw
    except (TypeError, ValueError):
        return False


class SavedStates:
    """The env states one episode keeps, by position.

    ``every``: None for the default (see the module), 0 for none, else every this many
    positions, counted from ``offset`` positions before the episode's first (a
    branch's, so its states fall where its parent's did)."""

    def __init__(self, env: gym.Env[Any, Any], every: int | None, offset: int = 0) -> None:
        self.automatic = every is None
        self.every = (AUTOMATIC_EVERY if every is None else every) if can_save(env) else 0
        self.offset = offset
        self.states: dict[int, Any] = {}
        self._clone = _cloner(env) if self.every else None
        self._packs: bool | None = None  # whether the env's states serialize themselves
        self._chain: StateChain | None = None  # with _packs: how they are packed

    @property
    def nbytes(self) -> int:
        """The bytes the states hold, once those being packed are (a state that does not
        serialize itself: its size as Python sees it, which may count less than the env
        holds for it)."""
        if self._chain is not None:
            self._chain.settle()
        return self._held()

    def _held(self) -> int:
        """The bytes the states hold now: those being packed counted whole."""
        pending = {} if self._chain is None else self._chain.pending
        return sum(
            len(pending[position])
            if position in pending
            else state.nbytes
            if isinstance(state, DeltaState)
            else sys.getsizeof(state)
            for position, state in self.states.items()
        )

    def save(self, env: gym.Env[Any, Any], position: int) -> None:
        """Save the env's state at ``position`` if it falls on the interval."""
        if not self.every or position <= 0 or (self.offset + position) % self.every:
            return
        try:
            state = self._clone()  # type: ignore[misc]
        except Exception as error:  # any env's own: no states, a branch replays from the seed
            if not self.automatic:
                warnings.warn(
                    f"the env's clone_state raised {error!r:.200}: no more states are saved "
                    "in this episode (a branch replays it from its seed)",
                    stacklevel=4,
                )
            self.every = 0
            return
        if self._packs is None:
            self._packs = _serializable(state)
        # Whole, whatever a Ctrl-C does: a state the chain waits for but never sent to
        # the encoder process would be waited for at the episode's end, for ever.
        with interrupts_held():
            if not self._packs:
                self.states[position] = state
            else:
                if self._chain is None:
                    self._chain = StateChain(type(state), self.states)
                self._chain.add(position, state)
            if self.automatic and self._held() > HELD_MOST:
                self._thin()

    def fit(self, encoded_bytes: int) -> None:
        """The episode ended: by default, thin the states until they hold at most 10% of
        ``encoded_bytes`` (the episode's file size, or a floor of it). Every state is
        packed by then."""
        while self.automatic and self.states and self.nbytes > STATES_SHARE * encoded_bytes:
            self._thin()
        if self._chain is not None:
            self._chain.settle()
            self._chain.close()

    def _thin(self) -> None:
        """Keep every other state (the interval doubled), deltas taken again."""
        self.every *= 2
        kept = {p for p in self.states if (self.offset + p) % self.every == 0}
        if self._chain is None:
            thinned = {p: s for p, s in self.states.items() if p in kept}
        else:
            thinned = self._chain.thinned(kept)
        self.states.clear()  # in place: the chain packs into it
        self.states.update(thinned)


def restore_state(env: gym.Env[Any, Any], state: Any, position: int) -> None:
    """Put ``env`` (reset beforehand, so its wrappers are set up) back into ``state``,
    saved at ``position``; its time limit counts the steps before it."""
    if isinstance(state, DeltaState):
        state = state.unpacked()
    env.unwrapped.restore_state(state)  # type: ignore[attr-defined]
    layer: Any = env
    while isinstance(layer, gym.Wrapper):
        if isinstance(layer, gym.wrappers.TimeLimit):
            # The wrapper keeps its count in this attribute; reset() set it to 0.
            layer._elapsed_steps = position  # type: ignore[assignment]
        layer = layer.env
