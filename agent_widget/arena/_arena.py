"""``Arena``: players of a two-player game play each other, every game kept in a library.

Each pairing of players is one run of the library (``<env>/arena/<a>-vs-<b>``, the
two names in sorted order), recorded by :func:`~agent_widget.library.record_many`'s
workers: game ``k`` of a pairing is played on seed ``k``, the first-named player in
the first seat when ``k`` is even and in the second when it is odd, so seats are
swapped evenly, and the same game ``k`` is played the same way again (the env's seed;
a player that draws random moves must seed its own generator). Playing again adds
the pairing's next games: the seeds its run does not hold yet, so a game that failed
or was cut short by Ctrl-C is played by the next ``play``, and no game is played twice.

Who sat where is each episode's ``metadata["players"]`` (``{"player_0": "random",
...}``), kept in the library's ``run.json``, so the results (and their ratings) are
read back from the library alone, without opening an episode.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Literal

from agent_widget.arena._board import ArenaBoard
from agent_widget.arena._ratings import ratings, win_rates
from agent_widget.arena._seeds import seeds_to_play
from agent_widget.library import Recorded, RunLibrary, record_many
from agent_widget.recording import pettingzoo_api

if TYPE_CHECKING:
    import pandas

ALGORITHM = "arena"  # the runs' algorithm: <env>/arena/<a>-vs-<b>


class Arena:
    """Players of a two-player PettingZoo AEC game (Connect Four, Tic-Tac-Toe, chess)
    rated by the games they play against each other.

    Args:
        make_env: makes the game (each worker calls it once); ``render_mode="rgb_array"``
            keeps frames, so every game can be watched.
        players: name -> player: what :func:`~agent_widget.record` takes for one agent,
            a function of that agent's observation or a model with ``predict``.
        library: the :class:`RunLibrary` (or its folder or URL) the games go to.
        max_steps: as for :func:`~agent_widget.record`.

    Examples:
        >>> arena = Arena(lambda: connect_four_v3.env(), {"random": random, "greedy": greedy},
        ...               library="runs/")  # doctest: +SKIP
        >>> arena.play(games=100, workers=2)  # doctest: +SKIP
        >>> arena.ratings()  # doctest: +SKIP
    """

    def __init__(
        self,
        make_env: Callable[[], Any],
        players: Mapping[str, Any],
        library: RunLibrary | str | os.PathLike[str],
        *,
        max_steps: int = 10_000,
    ) -> None:
        env = make_env()
        seats = [str(agent) for agent in getattr(env, "possible_agents", [])]
        api = pettingzoo_api(env)
        if api != "aec" or len(seats) != 2:
            kind = {"aec": "an AEC", "parallel": "a Parallel"}.get(api or "")
            what = f"{type(env).__name__}, not a PettingZoo env"
            if kind is not None:
                what = f"{kind} PettingZoo env of agents {seats}"
            raise ValueError(
                f"the arena plays two-player PettingZoo AEC games (Connect Four, "
                f"Tic-Tac-Toe, chess...); make_env made {what}"
            )
        if len(players) < 2:
            raise ValueError(f"the arena needs at least two players, got {list(players)}")
        name = env.metadata.get("name") if isinstance(env.metadata, Mapping) else None
        env.close()
        self.env_id = str(name or type(env).__name__)
        self.seats = seats
        self.players = {str(k): v for k, v in players.items()}
        self.library = library if isinstance(library, RunLibrary) else RunLibrary(library)
        self.max_steps = max_steps
        self._make_env = make_env

    def play(
        self,
        games: int = 10,
        *,
        pairings: Iterable[tuple[str, str]] | None = None,
        workers: int | None = None,
        engine: Literal["auto", "ray", "processes"] = "auto",
        progress: bool = True,
    ) -> dict[str, Recorded]:
        """Play ``games`` more games of every pairing (round robin), seats swapped
        evenly; each recorded into its pairing's run. The recordings by run name; a game
        that failed is in its :attr:`Recorded.failed` (the next ``play`` plays it again).

        Args:
            games: how many games each pairing adds.
            pairings: the pairs of players to play (default: every pair), as
                ``[("dqn", p) for p in ("random", "heuristic")]`` sets a new player
                against the others.
            workers: as for :func:`~agent_widget.library.record_many`.
            engine: as for :func:`~agent_widget.library.record_many`.
            progress: a progress bar a seating.
        """
        chosen = itertools.combinations(sorted(self.players), 2) if pairings is None else pairings
        played = {}
        for pairing in sorted({tuple(sorted(self._known(pair))) for pair in chosen}):
            run = f"{pairing[0]}-vs-{pairing[1]}"
            todo = seeds_to_play(self.library, self.env_id, ALGORITHM, run, games)
            for first_seat in (0, 1):
                seeds = [k for k in todo if k % 2 == first_seat]
                if not seeds:
                    continue
                order = pairing[::-1] if first_seat else pairing
                seated = dict(zip(self.seats, order, strict=True))
                policies: Any = {seat: self.players[player] for seat, player in seated.items()}
                played[f"{run}/{first_seat}"] = record_many(
                    self._make_env,
                    policies,  # record() takes a dict of policies by agent
                    seeds,
                    library=self.library,
                    run=run,
                    algorithm=ALGORITHM,
                    metadata={"players": seated},
                    engine=engine,
                    workers=workers,
                    max_steps=self.max_steps,
                    progress=progress,
                )
        return played

    def results(self) -> pandas.DataFrame:
        """Every game of this env's arena runs in the library, one row a game:
        ``first``, ``second`` (the players by seat), ``outcome`` (the first's: win, draw,
        loss), ``run``, ``episode``, ``seed``; games without a winner (cut short) are
        left out. What :func:`ratings` takes."""
        import pandas

        rows = []
        for run in self.library.runs(env_id=self.env_id, algorithm=ALGORITHM):
            for i, episode in enumerate(run.episodes):
                players, outcomes = episode.players or {}, episode.agent_outcomes or {}
                first, second = self.seats
                if {first, second} <= players.keys() & outcomes.keys():
                    rows.append(
                        (players[first], players[second], outcomes[first], run.id, i, episode.seed)
                    )
        columns = ["first", "second", "outcome", "run", "episode", "seed"]
        return pandas.DataFrame(rows, columns=columns)

    def ratings(self, **options: Any) -> pandas.DataFrame:
        """:func:`~agent_widget.arena.ratings` of :meth:`results` (``options`` go to it)."""
        return ratings(self.results(), **options)

    def win_rates(self) -> pandas.DataFrame:
        """:func:`~agent_widget.arena.win_rates` of :meth:`results`."""
        return win_rates(self.results())

    def leaderboard(self, **options: Any) -> ArenaBoard:
        """The ratings (each interval a bar), the head-to-head matrix as a heatmap, and
        every game one click away in a viewer: an :class:`ArenaBoard` (``options`` go to
        it)."""
        return ArenaBoard(self, **options)

    def _known(self, pair: tuple[str, str]) -> tuple[str, str]:
        """``pair``, or ValueError naming what is not a pair of two of the players."""
        unknown = [p for p in pair if p not in self.players]
        if unknown or len(set(pair)) != 2:
            raise ValueError(f"pairing {pair!r}: expected two of the players {list(self.players)}")
        return pair

    def __repr__(self) -> str:
        return f"Arena({self.env_id}, players={list(self.players)}, library={self.library.root})"
