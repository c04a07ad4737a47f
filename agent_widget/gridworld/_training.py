"""``TrainingViewer``: watch a tabular agent learn, live, then scrub back through training.

Built on :class:`~agent_widget.viewer.EpisodeViewer`: its positions are training
snapshots instead of env steps, its frames the value maps of those snapshots, and
its timeline the learning curve. Live growth, pushing new frames while the training
cell still runs, following the newest position unless the user scrubbed back: all
of that is EpisodeViewer's own machinery.

What a position holds:

- its frame: the value map and greedy policy of the snapshot (:class:`ValueMap`);
- its info (the readout): the episode after which the snapshot was taken, that
  episode's return, the moving average of returns and the success rate over the
  last ``window`` episodes.

The learning curve is not drawn over the positions, whose number depends on the
machine's pace, but over the episodes (``curve``, :mod:`._curve`): each episode's
return a point of its own, the moving average and success rate as lines, the
positions marked as the points of it they show. The front end draws it with the
viewer's timeline in place of the positions' strip; clicking it goes to the last
position at or before the episode clicked.

Why positions are taken at most every ``interval`` seconds (0.25 by default): a
new position costs milliseconds (drawing its value map, then encoding it for the
live update) while a tabular episode takes about one, so
drawing every snapshot would slow training several times over. ``snapshot()``
therefore only keeps the table (a few microseconds, in
:attr:`TrainingViewer.snapshots`, every one of them), and a new position shows the
newest snapshot once ``interval`` has passed since the last. ``interval=0`` gives
every snapshot its own position. The measured cost is in benchmarks/RESULTS.md.

Why the frames hold no text: a frame is drawn small (``cell_size`` pixels a cell) so
that a live update stays cheap, and the viewer scales it up pixel by pixel, which
would turn letters into blocks. So a frame is the grid alone (:meth:`ValueMap.grid`),
and this widget's front end writes the cells' letters over it and draws the colour
bar beside it, as text at the screen's pixel ratio in the theme's colours, from the
scale's ends of each position (``scales``, 16 bytes a position).

An anywidget of its own, not an ipywidgets box: its front end draws its timeline and
played episode from their models (js/shared/children.ts), so it shows wherever
anywidget does, marimo's ``mo.ui.anywidget`` included.
"""

from __future__ import annotations

import dataclasses
import pathlib
import threading
from collections import deque
from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np
import traitlets
from IPython import get_ipython
from ipywidgets import widget_serialization
from PIL import Image

from agent_widget.agents import greedy_policy
from agent_widget.episodes import Rollout
from agent_widget.format import ArrayFrames
from agent_widget.gridworld._curve import LearningCurve
from agent_widget.gridworld._snapshots import DEFAULT_TOLERANCE, Snapshots
from agent_widget.gridworld._throttle import Throttle
from agent_widget.gridworld._value_map import ValueMap
from agent_widget.panels import LUT, format_number
from agent_widget.recording import record
from agent_widget.viewer import (
    AgentWidget,
    EpisodeViewer,
    framed,
    sentence,
    still,
)

# The positions' own strip is hidden (the curve is drawn in episodes); it names them still.
TIMELINE_NAMES = {"steps": "positions"}
# Small frames: the viewer upscales them pixel-sharp, and each new frame is compressed
# for the live update, a cost that grows with its size.
CELL_SIZE = 20
INTERVAL = 0.25  # seconds between new positions while training runs
PLAY_STEPS = 1_000  # at most, in an episode played
# Seconds between sends of ``scales`` and ``curve`` (all of each every time), as the
# timeline sends its new positions: a send per position or episode would grow as their
# square. A long curve waits longer, for at most this many bytes a second on the wire.
SCALES_INTERVAL = 0.1
CURVE_BYTES_PER_SECOND = 2_000_000
_STATIC = pathlib.Path(__file__).parent.parent / "static"


def reached_goal(ret: float) -> bool:
    """FrozenLake's success: only the goal pays, so any positive return is a success."""
    return ret > 0


class TrainingViewer(AgentWidget):
    """The value map and greedy policy of a tabular agent over training, live.

    Args:
        env: the grid world trained in (see :class:`ValueMap` for the envs it draws).
        q_table: the table before training, position 0; zeros by default.
        interval: seconds between new positions while snapshots come faster; 0 gives
            every snapshot a position (exact, but drawing each one costs milliseconds).
        window: episodes in the moving average and the success rate.
        success: ``return -> bool``, whether an episode succeeded; by default a positive
            return (FrozenLake's goal). None leaves the success rate out.
        value_range: fixed ends of the colour scale, e.g. ``(0, 1)`` on FrozenLake, so
            that colours compare across training; by default each map's own range.
        cell_size: pixels per cell of the value maps.
        tolerance: the error bound of the kept snapshots (see :class:`Snapshots`).
        algorithm: what learns (e.g. ``"SARSA"``), named in the titles beside the env.
        x: the learning curve's x-axis, ``"episodes"`` or ``"steps"`` (env steps: each
            episode a point at the steps taken by its end; each snapshot then says how
            many, as the reference agents' ``train()`` does).

    Attributes:
        snapshots: every snapshot taken, for saving (``viewer.snapshots.save(path)``).
        timeline: the EpisodeViewer over the positions (``step``, ``panel()``, ...).
        value_map: the :class:`ValueMap` that draws the frames.

    Examples:
        >>> from agent_widget.agents import QLearning
        >>> env = gym.make("FrozenLake-v1", map_name="4x4")
        >>> viewer = TrainingViewer(env, interval=0)
        >>> returns = QLearning(env, seed=0).train(20, callback=viewer.snapshot)
        >>> len(viewer.snapshots), viewer.num_positions
        (20, 21)
    """

    _esm = _STATIC / "training.js"
    _css = _STATIC / "training.css"

    timeline = traitlets.Instance(
        EpisodeViewer, read_only=True, help="EpisodeViewer. The positions, shown first."
    ).tag(sync=True, **widget_serialization)
    played = traitlets.Instance(
        EpisodeViewer,
        allow_none=True,
        read_only=True,
        help="EpisodeViewer | None. The episode the Play button recorded last, shown below.",
    ).tag(sync=True, **widget_serialization)
    grid = traitlets.Dict(
        read_only=True, help='dict. The frames\' grid: {"rows", "cols", "cell"} (pixels a cell).'
    ).tag(sync=True)
    labels = traitlets.List(
        traitlets.Dict(),
        read_only=True,
        help='list[dict]. Letters written over cells: {"row", "col", "text", "corner"}.',
    ).tag(sync=True)
    lut = traitlets.Bytes(
        read_only=True, help="bytes. The colour scale: 256 RGB colours, low to high."
    ).tag(sync=True)
    scales = traitlets.Bytes(
        read_only=True,
        help="bytes. Each position's colour scale ends, (low, high) as little-endian float64.",
    ).tag(sync=True)
    played_scale = traitlets.Bytes(
        read_only=True,
        help="bytes. The played episode's colour scale ends (low, high) as little-endian "
        "float64 when its frames are value maps, else empty.",
    ).tag(sync=True)
    curve = traitlets.Dict(
        key_trait=traitlets.Unicode(),
        value_trait=traitlets.Bytes(),
        read_only=True,
        help="dict[str, bytes]. The learning curve, a point an episode (LearningCurve.series).",
    ).tag(sync=True)
    message = traitlets.Unicode(
        "", read_only=True, help="str. Why the last Play failed, or empty."
    ).tag(sync=True)

    def __init__(
        self,
        env: gym.Env[Any, Any],
        q_table: np.ndarray | None = None,
        *,
        interval: float = INTERVAL,
        window: int = 100,
        success: Callable[[float], bool] | None = reached_goal,
        value_range: tuple[float, float] | None = None,
        cell_size: int = CELL_SIZE,
        tolerance: float = DEFAULT_TOLERANCE,
        algorithm: str = "",
        x: str = "episodes",
    ) -> None:
        self._lock = threading.Lock()  # snapshots and the running sums
        self._scales = bytearray()  # what ``scales`` holds, grown a position at a time
        self._shows = Throttle(self._show_newest, lambda: self.interval)
        # A long curve waits longer between sends (9 bytes an episode), for a bounded rate.
        self._sends = Throttle(
            self._send_now,
            lambda: max(SCALES_INTERVAL, 9 * len(self._curve) / CURVE_BYTES_PER_SECOND),
        )
        if not 0 <= interval < float("inf"):
            raise ValueError(f"interval must be a number of seconds >= 0, got {interval}")
        if int(window) < 1:
            raise ValueError(f"window must be at least 1 episode, got {window}")
        self.env = env
        env_name = _env_id(env) or type(env.unwrapped).__name__
        self._title = " · ".join(filter(None, [env_name, algorithm]))
        self.value_map = ValueMap(env, value_range=value_range, cell_size=cell_size)
        layout = self.value_map.layout
        initial = np.zeros((layout.num_states, len(layout.moves))) if q_table is None else q_table
        self._initial = np.array(initial, dtype=np.float64)
        self.interval = float(interval)
        self.success = success
        self.snapshots = Snapshots(tolerance, metadata={"env_id": _env_id(env)})
        self._curve = LearningCurve(int(window), success, x)
        self._recent: deque[float] = deque(maxlen=int(window))
        self._positions = [-1]  # the snapshot each position shows; -1 the initial table
        self._infos: list[dict[str, Any]] = [{"episode": None, "note": "before training"}]
        self._newest: tuple[int, float | None] = (-1, None)  # episode and return of the newest
        frame, scale = self.value_map.grid(self._initial)
        self._scales += _packed(scale)
        timeline = EpisodeViewer(
            Rollout.from_arrays(
                frames=[frame],
                infos=self._infos,
                metadata={"env_id": _env_id(env)},
            ),
            title=f"{self._title} · training",
            readout="info",
            timeline_names=TIMELINE_NAMES,
            timeline_smoothing=0.6,  # the learning curve's: raw faint, smoothed bold
        )
        rows, cols = layout.shape
        # Set before the widget opens its comm, so that its first state carries them.
        self.set_trait("timeline", timeline)
        self.set_trait("grid", {"rows": rows, "cols": cols, "cell": self.value_map.cell_size})
        self.set_trait(
            "labels",
            [
                {"row": r, "col": c, "text": text, "corner": corner}
                for r, c, text, corner in self.value_map.labels
            ],
        )
        self.set_trait("lut", LUT.tobytes())
        self.set_trait("scales", bytes(self._scales))
        self.set_trait("curve", self._curve.series())
        super().__init__()
        self.on_msg(self._on_message)
        shell = get_ipython()
        if shell is not None:  # marimo has none: its cells' ends need no flush
            shell.events.register("post_run_cell", self._at_cell_end)

    def snapshot(
        self,
        q_table: Any,
        episode: int | None = None,
        ret: float | None = None,
        steps: int | None = None,
    ) -> None:
        """Keep ``q_table`` (copied) as it is after ``episode``, which returned ``ret``
        by ``steps`` env steps since training began (a curve in steps needs them).

        Cheap enough to call after every episode (a few microseconds): the view draws
        the newest snapshot at most every ``interval`` seconds. Its signature is the
        ``train(callback=...)`` one of the reference agents.
        """
        ret = None if ret is None else float(ret)
        with self._lock:
            self._curve.add(ret, steps)  # first: it refuses a curve in steps without them
            self.snapshots.append(q_table, episode=episode, ret=ret)
            self._newest = (len(self.snapshots) - 1 if episode is None else int(episode), ret)
            if ret is not None:
                self._recent.append(ret)
        self._sends.soon()
        self._shows.soon()

    @property
    def num_positions(self) -> int:
        """Positions on the timeline: the table before training and the snapshots shown.

        The front end learns of new ones at the viewer's next update, 0.1 s later at most.
        """
        return len(self._positions)

    def table(self, position: int) -> np.ndarray:
        """The Q-table shown at timeline ``position`` (within the snapshots' tolerance)."""
        if not 0 <= position < len(self._positions):
            raise IndexError(f"position {position} out of range: there are {len(self._positions)}")
        k = self._positions[position]
        if k < 0:
            return self._initial.copy()
        with self._lock:  # training may be appending meanwhile
            return self.snapshots[k]

    def play(
        self, position: int | None = None, seed: int | None = None, max_steps: int = PLAY_STEPS
    ) -> EpisodeViewer:
        """Record one episode of the greedy policy of ``position`` (default: the one shown).

        The episode is played in ``env`` itself, so call this between training runs.
        Its frames are the env's own when it renders ``rgb_array``, else value maps
        with the agent ringed; a "values" panel shows the value map at every step.
        """
        return self._play(position, seed, max_steps, lettered=True)[0]

    def _play(
        self, position: int | None, seed: int | None, max_steps: int, *, lettered: bool
    ) -> tuple[EpisodeViewer, tuple[float, float] | None]:
        """:meth:`play`, its value maps drawn with their letters and colour bar or, for this
        widget's front end to write them (``lettered=False``), as grids; with the grids'
        scale ends (None when the frames are the env's own)."""
        position = self.timeline.step if position is None else int(position)
        table = self.table(position)
        rollout = record(self.env, greedy_policy(table, seed), seed=seed, max_steps=max_steps)
        scale = None
        if rollout.frames is None:
            states = np.asarray(rollout.observations).astype(int).tolist()
            if lettered:
                maps = [self.value_map.image(table, state) for state in states]
            else:
                grids = [self.value_map.grid(table, state) for state in states]
                maps, scale = [grid for grid, _ in grids], grids[0][1]
            rollout = dataclasses.replace(rollout, frames=ArrayFrames(maps))
        episode = self._infos[position]["episode"]
        title = f"{self._title} · greedy policy at position {position}"
        if episode is not None:
            title += f" (after episode {episode})"
        viewer = EpisodeViewer(rollout, title=title)
        # The frames' colour scale: the card's colours mean what the map's do.
        values = ValueMap(self.value_map.layout, table, value_range=self.value_map.value_range)
        viewer.add_panel("values", values)
        return viewer, scale

    def info(self, position: int) -> dict[str, Any]:
        """What the readout shows of ``position``: episode, return, moving average, ..."""
        return dict(self._infos[position])

    def close(self) -> None:
        """Close the viewer, its timeline and played episode, and cancel a pending new position."""
        self._shows.cancel()
        self._sends.cancel()
        shell = get_ipython()
        if shell is not None and self._at_cell_end in shell.events.callbacks["post_run_cell"]:
            shell.events.unregister("post_run_cell", self._at_cell_end)
        # Neither is there when __init__ refused its arguments.
        for name in ("timeline", "played"):
            child = getattr(self, name) if self.trait_has_value(name) else None
            if child is not None:
                child.close()
        super().close()

    def _at_cell_end(self, *_result: Any) -> None:
        """The newest snapshot shown and everything sent as a cell ends, not from timers
        after it: ``nbconvert --execute`` saves the widget state as the cell ends, and a
        saved copy shows the trained table, not a position drawn before the last."""
        self._shows.flush()
        self._sends.flush()
        self.timeline.flush()

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        self._at_cell_end()  # the saved picture of a viewer shown after training: its last table
        return super()._repr_mimebundle_(**kwargs)

    def _show_newest(self) -> None:
        """Add a position showing the newest snapshot, unless it is shown already."""
        with self._lock:
            k = len(self.snapshots) - 1
            if k <= self._positions[-1]:
                return
            table = self.snapshots[k]
            info = self._newest_info()
        frame, scale = self.value_map.grid(table)
        with self._lock:
            self._scales += _packed(scale)
            self._curve.sample(k + 1)  # the snapshot after k + 1 episodes
        self._sends.soon()  # before the frame: the front end writes its scale as it paints it
        self.timeline.append(frame=frame, reward=0.0, info=info)
        self._positions.append(k)
        self._infos.append(info)

    def _send_now(self) -> None:
        with self._lock:
            scales = bytes(self._scales)
            curve = self._curve.series()
        with self.hold_sync():
            self.set_trait("scales", scales)
            self.set_trait("curve", curve)

    def _newest_info(self) -> dict[str, Any]:
        """The newest snapshot's readout (lock held): its episode, return, running figures."""
        episode, ret = self._newest
        recent = list(self._recent)
        info: dict[str, Any] = {
            "episode": episode,
            "return": ret,
            "moving average": float(np.mean(recent)) if recent else 0.0,
        }
        if self.success is not None:
            successes = [bool(self.success(r)) for r in recent]
            info["success rate"] = float(np.mean(successes)) if successes else 0.0
        return info

    def _saved_text(self) -> str:
        position = self.timeline.step
        what = f"TrainingViewer: {self.timeline.title}, snapshot {position} of 0 to "
        return sentence(f"{what}{self.num_positions - 1}", "watch the agent learn", page=False)

    def _saved_picture(self) -> Image.Image:
        """The shown snapshot's value map as drawn whole (its letters and colour bar in
        pixels: a saved picture is not enlarged), with the readout below it."""
        position = self.timeline.step
        lines = [
            f"{key}: {format_number(value) if isinstance(value, float) else value}"
            for key, value in self.info(position).items()
        ]
        value_map = still("", self.value_map.image(self.table(position)), lines, beside=True)
        note = f"A saved picture of snapshot {position}: run the cell to watch the agent learn."
        return framed([value_map], self.timeline.title, note)

    def _on_message(self, _widget: object, content: Any, _buffers: object) -> None:
        """The Play button: record the shown position's greedy policy, shown below."""
        if not isinstance(content, dict) or content.get("type") != "play":
            return
        self.set_trait("message", "")  # so that the same failure again is a change, said again
        try:
            played, scale = self._play(None, None, PLAY_STEPS, lettered=False)
        except Exception as error:  # a message handler's exception is lost: show it
            self.set_trait("message", f"could not play: {type(error).__name__}: {error}")
            return
        previous = self.played
        ends = b"" if scale is None else _packed(scale)
        self.set_trait("played_scale", ends)  # before the viewer, which the front end then labels
        self.set_trait("played", played)
        if previous is not None:
            previous.close()


def _packed(scale: tuple[float, float]) -> bytes:
    """A colour scale's ends as the front end reads them: two little-endian float64."""
    return np.array(scale, "<f8").tobytes()


def _env_id(env: gym.Env[Any, Any]) -> str | None:
    spec = getattr(env, "spec", None)
    return None if spec is None else str(spec.id)
