"""``CheckpointViewer``: a run's evaluation episodes across training, each with its own network.

One :class:`~agent_widget.viewer.EpisodeViewer` shows the episode of the checkpoint and
seed chosen (frames, timeline, readout, panels: the viewer's own machinery, nothing
drawn twice); this widget adds what spans checkpoints: the training-step control, the
seed chooser, the evaluation returns over training with the shown checkpoint marked,
and the first step where the shown checkpoint acts differently from the one before
(marked on the episode's timeline, with a button going there). Changing checkpoint or
seed swaps the episode viewer for the new episode's at the same episode step; a step
past the new episode's end shows its end and says so, and the step asked for is
remembered for the next longer episode.

Panels are functions of a network that return a panel, each episode's computed with
its own checkpoint's network (:mod:`agent_widget.checkpoints._network_panels`).

A few recent episodes' viewers are kept, so going back to a checkpoint just seen
costs no new frames. Live: with ``poll`` the run is read again every ``poll``
seconds (:meth:`CheckpointViewer.refresh`), and the checkpoints a training still
running writes appear; a checkpoint whose weights file is not written yet waits for
the next poll, so it never shows half. A viewer opened before the run's first
checkpoint (the cell after the one that starts the training) says there is none yet
and polls on its own, every :data:`EMPTY_RUN_POLL` seconds unless ``poll`` says
otherwise: the first checkpoint, and those after it, appear without running the cell
again.
"""

from __future__ import annotations

import os
import pathlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Collection, Sequence
from typing import Any

import gymnasium as gym
from PIL import Image

from agent_widget.checkpoints._checkpoint_traits import PAGE_TRAITS, CheckpointTraits
from agent_widget.checkpoints._checkpoints import Checkpoints
from agent_widget.checkpoints._network_panels import NetworkPanels, PanelMaker
from agent_widget.checkpoints._networks import DEFAULT_KEPT, Networks
from agent_widget.checkpoints._shown_run import (
    divergence_from_previous,
    mixed,
    one_env,
    page_episodes,
    run_title,
    shown_run,
)
from agent_widget.episodes import ActionNames, given_names
from agent_widget.library import RunLibrary
from agent_widget.panels import DEFAULT_TIMEOUT
from agent_widget.viewer import (
    DEFAULT_MAX_BYTES,
    AgentWidget,
    EpisodeViewer,
    Export,
    framed,
    page_state,
    render,
    sentence,
    written,
)

_STATIC = pathlib.Path(__file__).parent.parent / "static"
# Episode viewers kept for going back (each holds its episode's frames).
KEPT_EPISODES = 4
# Seconds between reads of a run that had no checkpoint when its viewer opened (and no
# poll was asked for): such a run is one a training is about to write. A read is a
# stat of run.json while there is none, then the read of run.json.
EMPTY_RUN_POLL = 1.0


class CheckpointViewer(CheckpointTraits, AgentWidget):
    """Step through a run's evaluation episodes, checkpoint by checkpoint.

    Args:
        checkpoints: a :class:`Checkpoints`, or a :class:`~agent_widget.library.RunLibrary`
            (or its folder) with ``run`` naming the run.
        run: the run's id, when ``checkpoints`` is a library.
        model: what the checkpoints' weights are loaded into for the panels: the SB3
            model that was trained (its policy's weights), a torch module, or a function
            returning a new module; None: no panels.
        kept: how many checkpoints' networks stay loaded.
        poll: seconds between reads of the run for new checkpoints (a training still
            running); None reads it only when :meth:`refresh` is called, unless the run
            has no checkpoint yet (its training just started): then every
            :data:`EMPTY_RUN_POLL` seconds.
        ahead: prepare the checkpoints beside the one shown (same seed) on a thread:
            their frames rendered, their viewers made, their networks loaded and their
            cards computed, so that the next or previous one shows at once; False spends
            nothing on checkpoints not asked for.
        render_env: as for :class:`Checkpoints`, when ``checkpoints`` is a library.
        action_names: names of the actions (as :class:`EpisodeViewer` takes them), over
            those the episodes (or ``checkpoints``) keep.
        title: text above the view; defaults to the run's algorithm, env and name
            ("DQN on CartPole-v1 · run dqn").
        **traits: ``checkpoint`` (an index into ``training_steps``, default the last)
            and ``seed`` (default the first, once there is one).

    Examples:
        >>> viewer = CheckpointViewer("runs/", "CartPole-v1/DQN/dqn", model=model)  # doctest: +SKIP
        >>> viewer.add_panel("Q", QValues)  # doctest: +SKIP
    """

    _esm = _STATIC / "checkpoints.js"
    _css = _STATIC / "checkpoints.css"

    def __init__(
        self,
        checkpoints: Checkpoints | RunLibrary | str | pathlib.Path,
        run: str | None = None,
        *,
        model: Any = None,
        kept: int = DEFAULT_KEPT,
        poll: float | None = None,
        ahead: bool = True,
        render_env: Callable[[], gym.Env[Any, Any]] | None = None,
        action_names: ActionNames | None = None,
        title: str | None = None,
        **traits: Any,
    ) -> None:
        # What close() needs, set first: a refused argument still closes the widget (__del__).
        self._lock = threading.RLock()
        self._timer: threading.Timer | None = None
        self._poll = poll
        self._episodes: OrderedDict[tuple[int, int], EpisodeViewer] = OrderedDict()
        self._shown_count = 0  # episodes shown so far: preparing ahead stops when it grows
        if not isinstance(checkpoints, Checkpoints):
            if run is None:
                raise ValueError("name the run to view: CheckpointViewer(library, run)")
            library = (
                checkpoints if isinstance(checkpoints, RunLibrary) else RunLibrary(checkpoints)
            )
            checkpoints = Checkpoints(library, run, render_env)
        self._action_names = given_names(action_names)
        if poll is not None and not 0 < poll < float("inf"):
            raise ValueError(f"poll must be a number of seconds > 0, got {poll}")
        self.checkpoints = checkpoints
        self.networks = None if model is None else Networks(checkpoints, model, kept)
        self._panels = NetworkPanels(self.networks, self._lock)
        self._ahead: threading.Thread | None = None  # what prepares the neighbours
        self._prepares_ahead = ahead
        self._wanted = 0  # the episode step asked for, kept across shorter episodes
        self._seed_given = "seed" in traits  # else the first seed, once the run has one
        one_env(checkpoints)
        self._read_run()
        steps = self.training_steps
        if not steps and poll is None:
            self._poll = EMPTY_RUN_POLL
        traits.setdefault("checkpoint", max(len(steps) - 1, 0))
        traits.setdefault("seed", self.seeds[0] if self.seeds else 0)
        super().__init__(title=run_title(checkpoints.run) if title is None else title, **traits)
        self._show()
        self.observe(lambda _: self._show(), names=["checkpoint", "seed"])
        self._schedule_poll()

    @property
    def training_step(self) -> int | None:
        """The training step of the checkpoint shown (None while there is none)."""
        steps = self.training_steps
        return steps[self.checkpoint] if steps else None

    def add_panel(
        self,
        name: str,
        make: PanelMaker,
        *,
        overlay: bool = False,
        precompute: bool = False,
        timeout: float | None = DEFAULT_TIMEOUT,
    ) -> None:
        """Show, for each episode, the card of ``make(network)``, the network being a copy
        of ``model`` holding that episode's checkpoint's weights.

        ``make`` is a panel class such as :class:`~agent_widget.torch.QValues` (called
        with the network) or any function of a network returning a function of a
        :class:`~agent_widget.panels.Step` (see :meth:`EpisodeViewer.add_panel`, whose
        other arguments these are). It is called once per checkpoint loaded.

        Examples:
            >>> viewer.add_panel("Q", QValues)  # doctest: +SKIP
            >>> viewer.add_panel("greedy", lambda net: lambda step: ...)  # doctest: +SKIP
        """
        with self._lock:
            self._panels.set(name, make, overlay, precompute, timeout)
            for (step, _), viewer in self._episodes.items():
                self._panels.add_to(viewer, step, name)

    def refresh(self) -> list[int]:
        """Read the run again; the training steps of the checkpoints added since. When the
        newest checkpoint was shown, the newest is shown now (following the training)."""
        with self._lock:
            following = self.checkpoint >= len(self.training_steps) - 1
            self.checkpoints.refresh()
            envs = self.checkpoints.env_ids()
            if len(envs) > 1:
                self.set_trait("message", mixed(envs) + ": checkpoints added since not shown")
                return []
            before = set(self.training_steps)
            self._read_run()
            shown = [step for step in self.training_steps if step not in before]
            with self.hold_trait_notifications():  # one episode shown for both changes
                if shown and not before and not self._seed_given:
                    self.seed = self.seeds[0]  # the first checkpoints: their first seed
                if shown and following:
                    self.checkpoint = len(self.training_steps) - 1
            if self.episode is None and self.training_steps:
                self._show()  # the first checkpoint at index 0, where the viewer was
            return shown

    def to_html(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        steps: Sequence[int] | None = None,
        seeds: Sequence[int] | None = None,
        skip_panels: Collection[str] = (),
        max_bytes: int = DEFAULT_MAX_BYTES,
        progress: bool = True,
    ) -> str | pathlib.Path:
        """The checkpoints as one self-contained HTML file: the returns chart, the
        training-step and seed controls, and the episode of each checkpoint and seed
        with its frames and every panel's card at every step, computed now with that
        checkpoint's network (see :meth:`EpisodeViewer.to_html`).

        Args:
            path: where to write the file (atomically); None returns the HTML.
            steps: the training steps of the checkpoints whose episodes the page holds
                (default: all); the chart shows every checkpoint's returns.
            seeds: the seeds whose episodes it holds (default: all).
            skip_panels: names of panels left out of the page.
            max_bytes: refuse (``ValueError``) a page larger than this; export fewer
                checkpoints or seeds instead.
            progress: show a progress bar.

        Examples:
            >>> viewer.to_html("dqn.html", steps=[10_000, 50_000])  # doctest: +SKIP
        """
        with self._lock:
            known = self.training_steps
            pairs = page_episodes(self.checkpoints, known, self.seeds, steps, seeds)
            state = {name: getattr(self, name) for name in PAGE_TRAITS}
        children: list[dict[str, Any]] = []
        episodes: dict[str, dict[str, Any]] = {}
        with Export(max_bytes, progress) as export:
            for step, seed in pairs:
                with self._lock:  # not while exporting: the panels' calls take it
                    viewer = self._viewer(step, seed)
                    if (step, seed) != (self.training_step, self.seed):
                        viewer.step = min(self._wanted, viewer.length - 1)
                skipped = [p["name"] for p in viewer.panels if p["name"] in skip_panels]
                episodes[f"{known.index(step)}/{seed}"] = {
                    "child": len(children),
                    "divergence": viewer.timeline_mark,
                }
                children.append(viewer.page_data(export, skip_panels=skipped))
        first = episodes.get(f"{state['checkpoint']}/{state['seed']}") or next(
            iter(episodes.values())
        )
        state["episode"] = f"IPY_MODEL_{first['child']}"
        data = {
            "widget": "checkpoints",
            "state": page_state(state),
            "children": children,
            "episodes": episodes,
        }
        # checkpoints.css holds widget.css (the episodes' stylesheet) too.
        return written(render(data, self.title or "checkpoints", ("checkpoints",)), path)

    def close(self) -> None:
        """Close the viewer, its episodes' viewers and stop polling."""
        with self._lock:
            self._poll = None
            self._shown_count += 1  # stops preparing ahead
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            for viewer in self._episodes.values():
                viewer.close()
            self._episodes.clear()
        super().close()

    def _read_run(self) -> None:
        """The steps, seeds and returns shown, read from the checkpoints again."""
        steps, seeds, lines = shown_run(self.checkpoints)
        with self.hold_trait_notifications():
            self.set_trait("training_steps", steps)
            self.set_trait("seeds", seeds)
            self.set_trait("returns", lines)

    def _show(self) -> None:
        """Show the episode of the chosen checkpoint and seed at the step asked for."""
        with self._lock:
            steps = self.training_steps
            if not steps:
                polling = "" if self._poll is None else f": looking every {self._poll:g} s"
                run = self.checkpoints.run
                self.set_trait("message", f"no checkpoint yet in run {run}{polling}")
                return
            if not 0 <= self.checkpoint < len(steps):
                self.checkpoint = min(max(self.checkpoint, 0), len(steps) - 1)
                return  # shown by the observer of the change just made
            step = steps[self.checkpoint]
            seeds = self.checkpoints.seeds(step)
            if self.seed not in seeds:
                self.set_trait(
                    "message",
                    f"seed {self.seed} was not evaluated at training step {step} "
                    f"(its seeds: {', '.join(map(str, seeds))})",
                )
                return
            try:
                viewer = self._viewer(step, self.seed)
            except Exception as error:  # said in the view, which keeps the episode it shows
                self.set_trait(
                    "message",
                    f"cannot show training step {step:,}, seed {self.seed}: "
                    f"{type(error).__name__}: {error}",
                )
                return
            divergence = viewer.timeline_mark
            last = viewer.length - 1
            viewer.step = min(self._wanted, last)
            note = ""
            if self._wanted > last:
                note = (
                    f"t = {self._wanted} is past the end of this episode: it ended at "
                    f"t = {last}, shown"
                )
            key = (step, self.seed)
            failure = self.checkpoints.failures.get(key) or self.checkpoints.unrendered.get(key)
            if failure:
                note = f"{note}; {failure}" if note else failure
            previous = self.episode
            with self.hold_trait_notifications():
                self.set_trait("divergence", divergence)
                self.set_trait("message", note)
                self.set_trait("episode", viewer)
            if previous is not None and previous not in self._episodes.values():
                previous.close()  # dropped from the kept ones while it was shown
            if self._prepares_ahead:
                self._prepare_ahead(self.checkpoint, self.seed)

    def _viewer(self, step: int, seed: int) -> EpisodeViewer:
        """The viewer of the episode of ``seed`` at ``step``: a kept one, or a new one
        with every panel; the least recently shown closed past :data:`KEPT_EPISODES`."""
        key = (step, seed)
        if key in self._episodes:
            self._episodes.move_to_end(key)
            return self._episodes[key]
        rollout = self.checkpoints.episode(step, seed)
        title = f"training step {step:,} · seed {seed}"
        viewer = EpisodeViewer(
            rollout,
            action_names=self._action_names,
            title=title,
            step=min(self._wanted, rollout.num_positions - 1),
            timeline_mark=divergence_from_previous(
                self.checkpoints, self.training_steps, self.training_steps.index(step), seed
            ),
        )
        for name in self._panels.names:
            self._panels.add_to(viewer, step, name)
        viewer.observe(self._on_episode_step, names=["step"])
        self._episodes[key] = viewer
        while len(self._episodes) > KEPT_EPISODES:
            _, old = self._episodes.popitem(last=False)
            if old is not self.episode:
                old.close()
        return viewer

    def _prepare_ahead(self, index: int, seed: int) -> None:
        """Make ready, on a thread, the episodes of the checkpoints beside ``index`` (same
        seed): their frames rendered by replay (~1.7 ms a CartPole step), their viewers
        made (kept, at the episode step asked for) and their cards there computed with
        their networks, so that stepping to the next or previous checkpoint only swaps
        the viewer shown. It stops when the user moves on."""
        steps = self.training_steps
        beside = [
            steps[i]
            for i in (index + 1, index - 1)
            if 0 <= i < len(steps) and seed in self.checkpoints.seeds(steps[i])
        ]
        self._shown_count += 1
        shown = self._shown_count

        def prepare() -> None:
            for step in beside:
                if shown != self._shown_count:
                    return  # the user moved on: prepare beside the new one instead
                try:
                    self.checkpoints.episode(step, seed)
                    with self._lock:
                        if shown != self._shown_count:
                            return
                        viewer = self._viewer(step, seed)
                        viewer.step = min(self._wanted, viewer.length - 1)
                        names = self._panels.names
                    viewer.compute_cards(viewer.step, names)
                except Exception:  # said when that checkpoint is shown, as it is asked again
                    return

        self._ahead = threading.Thread(target=prepare, name="checkpoints-ahead", daemon=True)
        self._ahead.start()

    def _on_episode_step(self, change: dict[str, Any]) -> None:
        """The user moved the episode's step: that is the step asked for from now on."""
        if change["owner"] is self.episode:
            self._wanted = int(change["new"])
            if self.message.startswith("t = "):
                self.set_trait("message", "")

    def _schedule_poll(self) -> None:
        with self._lock:
            if self._poll is None:
                return
            self._timer = threading.Timer(self._poll, self._on_poll)
            self._timer.daemon = True
            self._timer.start()

    def _on_poll(self) -> None:
        try:
            self.refresh()
        except Exception as error:  # a timer's exception is lost: say it, keep polling
            self.set_trait("message", f"could not read the run: {type(error).__name__}: {error}")
        self._schedule_poll()

    def _saved_text(self) -> str:
        step = self.training_step
        shown = (
            "no checkpoint yet"
            if step is None
            else f"training step {step:,}, seed {self.seed} of {len(self.training_steps)} "
            "checkpoints"
        )
        what = f"CheckpointViewer: {self.title}, {shown}"
        return sentence(what, "step through the checkpoints", page=False)

    def _saved_picture(self) -> Image.Image | None:
        episode = self.episode
        if episode is None:
            return None
        note = (
            f"A saved picture of step {episode.step} at training step {self.training_step:,}: "
            "run the cell to step through the checkpoints."
        )
        return framed([episode.still(episode.step)], f"{self.title} · {episode.title}", note)
