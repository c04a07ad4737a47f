"""``EpisodeViewer``: the anywidget that steps through an episode frame by frame.

Only small state travels as synced traits (the step, the length, the per-step series
for the timeline); frames travel on request, in chunks (see :mod:`agent_widget.viewer._transport`).
Here is what users call; its mixins hold the rest: its traits
(:mod:`agent_widget.viewer._viewer_traits`), its end of the wire
(:mod:`agent_widget.viewer._serving`) and the parts the widgets built of viewers use
(:mod:`agent_widget.viewer._viewer_parts`).
"""

from __future__ import annotations

import os
import pathlib
import threading
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np
from PIL import Image

from agent_widget.episodes import ActionNames, Rollout, kept_names
from agent_widget.format import ENCODINGS
from agent_widget.panels import (
    DEFAULT_CACHE_BYTES,
    DEFAULT_TIMEOUT,
    Panel,
    PanelDecorator,
    PanelRunner,
    Step,
    registered,
)
from agent_widget.viewer import _video
from agent_widget.viewer._base_widget import AgentWidget
from agent_widget.viewer._episode import ServedEpisode
from agent_widget.viewer._film import video_options
from agent_widget.viewer._given import as_rollout, frames_to_show, positions
from agent_widget.viewer._page import (
    DEFAULT_EMBED_BYTES,
    DEFAULT_MAX_BYTES,
    Export,
    first_chunks,
    render,
    written,
)
from agent_widget.viewer._playback import PlaybackChecks
from agent_widget.viewer._saved_copy import framed, sentence
from agent_widget.viewer._serving import ServesItsViews
from agent_widget.viewer._viewer_parts import ViewerParts

_STATIC = pathlib.Path(__file__).parent.parent / "static"


class EpisodeViewer(
    ViewerParts,
    ServesItsViews,
    PanelDecorator,
    PlaybackChecks,
    AgentWidget,
):
    """Step through an episode in a notebook: frame, slider, play/pause, timeline, readout.

    Args:
        episode: a :class:`Rollout`, or frames alone: an array ``(N, H, W, 3)``,
            ``(N, H, W, 4)`` or ``(N, H, W)``, or a list of such frames. A rollout
            without frames shows its observations when they are images (HxW, HxWx1,
            HxWx3 or HxWx4, uint8 or floats in [0, 1]), and otherwise only the readout.
        encoding: how frames held in memory are sent, ``"zlib-runs"`` (lossless,
            compact: the bytes that change between frames, deflated) or ``"raw"``.
            Frames loaded from a file travel as stored (a version-1 file's as
            zlib-runs, re-encoded a chunk at a time).
        extras: names of per-step extras of the rollout to draw on the timeline: shape
            ``(T,)`` as a line, ``(T, k)`` (k <= 8, e.g. a continuous action's mean) as
            k lines named ``name[i]``.
        action_names: names of the discrete actions, or of a continuous action's
            components (HalfCheetah's ``bthigh``, ...: the readout shows ``[bthigh
            0.1, ...]``); defaults to the rollout's ``metadata["agent_action_names"]``
            or ``metadata["action_names"]`` (what the env says, see
            :func:`agent_widget.record`). Of a
            multi-agent episode, a dict of them by agent names each agent's own; one
            list names the actions of every agent whose action space it fits (all of
            them where the agents share one space).
        title: text above the frame; defaults to the rollout's ``env_id``, ``algorithm``
            and ``agent`` (those its metadata has).
        panel_cache_bytes: bound of the cache of panel results (per viewer).
        embed_bytes: how much of the first frames the widget's state carries (the
            ``embedded`` trait), for notebooks saved with their widget state to show
            without a kernel (16 KiB: ~250 Pong steps; the first chunk goes up to
            256 KiB whatever the budget); 0 carries none. A saved notebook holds
            this for each viewer: raise it (``embed_bytes=2**20``) for one that
            should play further without a kernel, or share ``to_html()`` instead.
        full_series: send every step's series with the widget's state whatever the
            episode's length (a comparison's shared chart needs them); by default an
            episode of more than 4,096 steps sends a summary of its timeline instead, so
            its first frame does not wait for megabytes of series.
        **traits: initial values of the traits (:class:`ViewerTraits` documents each:
            ``step``, ``fps``, ``loop``, ``height``, ``scale``, ``readout``).

    Panels (:meth:`panel`, :meth:`add_panel`) show what Python computes for the
    current step beside the frame; those registered with
    :func:`agent_widget.panels.register` are included in every new viewer.

    Its output also holds a picture of the step shown when it was made (frame and
    readout) and a sentence, which a notebook saved without its widget state shows
    on GitHub, in an nbconvert page or untrusted (:mod:`agent_widget.viewer._saved_copy`).

    Examples:
        >>> viewer = EpisodeViewer(np.zeros((5, 4, 6, 3), np.uint8))
        >>> viewer.length, viewer.has_frames
        (5, True)
        >>> viewer.step = 99  # clamped to the last position
        >>> viewer.step
        4
    """

    _esm = _STATIC / "widget.js"
    _css = _STATIC / "widget.css"

    def __init__(
        self,
        episode: Rollout | np.ndarray | Sequence[Any],
        *,
        encoding: str = "zlib-runs",
        extras: Sequence[str] = (),
        action_names: ActionNames | None = None,
        title: str | None = None,
        panel_cache_bytes: int = DEFAULT_CACHE_BYTES,
        embed_bytes: int = DEFAULT_EMBED_BYTES,
        full_series: bool = False,
        **traits: Any,
    ) -> None:
        self._lock = threading.RLock()
        self._timer: threading.Timer | None = None
        self._synced_at = 0.0
        if encoding not in ENCODINGS:
            raise ValueError(f"unknown encoding {encoding!r} (known: {', '.join(ENCODINGS)})")
        if embed_bytes < 0:
            raise ValueError(f"embed_bytes must be >= 0, got {embed_bytes}")
        rollout = as_rollout(episode, encoding)
        if rollout.num_positions == 0:
            raise ValueError("the episode is empty: EpisodeViewer needs at least one position")
        names = kept_names(rollout.metadata) if action_names is None else action_names
        frames = frames_to_show(rollout, encoding)
        self._episode = ServedEpisode(rollout, frames, encoding, extras, names, full_series)
        self._panels = PanelRunner(
            self.step_at,
            lambda: self._episode.num_positions,
            lambda content, buffers: self.send(content, buffers),
            panel_cache_bytes,
        )
        for panel in registered():
            self._panels.set(panel)
        # Positions the front end has been sent (or can ask for); growth pushes the rest.
        self._pushed = self._episode.num_positions
        # Set before the widget opens its comm, so the first state the front end sees is whole.
        self.set_trait("length", self._episode.num_positions)
        self.set_trait("has_frames", self._episode.frames is not None)
        self._set_series()
        self.set_trait("embedded", first_chunks(self._episode, embed_bytes))
        self.set_trait("action_names", list(self._episode.action_names))
        self.set_trait("panels", self._panels.describe())
        if title is None:  # what was run: "Pong-v5 · dqn"
            named = (rollout.metadata.get(key) for key in ("env_id", "algorithm", "agent"))
            title = " · ".join(dict.fromkeys(str(name) for name in named if name))
        super().__init__(title=title, **traits)
        self.on_msg(self._on_message)

    def append(
        self,
        frame: Any = None,
        action: Any = None,
        reward: float | None = None,
        terminated: bool = False,
        truncated: bool = False,
        info: Mapping[str, Any] | None = None,
        obs: Any = None,
        extras: Mapping[str, Any] | None = None,
        *,
        agent: str | None = None,
        agents: Sequence[str] | None = None,
        agent_actions: Mapping[str, Any] | None = None,
        agent_rewards: Mapping[str, Any] | None = None,
        agent_terminated: Mapping[str, Any] | None = None,
        agent_truncated: Mapping[str, Any] | None = None,
        action_masks: Mapping[str, Any] | None = None,
    ) -> None:
        """Add one step while it happens: ``action`` earned ``reward`` (default 0) and
        led to ``frame``.

        The new position shows ``frame`` (or ``obs``, when the viewer shows image
        observations) and carries ``info``. If the user is at the last position, the
        view follows the new one. Works while the cell is still running.

        A viewer of a multi-agent (PettingZoo) episode takes each step's values per
        agent, as ``record()`` keeps them, and reads them out as it does a recorded
        step's: ``agent``, whose turn it was (an AEC env); ``agents``, those present as
        it began (``env.agents`` before ``env.step``; by default, those the values
        below name); and by agent ``agent_actions``, ``agent_rewards`` (PettingZoo's
        ``env.rewards`` after the step), ``agent_terminated``, ``agent_truncated`` and
        ``action_masks`` (the legal actions). ``action`` and ``reward`` then default to
        the acting agent's action and the agents' rewards summed.

        Examples:
            >>> viewer = EpisodeViewer([np.zeros((4, 4, 3), np.uint8)])
            >>> viewer.append(frame=np.ones((4, 4, 3), np.uint8), action=0, reward=1.0)
            >>> viewer.length
            2

            An AEC game's turn (``present = list(env.agents)`` before ``env.step(move)``)::

                viewer.append(frame=env.render(), agent=player, agents=present,
                              agent_actions={player: move}, agent_rewards=env.rewards,
                              agent_terminated=env.terminations)
        """
        per_agent = (agent_actions, agent_rewards, agent_terminated, agent_truncated, action_masks)
        columns = None
        if agent is not None or agents is not None or any(v is not None for v in per_agent):
            columns, acted, earned = self._episode.agent_step(
                agent, agents, *({} if values is None else values for values in per_agent)
            )
            action = acted if action is None else action
            reward = earned if reward is None else reward
        part = Rollout.from_arrays(
            frames=None if frame is None else [frame],
            observations=None if obs is None else np.asarray(obs)[None],
            actions=None if action is None else np.asarray(action)[None],
            rewards=[0.0 if reward is None else reward],
            terminated=[terminated],
            truncated=[truncated],
            infos=[info or {}],
            extras={name: np.asarray(value)[None] for name, value in (extras or {}).items()},
        )
        self.extend(part if columns is None else replace(part, agent_columns=columns))

    def add_panel(
        self,
        name: str,
        fn: Callable[[Step], Any],
        *,
        overlay: bool = False,
        precompute: bool = False,
        timeout: float | None = DEFAULT_TIMEOUT,
    ) -> None:
        """Show ``fn(step)`` for the current step as a card named ``name``.

        ``fn`` gets a :class:`~agent_widget.panels.Step` and returns what the card shows
        (see :mod:`agent_widget.panels._cards`): bars for a 1-D array or a dict of numbers, a
        heatmap for a 2-D array, an image, a matplotlib figure, text, or None. It runs
        on a worker thread, one panel at a time, so a slow one never stalls the frames.
        A panel of the same name is replaced, with its cached results and error card.

        Args:
            name: the card's title.
            fn: the panel function.
            overlay: draw a 2-D map (or an image) over the frame, resized to it.
            precompute: once the viewer is shown, compute every step in the background
                so that scrubbing shows results at once.
            timeout: seconds a call may run (None: no limit); a call still running then
                is left to finish on its own, its card says "no answer after N s", and
                the other panels and exports go on without it.

        Examples:
            >>> viewer = EpisodeViewer(np.zeros((3, 4, 4, 3), np.uint8))
            >>> viewer.add_panel("notes", lambda step: f"t = {step.t}")
            >>> viewer.remove_panel("notes")
        """
        self._panels.set(Panel(name, fn, overlay, precompute, timeout))
        self.set_trait("panels", self._panels.describe())

    def remove_panel(self, name: str) -> None:
        """Remove panel ``name``; KeyError naming the panels when there is none."""
        self._panels.remove(name)
        self.set_trait("panels", self._panels.describe())

    def extend(self, part: Rollout) -> None:
        """Add the steps of ``part``, the episode's continuation, while they happen.

        ``part`` holds one frame per action, the frame after it (``n == T``). A part
        with one position more than actions (``n == T + 1``, e.g. from ``record()``)
        starts at this episode's last position, which is not repeated.
        """
        with self._lock:
            self._episode.extend(part)
            self._panels.grew()
            self._schedule_sync()

    def to_html(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        start: int = 0,
        stop: int | None = None,
        skip_panels: Collection[str] = (),
        max_bytes: int = DEFAULT_MAX_BYTES,
        progress: bool = True,
    ) -> str | pathlib.Path:
        """The viewer as one self-contained HTML file, to share with people without a kernel.

        The page has the same viewer (frame, slider, keys, play, timeline, readout,
        cards, overlays) and needs no network: the front end, the frames as stored
        and every panel's card at every step are inside it. Panels are computed
        beforehand, so this takes as long as computing each of them for each step
        (a panel that raises keeps its error card).

        Args:
            path: where to write the file (atomically); None returns the HTML.
            start: the first position exported (default: 0). The page numbers the
                positions from 0.
            stop: the position after the last one exported (default: the end).
            skip_panels: names of panels left out of the page.
            max_bytes: refuse (``ValueError``) a page larger than this, e.g. a long
                episode of large frames; export a range of steps instead.
            progress: show a progress bar.

        Returns:
            The HTML text, or the path written.

        Examples:
            >>> viewer = EpisodeViewer(np.zeros((3, 4, 4, 3), np.uint8))
            >>> viewer.to_html(progress=False)[:15]
            '<!doctype html>'
        """
        with Export(max_bytes, progress) as export:
            data = self.page_data(export, start, stop, skip_panels)
        return written(render(data, data["state"]["title"] or "episode"), path)

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
        """Film positions ``start .. stop - 1`` as an MP4 or a GIF, for slides and papers.

        Each video frame is the episode's frame, enlarged by ``scale``, with the overlay
        panels drawn over it as the page draws them, the step counter above it, and,
        as asked, the readout below it, a timeline strip at the bottom and the cards of
        ``panels`` beside it. Text and cards grow with the frame (at most twice their
        size on the page); a caption too long for its card is wrapped, never cut. The
        file appears only once it is whole (written under a temporary name).

        Args:
            path: a file name ending in ``.mp4`` (H.264; needs
                ``pip install "agent-widget[video]"``) or ``.gif`` (Pillow; plays at
                most 50 fps, in steps of 1/100 s).
            start: the first position filmed.
            stop: the position after the last one filmed; None films to the end.
            fps: frames per second of the video; None takes the viewer's ``fps``.
            scale: how much larger than its pixels the frame is filmed: a whole number
                repeats each pixel (pixel art stays crisp), another is smooth. None:
                the smallest whole factor that makes the frame at least 400 px tall
                (Pong's 210 px: 2; a 480 px render: 1).
            step_counter: write ``t = 12 / 200`` above the frame, as the readout does.
            readout: write the readout's lines (action, reward, return, end flags,
                info) below the frame.
            timeline: draw a strip of the filmed range at the bottom: each step's
                reward as a bar, the return as a line, and a cursor at the step.
            panels: cards drawn to the right of the frame, each with its title: True
                for every panel not drawn over the frame, or a panel's name or a list
                of names; False for none.
            overlay: draw the overlay panels' maps and images over the frame.
            progress: show a progress bar.

        Returns:
            The path written.

        Examples:
            >>> viewer = EpisodeViewer(np.zeros((40, 64, 64, 3), np.uint8))
            >>> import tempfile
            >>> path = pathlib.Path(tempfile.mkdtemp()) / "clip.gif"
            >>> viewer.save_video(path, start=5, stop=25, fps=10, progress=False).name
            'clip.gif'
        """
        fps = self.fps if fps is None else fps
        path = _video.checked_video(path, fps)
        with self._lock:
            start, stop = positions(start, stop, self._episode.num_positions)
            options = video_options(
                scale,
                self.frame_height(start, stop),
                step_counter=step_counter,
                readout=readout,
                timeline=timeline,
                overlay=overlay,
            )
            column = self.video_column(start, stop, panels, options)
            shots = ([(t, False)] for t in range(start, stop))
            return _video.film(path, fps, [column], shots, stop - start, progress)

    def close(self) -> None:
        """Close the widget (its layout too), its panel worker and a pending live-growth
        update."""
        panels = getattr(self, "_panels", None)  # None when __init__ failed (from __del__)
        if panels is not None:
            panels.close()
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
        super().close()

    def _saved_text(self) -> str:
        title = f": {self.title}" if self.title else ""
        what = f"EpisodeViewer{title}, step {self.step} of 0 to {self.length - 1}"
        return sentence(what, "step through the episode")

    def _saved_picture(self) -> Image.Image:
        note = f"A saved picture of step {self.step}: run the cell to step through the episode."
        return framed([self.still(self.step)], self.title, note)
