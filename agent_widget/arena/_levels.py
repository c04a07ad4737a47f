"""``Ladder``: single-agent players over a ladder of env configurations (levels), each
level's success rate with a Wilson interval, each player's first failure a call away.

A level is a name and a function making its env: FrozenLake 4x4, then slippery, then
8x8 slippery; MiniGrid's sizes. Each (level, player) pair is one run of the library,
``<env>/levels/<player>@<level>``, its params naming both, recorded by
:func:`~agent_widget.library.record_many`'s workers. Episode ``k`` is played on seed
``k`` at every level by every player, so the players meet the same maps and the same
slips (the env's seed; a player drawing random actions must seed its own generator).
Playing again adds each pair's next seeds (:mod:`agent_widget.arena._seeds`); Ctrl-C
keeps the episodes finished before it.

Success is the library's own: each episode's ``success`` in its ``run.json``, set as it
is filed by the ladder's ``success`` function. By default a positive return: FrozenLake
pays 1 for reaching the goal and nothing else, MiniGrid pays ``1 - 0.9 · steps /
max_steps`` for reaching it and 0 for running out of steps, so in both a positive return
is the goal reached. With ``success=None`` an env's own word is kept (``is_success`` or
``success`` in its last info, as the library reads it). The tables read ``run.json``
files alone, without opening an episode.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from agent_widget.arena._seeds import seeds_to_play
from agent_widget.arena._wilson import wilson_interval
from agent_widget.episodes import Rollout
from agent_widget.library import Recorded, RunLibrary, percent_text, record_many
from agent_widget.recording import pettingzoo_api
from agent_widget.viewer import EpisodeViewer

if TYPE_CHECKING:
    import pandas
    from pandas.io.formats.style import Styler

    from agent_widget.library._run_file import Run

ALGORITHM = "levels"  # the runs' algorithm: <env>/levels/<player>@<level>
_BAR = "rgba(46, 125, 50, 0.3)"  # the board's success bars: a pale green
_BOARD_STYLE = [
    {"selector": "td", "props": "padding: 3px 10px; font-variant-numeric: tabular-nums"},
    {"selector": "caption", "props": "caption-side: bottom; font-size: 0.85em; opacity: 0.7"},
]


def positive_return(rollout: Rollout) -> bool:
    """Whether the episode's return is positive: the goal reached, in FrozenLake and
    MiniGrid alike (their only rewards are for reaching it)."""
    return bool(np.sum(rollout.rewards, dtype=np.float64) > 0)


class Ladder:
    """Single-agent players over a ladder of levels: how often each reaches the goal at
    each, with 95% Wilson intervals, and the first episode each failed at each.

    Args:
        levels: name -> a function making that level's env, easiest first (each worker
            calls it once); ``render_mode="rgb_array"`` keeps frames, so a failure can be
            watched.
        players: name -> player: what :func:`~agent_widget.record` takes, a function of
            the observation or a model with ``predict``.
        library: the :class:`RunLibrary` (or its folder or URL) the episodes go to.
        success: ``rollout -> bool``, whether an episode succeeded, kept in its run;
            by default a positive return (the goal reached, for FrozenLake and
            MiniGrid); None keeps the env's own ``is_success`` / ``success`` info.
        max_steps: as for :func:`~agent_widget.record` (the envs' time limits apply too).

    Examples:
        >>> lake = lambda **kw: lambda: gym.make("FrozenLake-v1", render_mode="rgb_array", **kw)
        >>> ladder = Ladder({"4x4": lake(is_slippery=False), "4x4 slippery": lake(),
        ...                  "8x8 slippery": lake(map_name="8x8")},
        ...                 {"random": random_move, "q-table": greedy}, "runs/")  # doctest: +SKIP
        >>> ladder.play(episodes=100, workers=2)  # doctest: +SKIP
        >>> ladder.table()  # doctest: +SKIP
        >>> ladder.first_failure("q-table", "8x8 slippery")  # doctest: +SKIP
    """

    def __init__(
        self,
        levels: Mapping[str, Callable[[], Any]],
        players: Mapping[str, Any],
        library: RunLibrary | str | os.PathLike[str],
        *,
        success: Callable[[Rollout], bool] | None = positive_return,
        max_steps: int = 10_000,
    ) -> None:
        if not levels or not players:
            raise ValueError(
                f"a ladder needs levels and players, got {list(levels)}, {list(players)}"
            )
        self.levels = {str(name): make for name, make in levels.items()}
        self.players = {str(name): player for name, player in players.items()}
        runs = {_run_name(player, level) for level in self.levels for player in self.players}
        if len(runs) < len(self.levels) * len(self.players):
            raise ValueError(
                "two (player, level) pairs make one run name '<player>@<level>': "
                f"rename the players {list(self.players)} or levels {list(self.levels)}"
            )
        self.env_ids = {level: _env_id(level, make) for level, make in self.levels.items()}
        self.library = library if isinstance(library, RunLibrary) else RunLibrary(library)
        self.success = success
        self.max_steps = max_steps

    def play(
        self,
        episodes: int = 10,
        *,
        workers: int | None = None,
        engine: Literal["auto", "ray", "processes"] = "auto",
        progress: bool = True,
    ) -> dict[str, Recorded]:
        """Play ``episodes`` more episodes of every player at every level, each recorded
        into its pair's run; the recordings by run name. An episode that failed to record
        is in its :attr:`Recorded.failed` (the next ``play`` plays it again). Ctrl-C
        keeps the episodes finished and starts no other pair; the next ``play`` goes on.

        Args:
            episodes: how many episodes each (player, level) pair adds.
            workers: as for :func:`~agent_widget.library.record_many`.
            engine: as for :func:`~agent_widget.library.record_many`.
            progress: a progress bar a pair.
        """
        if episodes < 1:
            raise ValueError(f"episodes must be at least 1, got {episodes}")
        played = {}
        for level, make_env in self.levels.items():
            env_id = self.env_ids[level]
            for player, policy in self.players.items():
                run = _run_name(player, level)
                played[run] = record_many(
                    make_env,
                    policy,
                    seeds_to_play(self.library, env_id, ALGORITHM, run, episodes),
                    library=self.library,
                    run=run,
                    algorithm=ALGORITHM,
                    agent=player,
                    params={"level": level, "player": player},
                    metadata={"env_id": env_id, "level": level},  # env_id: an env without a spec
                    success=self.success,
                    engine=engine,
                    workers=workers,
                    max_steps=self.max_steps,
                    progress=progress,
                )
        return played

    def results(self) -> pandas.DataFrame:
        """Every episode of the ladder in the library, one row each, levels in ladder
        order, players in the order given, then by seed: ``player``, ``level``, ``seed``,
        ``return``, ``success``, ``run`` (its id) and ``episode`` (its number in the run,
        as ``library.open(run)[episode]`` opens it)."""
        import pandas

        rows = [
            (player, level, e.seed, e.total_return, e.success, run.id, i)
            for (level, player), run in self._runs().items()
            for i, e in sorted(enumerate(run.episodes), key=lambda pair: pair[1].seed or 0)
        ]
        columns = ["player", "level", "seed", "return", "success", "run", "episode"]
        return pandas.DataFrame(rows, columns=columns)

    def table(self, confidence: float = 0.95) -> pandas.DataFrame:
        """One row a (player, level) pair played, levels in ladder order, players in the
        order given: ``player``, ``level``, ``episodes`` (those whose success is known),
        ``successes``, ``success_rate``, ``lower`` and ``upper`` (its Wilson interval at
        ``confidence``), ``first_failure`` (the seed of the first episode that failed,
        ``<NA>`` if none did: :meth:`first_failure` opens it) and ``run`` (its id)."""
        import pandas

        rows = []
        for (level, player), run in self._runs().items():
            known = _known(run)
            n, successes = len(known), sum(ok for _, ok in known)
            lower, upper = wilson_interval(successes, n, confidence)
            first = next((seed for seed, ok in known if not ok), None)
            rate = successes / n if n else float("nan")
            rows.append((player, level, n, successes, rate, lower, upper, first, run.id))
        columns = ["player", "level", "episodes", "successes", "success_rate", "lower", "upper"]
        frame = pandas.DataFrame(rows, columns=[*columns, "first_failure", "run"])
        return frame.astype({"first_failure": "Int64"})

    def board(self, confidence: float = 0.95) -> Styler:
        """The table as the ladder reads: a row a player (most successes first), a column
        a level (easiest first), each cell the success rate, its interval and its count
        (``50% (24%–76%), 5/10``, rates as the leaderboard writes them) on a bar of the
        rate's length; hovering a cell names its first failure and the call opening it."""
        import pandas

        table = self.table(confidence)
        by_player = table.groupby("player", sort=False)["successes"].sum()
        players = sorted(by_player.index, key=lambda p: -by_player[p])
        cells = pandas.DataFrame("-", index=players, columns=list(self.levels))
        tips = pandas.DataFrame("", index=players, columns=list(self.levels))
        bars = pandas.DataFrame("", index=players, columns=list(self.levels))
        for row in table.itertuples():
            rate, lower, upper = (percent_text(x) for x in (row.success_rate, row.lower, row.upper))
            cells.loc[row.player, row.level] = (
                f"{rate} ({lower}–{upper}), {row.successes}/{row.episodes}"
            )
            tips.loc[row.player, row.level] = (
                "no failure"
                if pandas.isna(row.first_failure)
                else f"first failure: seed {row.first_failure}, "
                f"ladder.first_failure({row.player!r}, {row.level!r})"
            )
            width = f"{100 * row.success_rate:.1f}%"
            bars.loc[row.player, row.level] = (
                f"background: linear-gradient(90deg, {_BAR} {width}, transparent {width})"
            )
        caption = (
            f"success rate ({confidence:.0%} Wilson interval), successes/episodes; "
            "a cell's first failure shows under the pointer"
        )
        return (
            cells.style.apply(lambda _: bars, axis=None)
            .set_tooltips(tips)
            .set_caption(caption)
            .set_table_styles(_BOARD_STYLE)
        )

    def episode(self, player: str, level: str, seed: int) -> Rollout:
        """The episode ``player`` played at ``level`` on ``seed``, loaded from the library."""
        run = self._run(player, level)
        for number, summary in enumerate(run.episodes):
            if summary.seed == seed:
                return self.library.open(run)[number]
        raise KeyError(f"{player!r} has played no episode on seed {seed} at level {level!r}")

    def first_failure(self, player: str, level: str, **viewer: Any) -> EpisodeViewer | None:
        """The first episode (lowest seed) ``player`` failed at ``level``, in a viewer at
        its last position (where it ended); None when none failed. ``viewer`` options go
        to :class:`~agent_widget.EpisodeViewer`."""
        seed = next((seed for seed, ok in _known(self._run(player, level)) if not ok), None)
        if seed is None:
            return None
        title = f"{player} at {level}: seed {seed}, its first failure"
        shown = EpisodeViewer(self.episode(player, level, seed), **{"title": title, **viewer})
        shown.step = shown.length - 1
        return shown

    def _run(self, player: str, level: str) -> Run:
        """The run of ``player`` at ``level``, or KeyError saying it has none."""
        run = self._runs().get((level, player))
        if run is None:
            raise KeyError(f"{player!r} has played no episode at level {level!r}")
        return run

    def _runs(self) -> dict[tuple[str, str], Run]:
        """The runs of the pairs played, by (level, player), in ladder order."""
        found = {(r.env_id, r.run): r for r in self.library.runs(algorithm=ALGORITHM)}
        pairs = ((level, player) for level in self.levels for player in self.players)
        runs = {pair: found.get((self.env_ids[pair[0]], _run_name(*pair[::-1]))) for pair in pairs}
        return {pair: run for pair, run in runs.items() if run is not None}

    def __repr__(self) -> str:
        return (
            f"Ladder(levels={list(self.levels)}, players={list(self.players)}, "
            f"library={self.library.root})"
        )


def _run_name(player: str, level: str) -> str:
    return f"{player}@{level}"


def _known(run: Run) -> list[tuple[int, bool]]:
    """(seed, success) of each of the run's episodes that has both, by seed."""
    return sorted(
        (e.seed, e.success) for e in run.episodes if e.seed is not None and e.success is not None
    )


def _env_id(level: str, make_env: Callable[[], Any]) -> str:
    """The id of the env ``make_env`` makes (its spec's, else its class's name), or
    ValueError for a multi-agent env, which the arena plays."""
    env = make_env()
    api = pettingzoo_api(env)
    spec = getattr(env, "spec", None)
    env.close()
    if api is not None:
        raise ValueError(
            f"level {level!r} makes a PettingZoo env: a ladder is for single-agent envs "
            "(two-player games go to Arena)"
        )
    return str(spec.id if spec is not None else type(env).__name__)
