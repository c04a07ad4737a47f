"""The timeline of a long episode in a size that does not grow with it.

Up to :data:`EXACT_STEPS` actions the viewer's state carries every step's series (the
``series`` trait, a few bytes a step). Past it, that would make the first frame of a
long episode wait for its timeline: 422,000 Pong steps are 1.7 MB of series, 1.4 s over
a 10 Mbit link, for a strip drawn in ~1,000 pixels. The state then carries this summary
instead: for each of :data:`SUMMARY_COLUMNS` columns (more than a timeline is drawn
wide), the min and max of the rewards, the returns and the scalar extras over the
positions the column covers, and whether a termination, a truncation or a non-finite
reward falls in it. The page draws it rebinned to its width, asks for a range of it in
finer columns when zoomed in past what it resolves (:func:`range_reply`), and gets the
readout's exact values of a position with its chunk (see :func:`readout_values`).

Column ``c`` of ``columns`` over ``n`` positions covers positions
``c * n // columns`` up to the next column's first, as ``binMinMax`` in
js/shared/columns.ts bins exact series, so the two draw alike.
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import numpy as np

from agent_widget.panels import EpisodeData
from agent_widget.viewer._transport import pack_series, request_integer, shows_actions

EXACT_STEPS = 4096
SUMMARY_COLUMNS = 2048
# A zoomed timeline asks for at most this many columns (a strip 8,192 device pixels wide).
MAX_RANGE_COLUMNS = 8192


class Summarized(EpisodeData, Protocol):
    """What a summary reads of an episode (a :class:`ServedEpisode`)."""

    @property
    def num_positions(self) -> int: ...

    def timeline_extras(self) -> Mapping[str, np.ndarray]: ...

    def finite_returns(self) -> np.ndarray:
        """The return before each position, non-finite rewards left out."""
        ...


def summary(
    episode: Summarized, columns: int = SUMMARY_COLUMNS, start: int = 0, stop: int | None = None
) -> dict[str, bytes]:
    """Per-column series of positions ``start .. stop - 1`` of ``episode`` (all of them by
    default), each ``zlib(pack_series(values))``.

    Keys: ``"rewards.min"``, ``"rewards.max"``, ``"returns.min"``, ``"returns.max"``,
    ``"terminated"``, ``"truncated"``, ``"nonfinite"`` (1 where the column holds such a
    step, else 0), and ``"extra:<name>.min"`` / ``".max"`` for each scalar extra. Min and
    max are float32 (or narrower, when exact): enough to draw, while the readout gets
    exact values. A column with no finite value is NaN. At most one column a position.

    Examples:
        >>> from agent_widget.episodes import Rollout
        >>> from agent_widget.viewer._episode import ServedEpisode
        >>> from agent_widget.viewer._transport import unpack_series
        >>> rollout = Rollout.from_arrays(rewards=[1, 0, 0, 5])
        >>> episode = ServedEpisode(rollout, None, "raw", (), None)
        >>> unpack_series(zlib.decompress(summary(episode, 2)["returns.max"])).tolist()
        [1, 6]
    """
    n = episode.num_positions
    stop = n if stop is None else stop
    span = stop - start
    starts = (np.arange(min(columns, span)) * span) // min(columns, span)
    rewards = _window(np.asarray(episode.rewards, np.float64), start, stop, np.nan)
    values = {"rewards": rewards, "returns": episode.finite_returns()[start:stop]}
    for name, extra in episode.timeline_extras().items():
        values[f"extra:{name}"] = _window(np.asarray(extra, np.float64), start, stop, np.nan)
    packed: dict[str, bytes] = {}
    for name, series in values.items():
        series = np.where(np.isfinite(series), series, np.nan)
        with np.errstate(invalid="ignore"):  # a column of NaN only stays NaN
            packed[f"{name}.min"] = _packed(np.fmin.reduceat(series, starts))
            packed[f"{name}.max"] = _packed(np.fmax.reduceat(series, starts))
    flags = {
        "terminated": _window(np.asarray(episode.terminated, bool), start, stop, False),
        "truncated": _window(np.asarray(episode.truncated, bool), start, stop, False),
        "nonfinite": ~np.isfinite(rewards) & (np.arange(start, stop) < len(episode.rewards)),
    }
    for name, flag in flags.items():
        packed[name] = _packed(np.logical_or.reduceat(flag, starts))
    return packed


def range_reply(
    content: Mapping[str, Any], episode: Summarized
) -> tuple[dict[str, Any], list[bytes]]:
    """The answer to ``{"type": "timeline", "id": i, "start": a, "stop": b, "columns": c}``:
    the :func:`summary` of positions ``a .. b - 1`` in ``c`` columns (at most
    :data:`MAX_RANGE_COLUMNS`), for a timeline zoomed in past what the state's summary
    resolves. Content ``{"type": "timeline", "id", "start", "stop", "keys"}``, the
    buffers the values of ``keys`` in order; a bad request gets ``"timeline-error"``.

    Examples:
        >>> from agent_widget.episodes import Rollout
        >>> from agent_widget.viewer._episode import ServedEpisode
        >>> episode = ServedEpisode(Rollout.from_arrays(rewards=[1, 2, 3]), None, "raw", (), None)
        >>> request = {"type": "timeline", "id": 4, "start": 1, "stop": 3, "columns": 2}
        >>> range_reply(request, episode)[0]["keys"][:2]
        ['rewards.min', 'rewards.max']
        >>> range_reply({**request, "stop": 9}, episode)[0]["type"]
        'timeline-error'
    """
    request_id = content.get("id")
    try:
        start, stop, columns = (
            request_integer(content, key, "timeline") for key in ("start", "stop", "columns")
        )
        if not 0 <= start < stop <= episode.num_positions:
            raise ValueError(
                f"positions {start} to {stop} are not within the episode's {episode.num_positions}"
            )
        if not 1 <= columns <= MAX_RANGE_COLUMNS:
            raise ValueError(f"{columns} columns: take 1 to {MAX_RANGE_COLUMNS}")
        packed = summary(episode, columns, start, stop)
    except ValueError as error:
        return {"type": "timeline-error", "id": request_id, "message": str(error)}, []
    head = {"type": "timeline", "id": request_id, "start": start, "stop": stop}
    return {**head, "keys": list(packed)}, list(packed.values())


def readout_values(episode: Summarized, positions: Sequence[int]) -> dict[str, Any]:
    """What the readout shows of ``positions`` that the ``series`` trait would have held,
    for a reply's index when the state carries the summary instead.

    ``{"steps": T, "reward": [...], "return": [...], "terminated": [...],
    "truncated": [...]}`` and ``"action"`` for scalar actions: position t's reward (None
    at the last position; a non-finite one as ``"NaN"``, ``"Infinity"`` or
    ``"-Infinity"``, which JSON cannot hold), the return before it, and the flags of the
    step that ends there (the last action's at the last position).

    Examples:
        >>> from agent_widget.episodes import Rollout
        >>> from agent_widget.viewer._episode import ServedEpisode
        >>> rollout = Rollout.from_arrays(rewards=[1, float("nan")])
        >>> episode = ServedEpisode(rollout, None, "raw", (), None)
        >>> readout_values(episode, [0, 1, 2])["reward"]
        [1, 'NaN', None]
    """
    rewards = episode.rewards
    steps = len(rewards)
    at = np.asarray(positions, np.int64)
    outcome = np.minimum(at, steps - 1)
    values: dict[str, Any] = {
        "steps": steps,
        "reward": _numbers(rewards, at),
        "return": episode.finite_returns()[at].tolist(),
        "terminated": _flags(episode.terminated, outcome),
        "truncated": _flags(episode.truncated, outcome),
    }
    actions = episode.actions
    if shows_actions(actions):
        values["action"] = _numbers(actions, at)
    return values


def finite_returns(rewards: np.ndarray, n: int) -> np.ndarray:
    """The return before each of ``n`` positions, as the front end sums it from the
    ``series``: non-finite rewards left out (the timeline marks them instead)."""
    rewards = np.asarray(rewards, np.float64)
    summed = np.cumsum(np.where(np.isfinite(rewards), rewards, 0.0))
    return np.concatenate([[0.0], summed])[:n]


def _window(values: np.ndarray, start: int, stop: int, fill: Any) -> np.ndarray:
    """Positions ``start .. stop - 1`` of ``values`` (one a step): those after the last step
    (the last position has no action) get ``fill``. Only the window is copied."""
    window = values[start:stop]
    return np.concatenate([window, np.full(stop - start - len(window), fill, values.dtype)])


def _packed(values: np.ndarray) -> bytes:
    return zlib.compress(
        pack_series(values.astype(np.float32) if values.dtype.kind == "f" else values)
    )


def _numbers(values: np.ndarray, at: np.ndarray) -> list[Any]:
    """``values`` at positions ``at`` for JSON, a whole array at a time (a reply reads
    thousands of positions): integers when every finite one is whole, non-finite ones as
    ``"NaN"``, ``"Infinity"`` or ``"-Infinity"``, None past the last value."""
    present = at < len(values)
    picked = np.asarray(values[at[present]], np.float64)
    finite = np.isfinite(picked)
    kept = picked[finite]
    whole = bool(np.all((kept == np.round(kept)) & (np.abs(kept) < 2**53)))
    exact = np.where(finite, picked, 0).astype(np.int64) if whole else picked
    numbers: list[Any] = exact.tolist()
    for i in np.flatnonzero(~finite).tolist():
        numbers[i] = "NaN" if np.isnan(picked[i]) else "Infinity" if picked[i] > 0 else "-Infinity"
    return numbers + [None] * int(np.count_nonzero(~present))


def _flags(flags: np.ndarray, at: np.ndarray) -> list[bool | None]:
    """``flags`` at positions ``at`` as booleans; None for all when there is no step."""
    if len(flags) == 0:
        return [None] * len(at)
    return np.asarray(flags, bool)[at].tolist()
