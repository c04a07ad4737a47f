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
  last ``window`` episodes;
- on the timeline: as "rewards", the returns of the episodes since the previous
  position (so the "return" line is the total return of training so far; the legend
  names them so), and the moving average and success rate as lines. Following the
  step convention, these sit on the interval that leads to the position.

Why positions are taken at most every ``interval`` seconds (0.25 by default): a
new position costs milliseconds (drawing its value map, then encoding it for the
live update) while a tabular episode takes about one, so
drawing every snapshot would slow training several times over. ``snapshot()``
therefore only keeps the table (a few microseconds, in
:attr:`TrainingViewer.snapshots`, every one of them), and a new position shows the
newest snapshot once ``interval`` has passed since the last. ``interval=0`` gives
every snapshot its own position. The measured cost is in benchmarks/RESULTS.md.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

import gymnasium as gym
import ipywidgets
import numpy as np
from IPython.display import display

from agent_widget.agents import greedy_policy
from agent_widget.episodes import Rollout, record
from agent_widget.format import ArrayFrames
from agent_widget.gridworld._snapshots import DEFAULT_TOLERANCE, Snapshots
from agent_widget.gridworld._value_map import ValueMap
from agent_widget.viewer import EpisodeViewer

EXTRAS = ("moving average", "success rate")
# The timeline's bars are the returns of the episodes between two positions, its line their sum.
TIMELINE_NAMES = {"reward": "episode returns", "return": "total return", "steps": "positions"}
# Small frames: the viewer upscales them pixel-sharp, and each new frame is compressed
# for the live update, a cost that grows with its size.
CELL_SIZE = 20
INTERVAL = 0.25  # seconds between new positions while training runs


def reached_goal(ret: float) -> bool:
    """FrozenLake's success: only the goal pays, so any positive return is a success."""
    return ret > 0


class TrainingViewer(ipywidgets.VBox):
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
    ) -> None:
        self._lock = threading.Lock()  # snapshots and the running sums
        self._timer: threading.Timer | None = None
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
        self._extras = EXTRAS if success is not None else EXTRAS[:1]
        self._recent: deque[float] = deque(maxlen=int(window))
        self._since = 0.0  # total return of the episodes since the last position
        self._positions = [-1]  # the snapshot each position shows; -1 the initial table
        self._infos: list[dict[str, Any]] = [{"episode": None, "note": "before training"}]
        self._newest: tuple[int, float | None] = (-1, None)  # episode and return of the newest
        self._show_lock = threading.Lock()  # one new position at a time, in order
        self._shown_at = 0.0
        self.timeline = EpisodeViewer(
            Rollout.from_arrays(
                frames=[self.value_map.image(self._initial)],
                infos=self._infos,
                extras={name: np.zeros(0) for name in self._extras},
                metadata={"env_id": _env_id(env)},
            ),
            extras=self._extras,
            title=f"{self._title} · training",
            readout="info",
            timeline_names=TIMELINE_NAMES,
            timeline_rates=["success rate"],
            timeline_smoothing=0.6,
        )
        self._play_button = ipywidgets.Button(
            description="Play greedy policy",
            tooltip="Record one episode with the greedy policy of the snapshot shown",
        )
        self._play_button.on_click(lambda _: self._play_shown())
        self._played = ipywidgets.Output()
        super().__init__([self.timeline, self._play_button, self._played])

    def snapshot(self, q_table: Any, episode: int | None = None, ret: float | None = None) -> None:
        """Keep ``q_table`` (copied) as it is after ``episode``, which returned ``ret``.

        Cheap enough to call after every episode (a few microseconds): the view draws
        the newest snapshot at most every ``interval`` seconds. Its signature is the
        ``train(callback=...)`` one of the reference agents.
        """
        ret = None if ret is None else float(ret)
        with self._lock:
            self.snapshots.append(q_table, episode=episode, ret=ret)
            self._newest = (len(self.snapshots) - 1 if episode is None else int(episode), ret)
            if ret is not None:
                self._since += ret
                self._recent.append(ret)
        wait = self._shown_at + self.interval - time.monotonic()
        if wait <= 0 and self._show_lock.acquire(blocking=False):
            try:
                self._show_newest()
            finally:
                self._show_lock.release()
        else:
            self._show_later(max(wait, 0.0))

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
        self, position: int | None = None, seed: int | None = None, max_steps: int = 1_000
    ) -> EpisodeViewer:
        """Record one episode of the greedy policy of ``position`` (default: the one shown).

        The episode is played in ``env`` itself, so call this between training runs.
        Its frames are the env's own when it renders ``rgb_array``, else value maps
        with the agent ringed; a "values" panel shows the value map at every step.
        """
        position = self.timeline.step if position is None else int(position)
        table = self.table(position)
        rollout = record(self.env, greedy_policy(table, seed), seed=seed, max_steps=max_steps)
        if rollout.frames is None:
            states = np.asarray(rollout.observations)
            maps = [self.value_map.image(table, int(state)) for state in states]
            rollout = dataclasses.replace(rollout, frames=ArrayFrames(maps))
        episode = self._infos[position]["episode"]
        title = f"{self._title} · greedy policy at position {position}"
        if episode is not None:
            title += f" (after episode {episode})"
        viewer = EpisodeViewer(rollout, title=title)
        # The frames' colour scale: the card's colours mean what the map's do.
        values = ValueMap(self.value_map.layout, table, value_range=self.value_map.value_range)
        viewer.add_panel("values", values)
        return viewer

    def info(self, position: int) -> dict[str, Any]:
        """What the readout shows of ``position``: episode, return, moving average, ..."""
        return dict(self._infos[position])

    def close(self) -> None:
        """Close the viewer and cancel a pending new position."""
        with self._lock:
            timer, self._timer = self._timer, None
        if timer is not None:
            timer.cancel()
        for child in self.children:  # none when __init__ refused its arguments
            child.close()
        super().close()

    def _show_later(self, wait: float) -> None:
        """Make sure the newest snapshot gets a position once ``wait`` seconds have passed."""
        with self._lock:
            if self._timer is None:
                self._timer = threading.Timer(wait, self._on_timer)
                self._timer.daemon = True
                self._timer.start()

    def _on_timer(self) -> None:
        with self._lock:
            self._timer = None
        with self._show_lock:
            self._show_newest()

    def _show_newest(self) -> None:
        """Add a position showing the newest snapshot, unless it is shown already."""
        with self._lock:
            k = len(self.snapshots) - 1
            if k <= self._positions[-1]:
                return
            table = self.snapshots[k]
            info = self._newest_info()
            since, self._since = self._since, 0.0
            self._shown_at = time.monotonic()
        frame = self.value_map.image(table)
        extras = {name: info[name] for name in self._extras}
        self.timeline.append(frame=frame, reward=since, info=info, extras=extras)
        self._positions.append(k)
        self._infos.append(info)

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

    def _play_shown(self) -> None:
        """The button: play the shown position's greedy policy, below the timeline."""
        with self._played:
            self._played.clear_output()
            display(self.play())


def _env_id(env: gym.Env[Any, Any]) -> str | None:
    spec = getattr(env, "spec", None)
    return None if spec is None else str(spec.id)
