"""``EpisodeViewer``: the anywidget that steps through an episode frame by frame.

Only small state travels as synced traits (the step, the length, the per-step series
for the timeline); frames travel on request, in chunks (see :mod:`agent_widget.transport`).
"""

from __future__ import annotations

import pathlib
import threading
import time
from collections.abc import Mapping, Sequence
from typing import Any

import anywidget
import numpy as np
import traitlets

from agent_widget.frames import CHUNK_SIZE, ENCODINGS, ArrayFrames, Frames
from agent_widget.rollout import Rollout
from agent_widget.transport import Message, action_text, answer, growth_push, pack_series

_STATIC = pathlib.Path(__file__).parent / "static"
# Live growth updates the front end at most this often (seconds): a training loop may
# append thousands of steps a second, and each update re-sends every series and pushes
# the newest frame chunks.
_SYNC_INTERVAL = 0.1


class EpisodeViewer(anywidget.AnyWidget):
    """Step through an episode in a notebook: frame, slider, play/pause, timeline, readout.

    Args:
        episode: a :class:`Rollout`, or frames alone: an array ``(N, H, W, 3)``,
            ``(N, H, W, 4)`` or ``(N, H, W)``, or a list of such frames. A rollout
            without frames shows its observations when they are images (HxW, HxWx1,
            HxWx3 or HxWx4, uint8 or floats in [0, 1]), and otherwise only the readout.
        encoding: how frames held in memory are sent, ``"zlib-xor"`` (lossless,
            compact) or ``"raw"``. Frames loaded from a file travel as stored.
        extras: names of scalar per-step extras of the rollout to draw on the timeline.
        action_names: names of the discrete actions; defaults to the rollout's
            ``metadata["action_names"]``.
        title: text above the frame; defaults to the rollout's ``env_id``.
        **traits: initial values of the traits below (``step``, ``fps``, ``loop``,
            ``height``, ``scale``).

    Example:
        >>> viewer = EpisodeViewer(np.zeros((5, 4, 6, 3), np.uint8))
        >>> viewer.length, viewer.has_frames
        (5, True)
        >>> viewer.step = 99  # clamped to the last position
        >>> viewer.step
        4
    """

    _esm = _STATIC / "widget.js"
    _css = _STATIC / "widget.css"

    step = traitlets.Int(
        0,
        help="int, default 0. The position shown, 0 .. length - 1. Two-way: set it to move "
        "the view, observe it to follow the user's scrubbing. Out-of-range values are "
        "clamped, so viewers of episodes of different lengths can be linked.",
    ).tag(sync=True)
    length = traitlets.Int(
        0,
        read_only=True,
        help="int. Number of positions n: T + 1 for T actions (T for one frame per "
        "action). Grows with append() and extend().",
    ).tag(sync=True)
    chunk_size = traitlets.Int(
        CHUNK_SIZE,
        read_only=True,
        help="int, 16. Positions per frame chunk: chunk k holds positions 16k .. 16k+15.",
    ).tag(sync=True)
    has_frames = traitlets.Bool(
        False,
        read_only=True,
        help="bool. Whether there are frames to show; without them the canvas shows a "
        "placeholder and the readout still works.",
    ).tag(sync=True)
    series = traitlets.Dict(
        key_trait=traitlets.Unicode(),
        value_trait=traitlets.Bytes(),
        read_only=True,
        help="dict[str, bytes]. The timeline's per-step series as little-endian float64: "
        '"rewards", "terminated", "truncated" and "actions" (scalar actions only), '
        'length T; "returns", length n; "extra:<name>" for each named extra, length T.',
    ).tag(sync=True)
    action_names = traitlets.List(
        traitlets.Unicode(),
        read_only=True,
        help="list[str]. Names of the discrete actions, empty when unknown.",
    ).tag(sync=True)
    fps = traitlets.Float(
        30.0, help="float, default 30. Playback speed in positions per second. Two-way."
    ).tag(sync=True)
    loop = traitlets.Bool(
        False, help="bool, default False. Whether playback restarts at the end. Two-way."
    ).tag(sync=True)
    height = traitlets.Int(
        0, help="int, default 0. Displayed canvas height in CSS pixels; 0 picks one."
    ).tag(sync=True)
    scale = traitlets.Float(
        0.0,
        help="float, default 0. Displayed size relative to the frame's pixels (pixelated); "
        "0 upscales small frames to about 400 px tall. height wins when both are set.",
    ).tag(sync=True)
    title = traitlets.Unicode("", help="str. Text shown above the frame.").tag(sync=True)

    def __init__(
        self,
        episode: Rollout | np.ndarray | Sequence[Any],
        *,
        encoding: str = "zlib-xor",
        extras: Sequence[str] = (),
        action_names: Sequence[str] | None = None,
        title: str | None = None,
        **traits: Any,
    ) -> None:
        self._lock = threading.RLock()
        self._timer: threading.Timer | None = None
        self._synced_at = 0.0
        if encoding not in ENCODINGS:
            raise ValueError(f"unknown encoding {encoding!r} (known: {', '.join(ENCODINGS)})")
        rollout = _as_rollout(episode, encoding)
        if rollout.num_positions == 0:
            raise ValueError("the episode is empty: EpisodeViewer needs at least one position")
        names = rollout.metadata.get("action_names") if action_names is None else action_names
        self._episode = _Episode(rollout, _frames_of(rollout, encoding), encoding, extras, names)
        # Positions the front end has been sent (or can ask for); growth pushes the rest.
        self._pushed = self._episode.num_positions
        # Set before the widget opens its comm, so the first state the front end sees is whole.
        self.set_trait("length", self._episode.num_positions)
        self.set_trait("has_frames", self._episode.frames is not None)
        self.set_trait("series", self._episode.series())
        self.set_trait("action_names", list(self._episode.action_names))
        if title is None:
            title = str(rollout.metadata.get("env_id") or "")
        super().__init__(title=title, **traits)
        self.on_msg(self._on_message)

    def append(
        self,
        frame: Any = None,
        action: Any = None,
        reward: float = 0.0,
        terminated: bool = False,
        truncated: bool = False,
        info: Mapping[str, Any] | None = None,
        obs: Any = None,
        extras: Mapping[str, Any] | None = None,
    ) -> None:
        """Add one step while it happens: ``action`` earned ``reward`` and led to ``frame``.

        The new position shows ``frame`` (or ``obs``, when the viewer shows image
        observations) and carries ``info``. If the user is at the last position, the
        view follows the new one. Works while the cell is still running.

        Example:
            >>> viewer = EpisodeViewer([np.zeros((4, 4, 3), np.uint8)])
            >>> viewer.append(frame=np.ones((4, 4, 3), np.uint8), action=0, reward=1.0)
            >>> viewer.length
            2
        """
        self.extend(
            Rollout.from_arrays(
                frames=None if frame is None else [frame],
                observations=None if obs is None else np.asarray(obs)[None],
                actions=None if action is None else np.asarray(action)[None],
                rewards=[reward],
                terminated=[terminated],
                truncated=[truncated],
                infos=[info or {}],
                extras={name: np.asarray(value)[None] for name, value in (extras or {}).items()},
            )
        )

    def extend(self, part: Rollout) -> None:
        """Add the steps of ``part``, the episode's continuation, while they happen.

        ``part`` holds one frame per action, the frame after it (``n == T``). A part
        with one position more than actions (``n == T + 1``, e.g. from ``record()``)
        starts at this episode's last position, which is not repeated.
        """
        with self._lock:
            self._episode.extend(part)
            self._schedule_sync()

    def close(self) -> None:
        """Close the widget and stop a pending live-growth update."""
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
        super().close()

    @traitlets.validate("step")
    def _clamp_step(self, proposal: traitlets.Bunch) -> int:
        return min(max(int(proposal["value"]), 0), max(self.length - 1, 0))

    @traitlets.validate("fps")
    def _check_fps(self, proposal: traitlets.Bunch) -> float:
        if not 0 < proposal["value"] < float("inf"):
            raise traitlets.TraitError(f"fps must be a positive number, got {proposal['value']}")
        return float(proposal["value"])

    @traitlets.validate("height", "scale")
    def _check_size(self, proposal: traitlets.Bunch) -> Any:
        if not 0 <= proposal["value"] < float("inf"):
            name = proposal["trait"].name
            raise traitlets.TraitError(f"{name} must be >= 0 (0 = auto), got {proposal['value']}")
        return proposal["value"]

    def _on_message(self, _widget: object, content: Any, _buffers: object) -> None:
        with self._lock:
            message, buffers = answer(content, self._episode)
        self.send(message, buffers)

    def _schedule_sync(self) -> None:
        """Sync now if the last sync is old enough, else once the interval has passed."""
        wait = self._synced_at + _SYNC_INTERVAL - time.monotonic()
        if wait <= 0:
            self._sync()
        elif self._timer is None:
            self._timer = threading.Timer(wait, self._sync)
            self._timer.daemon = True
            self._timer.start()

    def _sync(self) -> None:
        """Send the grown episode: its newest chunks, then length and series, and the
        newest step when following.

        The chunks go unasked because the front end cannot get an answer while a cell
        is appending (the kernel handles its requests only between cells). They go
        first: the front end handles custom messages as they arrive but state updates a
        moment later, so it holds the new chunks before it learns the new length and
        has no reason to ask the busy kernel for them.
        """
        with self._lock:
            self._timer = None
            self._synced_at = time.monotonic()
            if self._episode.num_positions > self._pushed:
                self.send(*growth_push(self._episode, self._pushed))
                self._pushed = self._episode.num_positions
            following = self.step == self.length - 1
            with self.hold_sync():
                self.set_trait("length", self._episode.num_positions)
                self.set_trait("series", self._episode.series())
                if following:
                    self.step = self.length - 1


class _Column:
    """Per-step values that grow a step at a time in amortized O(1) (a training loop's
    appends must not copy the whole episode each time). The source array is never written.
    """

    def __init__(self, values: Any, what: str) -> None:
        self._buffer = values
        self._size = len(values)
        self._owned = False
        self.what = what

    @property
    def values(self) -> Any:
        return self._buffer[: self._size]

    def checked(self, rows: Any, step: int) -> np.ndarray:
        """``rows`` if they can be appended, else a ValueError naming ``step``.

        An empty column takes the type of its first rows: an episode shown from its
        first frame alone learns what its actions look like from the first append.
        """
        rows = np.asarray(rows)
        if self._size == 0:
            return rows
        shape, dtype = tuple(self._buffer.shape[1:]), self._buffer.dtype
        if rows.shape[1:] != shape or not np.can_cast(rows.dtype, dtype, "same_kind"):
            raise ValueError(
                f"{self.what} at step {step}: got {rows.dtype} of shape {rows.shape[1:]}, "
                f"the episode has {dtype} of shape {shape}"
            )
        return rows

    def extend(self, rows: np.ndarray) -> None:
        if self._size == 0:
            self._buffer = rows[:0]
        size = self._size + len(rows)
        if not self._owned or size > len(self._buffer):
            capacity = max(size, 2 * self._size, CHUNK_SIZE)
            buffer = np.empty((capacity, *self._buffer.shape[1:]), self._buffer.dtype)
            buffer[: self._size] = self.values
            self._buffer, self._owned = buffer, True
        self._buffer[self._size : size] = rows
        self._size = size


class _Episode:
    """The episode as the viewer serves it: the rollout, plus the steps appended live."""

    def __init__(
        self,
        rollout: Rollout,
        frames: Frames | None,
        encoding: str,
        extras: Sequence[str],
        action_names: Sequence[str] | None,
    ) -> None:
        self.frames = frames
        self.action_names = _checked_names(action_names)
        self._encoding = encoding
        self._frames_owned = False
        self._frames_from_observations = frames is not None and rollout.frames is None
        self._infos = rollout.infos or []
        self._new_infos: list[dict[str, Any]] = []
        self._actions = _Column(rollout.actions, "action")
        self._flags = {
            "rewards": _Column(rollout.rewards, "reward"),
            "terminated": _Column(rollout.terminated, "terminated"),
            "truncated": _Column(rollout.truncated, "truncated"),
        }
        self._extras = {name: _Column(_scalar_extra(rollout, name), name) for name in extras}

    @property
    def num_positions(self) -> int:
        return len(self._infos) + len(self._new_infos)

    def readout(self, t: int) -> Message:
        actions = self._actions.values
        action = action_text(actions[t], self.action_names) if t < len(actions) else ""
        old = len(self._infos)
        return {"action": action, "info": self._infos[t] if t < old else self._new_infos[t - old]}

    def series(self) -> dict[str, bytes]:
        rewards = self._flags["rewards"].values
        returns = np.concatenate([[0.0], np.cumsum(rewards, dtype=np.float64)])
        series = {name: pack_series(column.values) for name, column in self._flags.items()}
        series["returns"] = pack_series(returns[: self.num_positions])
        actions = self._actions.values
        if actions.ndim == 1 and actions.dtype.kind in "biuf":
            series["actions"] = pack_series(actions)
        for name, column in self._extras.items():
            series[f"extra:{name}"] = pack_series(column.values)
        return series

    def extend(self, part: Rollout) -> None:
        """Append ``part``'s steps. Every column is checked before any of them grows, and
        frames go first, so a refused ``append()`` leaves the episode as it was."""
        if not isinstance(part, Rollout):
            raise TypeError(f"extend() takes a Rollout, got {type(part).__name__}")
        steps = part.num_steps
        first = part.num_positions - steps  # 1 when the part repeats our last position
        if first not in (0, 1):
            raise ValueError(f"the part has {part.num_positions} positions for {steps} actions")
        t = self.num_positions
        columns = [(self._actions, part.actions)]
        columns += [(column, getattr(part, name)) for name, column in self._flags.items()]
        for name, column in self._extras.items():
            if name not in part.extras:
                raise ValueError(
                    f"step {t}: the timeline shows extra {name!r}; pass its value too, "
                    f"e.g. append(..., extras={{{name!r}: value}})"
                )
            columns.append((column, part.extras[name]))
        rows = [(column, column.checked(values, t)) for column, values in columns]
        self._extend_frames(part, range(first, first + steps), t)
        for column, values in rows:
            column.extend(values)
        infos = part.infos or []
        self._new_infos.extend(infos[i] for i in range(first, first + steps))

    def _extend_frames(self, part: Rollout, positions: range, t: int) -> None:
        source = part.observations if self._frames_from_observations else part.frames
        if self.frames is None:
            if part.frames is not None:
                raise ValueError(f"step {t}: this viewer shows no frames, yet the step has one")
            return
        if source is None or isinstance(source, Mapping):
            what = "obs" if self._frames_from_observations else "frame"
            raise ValueError(f"step {t}: this viewer shows frames; pass {what}= for every step")
        if not self._frames_owned:  # grow a copy: the caller's rollout stays as it was
            allow_resize = isinstance(self.frames, ArrayFrames) and self.frames.allow_resize
            self.frames = ArrayFrames(
                list(self.frames), allow_resize=allow_resize, encoding=self._encoding
            )
            self._frames_owned = True
        assert isinstance(self.frames, ArrayFrames)
        for i in positions:
            self.frames.append(source[i])


def _as_rollout(episode: Any, encoding: str) -> Rollout:
    if isinstance(episode, Rollout):
        return episode
    if isinstance(episode, np.ndarray):
        shape = episode.shape
        if episode.ndim not in (3, 4) or (episode.ndim == 4 and shape[-1] not in (1, 3, 4)):
            raise ValueError(
                f"frames: expected an array (N, H, W, 3), (N, H, W, 4) or (N, H, W), "
                f"got shape {shape}"
            )
        if episode.ndim == 3 and shape[-1] in (3, 4) and shape[0] > 4:
            raise ValueError(
                f"frames: shape {shape} looks like a single frame; pass [frame] for one, "
                "or an array (N, H, W, 3)"
            )
    elif not isinstance(episode, (list, tuple)):
        raise TypeError(
            "EpisodeViewer takes a Rollout, an array of frames or a list of frames, "
            f"got {type(episode).__name__}"
        )
    return Rollout.from_arrays(frames=ArrayFrames(episode, encoding=encoding))


def _frames_of(rollout: Rollout, encoding: str) -> Frames | None:
    """The frames to show: the rollout's, else its observations when they are images."""
    frames = rollout.frames
    if isinstance(frames, ArrayFrames) and frames.encoding != encoding:
        return ArrayFrames(list(frames), allow_resize=frames.allow_resize, encoding=encoding)
    if frames is not None:
        return frames
    observations = rollout.observations
    shape = tuple(getattr(observations, "shape", ()))
    image_stack = len(shape) == 3 or (len(shape) == 4 and shape[-1] in (1, 3, 4))
    if observations is None or not image_stack:
        return None
    try:
        return ArrayFrames(observations, encoding=encoding)
    except ValueError:  # not pixel values (e.g. a float grid outside [0, 1])
        return None


def _scalar_extra(rollout: Rollout, name: str) -> Any:
    if name not in rollout.extras:
        known = ", ".join(sorted(rollout.extras)) or "none"
        raise ValueError(f"extras: the rollout has no extra {name!r} (it has: {known})")
    values = rollout.extras[name]
    if len(values.shape) != 1 or values.dtype.kind not in "biuf":
        raise ValueError(
            f"extras: {name!r} is {values.dtype} of shape {values.shape}; only per-step "
            "scalars (shape (T,)) go on the timeline"
        )
    return values


def _checked_names(names: Sequence[str] | None) -> list[str]:
    if names is None:
        return []
    if isinstance(names, str) or not all(isinstance(name, str) for name in names):
        raise ValueError(f"action_names must be a list of strings, got {names!r:.200}")
    return list(names)
