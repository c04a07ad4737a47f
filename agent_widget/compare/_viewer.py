"""``CompareViewer``: several episodes of one env side by side, on one shared slider.

Each episode is shown by its own :class:`EpisodeViewer` (frames, readout and panels
as usual); the comparison's front end lays them out in a grid and moves all of
them in the browser, setting each child's ``step`` without a kernel round trip, so
playback costs no more messages than one viewer's. The kernel keeps serving each
child's frames and panels as it does for a single viewer.
"""

from __future__ import annotations

import os
import pathlib
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any, TypeVar

from PIL import Image

from agent_widget.compare._alignment import Alignment, Key, by_key
from agent_widget.compare._compare_traits import PAGE_TRAITS, CompareTraits
from agent_widget.compare._divergence import shared_divergence
from agent_widget.compare._labels import labelled, pair
from agent_widget.episodes import Rollout
from agent_widget.panels import DEFAULT_TIMEOUT, Panel, PanelDecorator, Step, add_panels
from agent_widget.viewer import (
    DEFAULT_MAX_BYTES,
    AgentWidget,
    EpisodeViewer,
    Export,
    PlaybackChecks,
    checked_video,
    film,
    framed,
    page_state,
    positions,
    render,
    sentence,
    video_options,
    written,
)

_STATIC = pathlib.Path(__file__).parent.parent / "static"
DiffFunction = Callable[[Step, Step], Any]
D = TypeVar("D", bound=DiffFunction)


class CompareViewer(
    CompareTraits,
    PanelDecorator,
    PlaybackChecks,
    AgentWidget,
):
    """Step through several rollouts of one env together: one slider, one playback.

    Args:
        rollouts: ``{"DQN": r1, "PPO": r2}``, or a list (labelled by each rollout's
            ``metadata["agent"]`` or ``["algorithm"]``, else by its index).
        align: ``"step"`` (shared position p is step p of every rollout; an episode
            that has ended holds its last frame), or a key per position that never
            decreases, to line the rollouts up where their keys meet: a function of
            the rollout returning one number per position, or the name of an info
            entry (e.g. ALE's ``"episode_frame_number"``).
        title: text above the grid.
        **traits: initial values of ``step``, ``fps``, ``loop``, ``columns``,
            ``shared_scales``.

    When every rollout has the same ``env_id`` and ``seed`` in its metadata and the
    alignment is by step, :attr:`divergence` is the first step where their actions
    differ (see :func:`agent_widget.compare.first_divergence`), marked on the
    shared timeline with a button that jumps there.

    Panels (:meth:`panel`, :meth:`add_panel`) show on every rollout, each for its own
    step; diff panels (:meth:`diff_panel`, :meth:`add_diff_panel`) compare two
    rollouts at the same shared position.

    Examples:
        >>> import numpy as np
        >>> a = Rollout.from_arrays(frames=np.zeros((4, 2, 2, 3), np.uint8), actions=[0, 1, 1])
        >>> b = Rollout.from_arrays(frames=np.zeros((3, 2, 2, 3), np.uint8), actions=[0, 2])
        >>> compare = CompareViewer({"lean": a, "stubborn": b})
        >>> compare.length, compare.divergence
        (4, 1)
    """

    _esm = _STATIC / "compare.js"
    _css = _STATIC / "compare.css"

    def __init__(
        self,
        rollouts: Mapping[str, Rollout] | Sequence[Rollout],
        *,
        align: Key = "step",
        title: str = "",
        **traits: Any,
    ) -> None:
        labels, episodes = labelled(rollouts)
        self._episodes = episodes
        self._shared_panels: dict[str, Panel] = {}  # for rollouts added later
        viewers = [
            EpisodeViewer(r, title=label, full_series=True)
            for label, r in zip(labels, episodes, strict=True)
        ]
        if align == "step":
            length = max(r.num_positions for r in episodes)
            positions: list[bytes] = []
            divergence = shared_divergence(episodes)
        else:
            maps = by_key(episodes, align, labels)
            length = len(maps[0])
            positions = [m.astype("<i4").tobytes() for m in maps]
            divergence = None
        self.set_trait("viewers", viewers)
        self.set_trait("labels", labels)
        self.set_trait("length", length)
        self.set_trait("positions", positions)
        self.set_trait("divergence", divergence)
        super().__init__(title=title, **traits)

    def add_panel(
        self,
        name: str,
        fn: Callable[[Step], Any],
        *,
        overlay: bool = False,
        precompute: bool = False,
        timeout: float | None = DEFAULT_TIMEOUT,
    ) -> None:
        """Add panel ``name`` to every rollout's viewer; see :meth:`EpisodeViewer.add_panel`."""
        self._shared_panels[name] = Panel(name, fn, overlay, precompute, timeout)
        for viewer in self.viewers:
            viewer.add_panel(name, fn, overlay=overlay, precompute=precompute, timeout=timeout)

    @property
    def rollouts(self) -> list[Rollout]:
        """The rollouts shown, in order (a what-if's branches after its episode)."""
        return list(self._episodes)

    def add_rollout(self, label: str, rollout: Rollout) -> None:
        """Show ``rollout`` too, in a new column with the panels added to every viewer
        (:meth:`add_panel`); for a comparison aligned by step (a what-if's branches).
        Diff panels stay on the rollouts they were made for."""
        if self.positions:
            raise ValueError("add_rollout needs a comparison aligned by step")
        if label in self.labels:
            label = f"{label} ({len(self.labels)})"
        viewer = EpisodeViewer(rollout, title=label, full_series=True)
        add_panels(viewer, self._shared_panels.values())
        self._episodes = [*self._episodes, rollout]
        self.set_trait("length", max(self.length, rollout.num_positions))
        self.set_trait("divergence", shared_divergence(self._episodes))
        self.set_trait("labels", [*self.labels, label])
        self.set_trait("viewers", [*self.viewers, viewer])  # last: the front end redraws on it

    def diff_panel(
        self,
        name: str,
        *,
        a: str | None = None,
        b: str | None = None,
        overlay: bool = False,
        precompute: bool = False,
    ) -> Callable[[D], D]:
        """Decorator: a diff panel ``fn(step_a, step_b)``; see :meth:`add_diff_panel`.

        Examples:
            >>> @compare.diff_panel("Q-values: PPO - DQN", a="DQN", b="PPO")  # doctest: +SKIP
            ... def q_gain(step_a, step_b):
            ...     return dict(zip(step_b.action_names, q_net(step_b.obs) - q_net(step_a.obs)))
        """

        def add(fn: D) -> D:
            self.add_diff_panel(name, fn, a=a, b=b, overlay=overlay, precompute=precompute)
            return fn

        return add

    def add_diff_panel(
        self,
        name: str,
        fn: DiffFunction,
        *,
        a: str | None = None,
        b: str | None = None,
        overlay: bool = False,
        precompute: bool = False,
    ) -> None:
        """Compare two rollouts at the same shared position: a card showing ``fn(step_a, step_b)``.

        The card is a panel of rollout ``b``'s viewer (only there), so it follows the
        shared slider like any panel and shows any panel result (see
        :meth:`EpisodeViewer.add_panel`). ``step_b`` is ``b``'s step and ``step_a`` is
        ``a``'s step at the same shared position, as the alignment lines them up: by
        step, ``a`` holds its last position once it has ended; by a key, it is ``a``'s
        position at the shared position where ``b`` reaches its step. While ``b``
        holds a position (it has ended, or waits for ``a`` under a key), the card
        keeps comparing with ``a`` where ``b`` reached it: make ``b`` the longer one.

        Args:
            name: the card's title.
            fn: called with the two :class:`~agent_widget.panels.Step` objects.
            a: label of the rollout compared with; defaults to the first one other than ``b``.
            b: label of the rollout whose viewer shows the card; defaults to the first one
                other than ``a`` (so, with neither given, ``a`` is the first, ``b`` the second).
            overlay: draw a 2-D map (or an image) over ``b``'s frame.
            precompute: compute every step of ``b`` in the background once shown.
        """
        if not callable(fn):
            raise TypeError(
                f"diff panel {name!r}: fn must be callable with two steps, got {type(fn).__name__}"
            )
        i, j = pair(self.labels, a, b)
        other = self.viewers[i]

        def diff(step_b: Step) -> Any:
            # a's Step as its viewer builds them (steps appended live, its action names).
            return fn(other.step_at(self._alignment().counterpart(i, j, step_b.t)), step_b)

        self.viewers[j].add_panel(name, diff, overlay=overlay, precompute=precompute)

    def remove_panel(self, name: str) -> None:
        """Remove panel ``name`` from every rollout's viewer that has it (a diff panel's one).

        KeyError naming the panels when no viewer has it.
        """
        holders = [v for v in self.viewers if any(p["name"] == name for p in v.panels)]
        if not holders:
            known = sorted({p["name"] for v in self.viewers for p in v.panels})
            raise KeyError(f"no panel {name!r} (panels: {', '.join(map(repr, known)) or 'none'})")
        self._shared_panels.pop(name, None)
        for viewer in holders:
            viewer.remove_panel(name)

    def jump_to_divergence(self) -> None:
        """Move to the first step where the actions differ (ValueError when there is none)."""
        if self.divergence is None:
            raise ValueError(
                "no divergence: the rollouts act alike, or are not of one env and seed "
                "aligned by step"
            )
        self.step = self.divergence

    def to_html(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        skip_panels: Collection[str] = (),
        max_bytes: int = DEFAULT_MAX_BYTES,
        progress: bool = True,
    ) -> str | pathlib.Path:
        """The comparison as one self-contained HTML file: the grid, the shared slider,
        playback and returns chart, each rollout's frames and every card of every step.

        See :meth:`EpisodeViewer.to_html`; ``skip_panels`` names panels of any rollout
        (each must be a panel of one of them), ``max_bytes`` bounds the whole page.

        Examples:
            >>> compare.to_html("comparison.html")  # doctest: +SKIP
        """
        self._check_held("skip_panels", skip_panels)
        with Export(max_bytes, progress) as export:
            children = [
                viewer.page_data(
                    export,
                    skip_panels=[p["name"] for p in viewer.panels if p["name"] in skip_panels],
                )
                for viewer in self.viewers
            ]
        state = {name: getattr(self, name) for name in PAGE_TRAITS}
        state["viewers"] = [f"IPY_MODEL_{i}" for i in range(len(children))]
        data = {"widget": "compare", "state": page_state(state), "children": children}
        # compare.css holds widget.css (the children's stylesheet) too.
        return written(render(data, self.title or "comparison", ("compare",)), path)

    def save_video(
        self,
        path: str | os.PathLike[str],
        start: int = 0,
        stop: int | None = None,
        fps: float | None = None,
        *,
        scale: float | None = None,
        step_counter: bool = True,
        readout: bool = False,
        timeline: bool = False,
        panels: bool | str | Sequence[str] = False,
        overlay: bool = True,
        progress: bool = True,
    ) -> pathlib.Path:
        """Film shared positions ``start .. stop - 1`` as an MP4 or a GIF: the rollouts
        side by side, each under its label and its own step counter, lined up as the
        comparison lines them up (by step, or by the key of ``align``). A rollout that
        has ended holds its last frame, its counter marked "ended".

        The options are :meth:`EpisodeViewer.save_video`'s; ``scale=None`` makes the
        tallest first frame at least 400 px tall, and every column takes that scale.
        ``panels`` names panels of any rollout (each column shows those it has).

        Examples:
            >>> compare.save_video("race.mp4", readout=True)  # doctest: +SKIP
        """
        fps = self.fps if fps is None else fps
        path = checked_video(path, fps)
        start, stop = positions(start, stop, self.length)
        shown: list[bool | Sequence[str]] = [panels] * len(self.viewers)  # each column's
        if not isinstance(panels, bool):
            wanted = [panels] if isinstance(panels, str) else list(panels)
            self._check_held("panels", wanted)
            held = [{p["name"] for p in viewer.panels} for viewer in self.viewers]
            shown = [[name for name in wanted if name in names] for names in held]
        aligned = self._alignment()
        ranges = [
            (aligned.position(i, start), aligned.position(i, stop - 1) + 1)
            for i in range(len(self.viewers))
        ]
        heights = [v.frame_height(*r) for v, r in zip(self.viewers, ranges, strict=True)]
        options = video_options(
            scale,
            max(heights),
            step_counter=step_counter,
            readout=readout,
            timeline=timeline,
            overlay=overlay,
        )
        columns = [
            viewer.video_column(*ranges[i], shown[i], options, label)
            for i, (viewer, label) in enumerate(zip(self.viewers, self.labels, strict=True))
        ]
        shots = (
            [(aligned.position(i, p), aligned.ended(i, p)) for i in range(len(columns))]
            for p in range(start, stop)
        )
        return film(path, fps, columns, shots, stop - start, progress)

    def close(self) -> None:
        """Close the comparison and its child viewers."""
        for viewer in self.viewers:
            viewer.close()
        super().close()

    def _saved_text(self) -> str:
        title = f" ({self.title})" if self.title else ""
        what = (
            f"CompareViewer{title} of {', '.join(self.labels)}, "
            f"shared step {self.step} of 0 to {self.length - 1}"
        )
        return sentence(what, "step through the episodes together")

    def _saved_picture(self) -> Image.Image:
        """Each rollout's frame and readout at the shared step, side by side."""
        aligned = self._alignment()
        columns = [
            viewer.still(aligned.position(i, self.step), label, beside=False)
            for i, (viewer, label) in enumerate(zip(self.viewers, self.labels, strict=True))
        ]
        note = f"A saved picture of shared step {self.step}: run the cell to step through them."
        return framed(columns, self.title, note)

    def _alignment(self) -> Alignment:
        """The rollouts lined up as the comparison shows them now."""
        return Alignment(self.positions, [viewer.length for viewer in self.viewers])

    def _check_held(self, argument: str, names: Collection[str]) -> None:
        """A KeyError naming the panels there are when one of ``names`` (passed as
        ``argument``) is a panel of no rollout."""
        held = {str(panel["name"]) for viewer in self.viewers for panel in viewer.panels}
        unknown = [name for name in names if name not in held]
        if unknown:
            known = ", ".join(map(repr, sorted(held))) or "none"
            raise KeyError(
                f"{argument}: no rollout has a panel {unknown[0]!r} (they have: {known})"
            )
