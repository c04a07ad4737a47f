"""``ViewerParts``: what the widgets built of episode viewers use of each one.

A comparison shows each rollout in a viewer of its own, a checkpoint viewer the
episode of the checkpoint chosen in one; they make their pages, videos, saved
pictures and diff panels of their viewers' parts. Those parts are named here,
without a leading underscore, so that no widget above reaches into a viewer's
private state (``tests/test_architecture.py`` checks it) and what a viewer holds
can change behind them. The viewer makes its own page, video and saved picture of
the same parts. They are for the package's widgets, not the user API, but for
:attr:`ViewerParts.rollout` and :meth:`ViewerParts.card`, which scripts read too (the
API reference shows them with the viewer's own methods).
"""

from __future__ import annotations

import threading
from collections.abc import Collection, Iterable, Sequence
from typing import Any

from PIL import Image

from agent_widget.episodes import Rollout
from agent_widget.panels import Card, PanelRunner, Step
from agent_widget.viewer import _saved_copy
from agent_widget.viewer._episode import ServedEpisode
from agent_widget.viewer._film import Column, Options, beside, first_shape
from agent_widget.viewer._given import positions
from agent_widget.viewer._page import STATE_TRAITS, Export, episode_data, exported_panels
from agent_widget.viewer._viewer_traits import ViewerTraits


class ViewerParts(ViewerTraits):
    """Mixin for :class:`~agent_widget.viewer.EpisodeViewer`: its parts, for the widgets
    built of viewers (see the module docstring)."""

    _lock: threading.RLock
    _episode: ServedEpisode
    _panels: PanelRunner

    def step_at(self, t: int) -> Step:
        """Position ``t`` as a panel function sees it: the steps appended live included,
        the viewer's action names (a comparison's diff panel reads the other rollout's)."""
        return Step(self._episode, t, self._episode.action_names)

    @property
    def rollout(self) -> Rollout:
        """The episode shown, as a :class:`~agent_widget.episodes.Rollout`: the one given
        (frames alone made one), with the steps appended live since.

        Observations are kept when every position has one, extras the timeline does not
        draw while no step was appended (appends do not grow them).

        Examples:
            >>> import numpy as np
            >>> from agent_widget.viewer import EpisodeViewer
            >>> viewer = EpisodeViewer([np.zeros((4, 4, 3), np.uint8)])
            >>> viewer.append(frame=np.ones((4, 4, 3), np.uint8), action=1, reward=2.0)
            >>> viewer.rollout.num_positions, viewer.rollout.rewards.tolist()
            (2, [2.0])
        """
        with self._lock:
            return self._episode.as_rollout()

    def card(self, name: str, t: int | None = None) -> Any:
        """What panel ``name``'s function returned at position ``t`` (by default the step
        shown): the value itself (the array of a bar chart, the figure), not its card.

        A value the view computed is cached and used; else the function is called now,
        in this thread's turn with the viewer's other panel calls, within the panel's
        ``timeout``.

        Raises:
            KeyError: the viewer has no panel ``name`` (the message names those it has).
            IndexError: ``t`` is not a position of the episode.
            TimeoutError: the call ran past the panel's ``timeout`` (it goes on; a later
                ``card`` gets its value once it returned).
            Exception: what the panel function raised, with its traceback.

        Examples:
            >>> import numpy as np
            >>> from agent_widget.viewer import EpisodeViewer
            >>> viewer = EpisodeViewer(np.zeros((3, 4, 4, 3), np.uint8))
            >>> viewer.add_panel("t squared", lambda step: step.t**2)
            >>> viewer.card("t squared", 2)
            4
        """
        with self._lock:
            length = self._episode.num_positions
            t = self.step if t is None else t
            if isinstance(t, bool) or not isinstance(t, int) or not -length <= t < length:
                raise IndexError(f"no position {t!r:.50}: the episode has 0 to {length - 1}")
            t %= length
        card = self._card(name, t)
        if card.returned is None:  # no result: no answer in time, or the panel was replaced
            if card.kind == "error":
                raise TimeoutError(f"panel {name!r} at step {t}: {card.meta['message']}")
            raise KeyError(f"panel {name!r} was removed or replaced while step {t} was computed")
        return card.returned.get()

    def compute_cards(self, t: int, names: Iterable[str]) -> None:
        """Compute the cards of panels ``names`` at position ``t`` now, unless cached, so
        that a view shows them at once (a checkpoint's episode prepared ahead)."""
        for name in names:
            self._card(name, t)

    def _card(self, name: str, t: int) -> Card:
        """Panel ``name``'s card at ``t``: cached, or computed now within its limit."""
        return self._panels.card_now(name, t)[1]

    def still(self, t: int, label: str = "", beside: bool = True) -> Image.Image:
        """Position ``t`` as a picture: the frame with the readout beside it (or below),
        under ``label``; for a saved copy."""
        with self._lock:
            frames = self._episode.frames
            frame = None if frames is None else frames[t]
            lines = _saved_copy.readout_lines(self._episode, t, self.readout)
            return _saved_copy.still(label, frame, lines, beside)

    def page_data(
        self,
        export: Export,
        start: int = 0,
        stop: int | None = None,
        skip_panels: Collection[str] = (),
    ) -> dict[str, Any]:
        """What a page needs of positions ``start .. stop - 1`` (see
        :mod:`agent_widget.viewer._page`): a viewer's page, or a child's part of one."""
        with self._lock:
            length = self._episode.num_positions
            start, stop = positions(start, stop, length)
            whole = (start, stop) == (0, length)
            episode = self._episode if whole else self._episode.section(start, stop)
            state = {name: getattr(self, name) for name in STATE_TRAITS}
            state.update(step=min(max(self.step - start, 0), stop - start - 1), length=stop - start)
            if not whole:
                state["title"] = f"{self.title} (steps {start} to {stop - 1})".strip()
            panels = exported_panels(self._panels.describe(), skip_panels)
            return episode_data(episode, state, panels, self._panels.card_now, export, start)

    def view_state(self) -> dict[str, Any]:
        """The traits a view reads, bytes as bytes: for a host that serves the viewer
        without a kernel (the TensorBoard plugin), whose view asks for everything else."""
        names = (*STATE_TRAITS, "series", "summary", "panels", "embedded")
        with self._lock:
            return {name: getattr(self, name) for name in names}

    def frame_height(self, start: int, stop: int) -> int:
        """The height of the first frame from ``start`` to ``stop - 1``, which sets a
        video's default scale (ValueError when there is none to film)."""
        with self._lock:
            return first_shape(self._episode, start, stop)[0]

    def video_column(
        self,
        start: int,
        stop: int,
        panels: bool | str | Sequence[str],
        options: Options,
        title: str = "",
    ) -> Column:
        """This episode's column in a video of positions ``start .. stop - 1``, the cards
        of ``panels`` beside it (see ``EpisodeViewer.save_video``), under ``title``."""
        names = beside(self._panels.describe(), panels, options.overlay)
        return Column(self._episode, self._panels, start, stop, names, options, self.readout, title)
