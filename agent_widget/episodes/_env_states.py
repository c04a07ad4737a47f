"""Env states saved while recording, so a branch replays a few steps instead of all.

Envs that can save and restore their whole state (ALE's ``clone_state`` /
``restore_state``, or any env whose unwrapped env has that pair) get a state saved
every ``states_every`` positions; :func:`~agent_widget.episodes._branch.branch`
restores the last one before its branch point and replays only from there (the
replay is checked all the same, and falls back to the seed when it differs). A
restored ALE state does not bring its screen back, so the replay always takes at
least one step from a state, to check what it shows.

States are kept in memory only, on the rollout (``rollout.states``), never written
to a file: restoring a state read from a stranger's file would hand its bytes to the
env's own deserializer, which makes no promise about hostile input.
"""

from __future__ import annotations

import inspect
import zlib
from typing import Any, NamedTuple

import gymnasium as gym


def can_save(env: gym.Env[Any, Any]) -> bool:
    """Whether ``env`` can save and restore its state."""
    inner = env.unwrapped
    return callable(getattr(inner, "clone_state", None)) and callable(
        getattr(inner, "restore_state", None)
    )


class PackedState(NamedTuple):
    """A state that serializes itself (ALE's: ~14 KB), held deflated (~7 KB)."""

    kind: type
    data: bytes

    def unpacked(self) -> Any:
        return self.kind(zlib.decompress(self.data))


def save_state(env: gym.Env[Any, Any]) -> Any:
    """The env's whole state, its random generator included where it can say so (ALE's
    sticky actions draw from it); deflated when it serializes itself."""
    clone = env.unwrapped.clone_state  # type: ignore[attr-defined]
    if "include_rng" in inspect.signature(clone).parameters:
        state = clone(include_rng=True)
    else:
        state = clone()
    serialize = getattr(state, "serialize", None)
    if callable(serialize):
        packed = PackedState(type(state), zlib.compress(serialize(), 6))
        try:
            packed.unpacked()  # the type rebuilds itself from its bytes (ALE's does)
        except (TypeError, ValueError, zlib.error):
            return state
        return packed
    return state


def restore_state(env: gym.Env[Any, Any], state: Any, position: int) -> None:
    """Put ``env`` (reset beforehand, so its wrappers are set up) back into ``state``,
    saved at ``position``; its time limit counts the steps before it."""
    if isinstance(state, PackedState):
        state = state.unpacked()
    env.unwrapped.restore_state(state)  # type: ignore[attr-defined]
    layer: Any = env
    while isinstance(layer, gym.Wrapper):
        if isinstance(layer, gym.wrappers.TimeLimit):
            # The wrapper keeps its count in this attribute; reset() set it to 0.
            layer._elapsed_steps = position  # type: ignore[assignment]
        layer = layer.env
