"""Panels: Python functions of one step whose results are drawn beside the frame.

A panel is a name, a function ``fn(step) -> result`` (see :mod:`agent_widget.panels._cards`
for the results it may return) and two flags. Panels registered here, in the global
registry, are included in every viewer created afterwards; a viewer's own panels
are added with ``viewer.panel(...)`` / ``viewer.add_panel(...)`` (the decorator comes
from :class:`PanelDecorator`, shared by every widget that has ``add_panel``).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from agent_widget.panels._step import Step

PanelFunction = Callable[[Step], Any]
F = TypeVar("F", bound=Callable[..., Any])
DEFAULT_TIMEOUT = 60.0
"""Seconds a panel call may run before its card says "no answer after 60 s" and the
other panels go on without it: long enough for a CPU saliency map of a big network,
short enough that an infinite loop is seen as one."""


@dataclass(frozen=True)
class Panel:
    """A named panel function.

    Attributes:
        name: the card's title, unique within a viewer.
        fn: called with a :class:`~agent_widget.panels.Step`, returns what the card shows.
        overlay: draw a 2-D map or image result over the frame (resized to it).
        precompute: once a viewer is shown, compute every step in the background, so
            scrubbing shows cached results at once.
        timeout: seconds a call may run (None: no limit). A call still running then is
            left to finish on its own thread (Python cannot stop it): its card says "no
            answer after N s", the panel is not called again until that call returns,
            and the other panels go on.
    """

    name: str
    fn: PanelFunction
    overlay: bool = False
    precompute: bool = False
    timeout: float | None = DEFAULT_TIMEOUT

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise ValueError(f"a panel name must be a non-empty string, got {self.name!r:.100}")
        if not callable(self.fn):
            raise TypeError(
                f"panel {self.name!r}: fn must be callable with one step, "
                f"got {type(self.fn).__name__}"
            )
        for flag in ("overlay", "precompute"):
            if not isinstance(getattr(self, flag), bool):
                raise ValueError(f"panel {self.name!r}: {flag} must be True or False")
        limit = self.timeout
        if limit is not None and (
            isinstance(limit, bool)
            or not isinstance(limit, int | float)
            or not math.isfinite(limit)
            or limit <= 0
        ):
            raise ValueError(
                f"panel {self.name!r}: timeout must be a number of seconds above 0, "
                f"or None for no limit; got {limit!r:.50}"
            )


_registry: dict[str, Panel] = {}
_lock = threading.Lock()


def register(
    name: str,
    fn: PanelFunction | None = None,
    *,
    overlay: bool = False,
    precompute: bool = False,
    timeout: float | None = DEFAULT_TIMEOUT,
) -> Any:
    """Register a panel for every viewer created from now on, replacing one of the same name.

    Without ``fn``, returns a decorator. The arguments are :class:`Panel`'s.

    Examples:
        >>> @register("reward")
        ... def reward(step):
        ...     return f"reward: {step.reward}"
        >>> [panel.name for panel in registered()]
        ['reward']
        >>> unregister("reward")
    """
    if fn is None:
        return lambda fn: register(
            name, fn, overlay=overlay, precompute=precompute, timeout=timeout
        )
    panel = Panel(name, fn, overlay, precompute, timeout)
    with _lock:
        _registry[name] = panel  # a replacement keeps its place
    return fn


def unregister(name: str) -> None:
    """Remove a globally registered panel; viewers that already have it keep it."""
    with _lock:
        if _registry.pop(name, None) is None:
            known = ", ".join(map(repr, _registry)) or "none"
            raise KeyError(f"no panel {name!r} is registered (registered: {known})")


def registered() -> list[Panel]:
    """The globally registered panels, in registration order."""
    with _lock:
        return list(_registry.values())


class _AddsPanels(Protocol):
    def add_panel(
        self,
        name: str,
        fn: PanelFunction,
        *,
        overlay: bool = ...,
        precompute: bool = ...,
        timeout: float | None = ...,
    ) -> None: ...


class PanelDecorator:
    """Mixin: the ``panel()`` decorator of a widget, over the widget's own ``add_panel()``."""

    def panel(
        self: _AddsPanels,
        name: str,
        *,
        overlay: bool = False,
        precompute: bool = False,
        timeout: float | None = DEFAULT_TIMEOUT,
    ) -> Callable[[F], F]:
        """Decorator: show ``fn(step)`` as a card named ``name``; see :meth:`add_panel`.

        Returns the function unchanged, so it can still be called or tested on its own.

        Examples:
            >>> import numpy as np
            >>> from agent_widget.viewer import EpisodeViewer
            >>> viewer = EpisodeViewer(np.zeros((3, 4, 4, 3), np.uint8))
            >>> @viewer.panel("brightness")
            ... def brightness(step):
            ...     return f"mean: {step.frame.mean():.1f}"
            >>> [panel["name"] for panel in viewer.panels]
            ['brightness']
        """

        def add(fn: F) -> F:
            self.add_panel(name, fn, overlay=overlay, precompute=precompute, timeout=timeout)
            return fn

        return add
