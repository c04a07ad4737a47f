"""Ratings of players from the games they played: Bradley–Terry with bootstrap intervals.

The model (Bradley–Terry): player i beats player j with probability
``σ(r_i - r_j)``, ``σ`` the logistic function. A draw counts half a win for each
player (as Elo and Chatbot Arena count it): a game whose first player scored ``s``
(1, ½ or 0) has likelihood ``σ(d)^s σ(-d)^(1-s)``, ``d`` the two ratings' difference.
Seats are not modelled: a first-move advantage cancels out where each pairing plays
as many games from each seat, as :class:`~agent_widget.arena.Arena` plays them.

The ratings maximise that likelihood times a prior: each rating independently normal
around 0 with a standard deviation of ``PRIOR_ELO`` Elo points (an L2 penalty). The
prior keeps an undefeated player's rating finite (the likelihood alone grows without
bound) and weighs as little as one game: a few games decide, not the prior. The
ratings then average 0 (every game's pull on one player is the opposite of its pull
on the other), and are reported on the Elo scale: ``1000 + r · 400 / ln 10``, so a
400-point gap means 10:1 odds.

The 95% interval of a rating is a percentile bootstrap over games: ``resamples``
times, as many games as were played are drawn with replacement from them, the ratings
fitted again, and the 2.5th and 97.5th percentiles of each player's kept. Where every
game went one way (a player that won them all), every resample says the same and the
bootstrap's interval shrinks to a point, which would claim a certainty the games do
not give; so the interval is the wider of it and the posterior's normal approximation
at its maximum (Laplace's: ``±1.96`` standard deviations from the inverse Hessian). The
two agree elsewhere, and the benchmark measures the coverage of the result. Games come
in a few kinds (who sat first, who second, the score), so a resample is one
multinomial draw of how many of each kind, and every resample is fitted at once by
Newton's method on a ``(resamples, players, players)`` array: 10,000 games and 1,000
resamples take well under a second (benchmarks/ratings.py).

Why not a library: choix fits Bradley–Terry (``ilsr_pairwise``, with an L2 ``alpha``)
but knows no draws and no bootstrap, and one fit of 10,000 games took 16 ms here (a
thousand resamples: 16 s); openskill rates online, so its numbers depend on the
games' order, and gives a posterior spread rather than an interval over games.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import pandas

ELO = 400 / math.log(10)  # Elo points per unit of log-odds
BASE = 1000.0  # the mean rating on the Elo scale
PRIOR_ELO = 400.0  # the prior's standard deviation, in Elo points
_SCORES = {"win": 1.0, "draw": 0.5, "loss": 0.0}
_NEWTON_STEPS = 100
_TOLERANCE = 1e-9  # log-odds: far below what an interval resolves


class Games:
    """A plain table of games, checked: each game's two players in seat order and the
    first one's score (1 a win, ½ a draw, 0 a loss), counted by kind.

    Args:
        results: rows with ``first``, ``second`` (the players' names, first to move
            first) and ``outcome``, the first player's: ``"win"``, ``"draw"``,
            ``"loss"`` or its score 1, 0.5, 0. A pandas DataFrame, or any iterable of
            mappings.
    """

    def __init__(self, results: Any) -> None:
        rows = _rows(results)
        names: dict[str, int] = {}
        kinds: dict[tuple[int, int, float], int] = {}
        for n, row in enumerate(rows):
            try:
                first, second, outcome = str(row["first"]), str(row["second"]), row["outcome"]
            except (KeyError, TypeError):
                raise ValueError(
                    f"result {n}: expected the columns first, second and outcome, got {row!r:.80}"
                ) from None
            score = _score(outcome, n)
            if first == second:
                raise ValueError(f"result {n}: {first!r} played itself; rate games between two")
            i, j = (names.setdefault(p, len(names)) for p in (first, second))
            kinds[i, j, score] = kinds.get((i, j, score), 0) + 1
        if not kinds:
            raise ValueError("no games to rate: the table of results is empty")
        self.players = list(names)
        kind = np.array(list(kinds), np.float64).reshape(-1, 3)
        self.first, self.second = kind[:, 0].astype(int), kind[:, 1].astype(int)
        self.score = kind[:, 2]
        self.counts = np.array(list(kinds.values()), np.int64)

    def matrices(self, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(scores, games)``, each ``(..., players, players)``, for ``counts`` of each
        kind of game (``(..., kinds)``): what i scored against j, and how often they met."""
        n = len(self.players)
        to_score = np.zeros((len(self.counts), n, n))
        to_games = np.zeros((len(self.counts), n, n))
        k = np.arange(len(self.counts))
        to_score[k, self.first, self.second] = self.score
        to_score[k, self.second, self.first] = 1 - self.score
        to_games[k, self.first, self.second] = to_games[k, self.second, self.first] = 1
        flat = counts.astype(np.float64)
        scores = (flat @ to_score.reshape(len(k), n * n)).reshape(*counts.shape[:-1], n, n)
        games = (flat @ to_games.reshape(len(k), n * n)).reshape(*counts.shape[:-1], n, n)
        return scores, games


def ratings(
    results: Any, *, resamples: int = 1000, seed: int | None = 0, level: float = 0.95
) -> pandas.DataFrame:
    """Each player's Elo-scaled Bradley–Terry rating with its bootstrap interval, best
    first (the module says how): ``player, rating, lower, upper, games, wins, draws,
    losses``.

    Args:
        results: the games (:class:`Games` says what it takes).
        resamples: bootstrap resamples of the games for the interval.
        seed: the resampling's seed (the same seed, the same interval).
        level: the interval's coverage.

    Examples:
        >>> ratings([{"first": "a", "second": "b", "outcome": "win"}] * 3)  # doctest: +SKIP
    """
    import pandas

    games = Games(results)
    scores, played = games.matrices(games.counts)
    rating = _fit(scores[None], played[None])[0]
    drawn = np.random.default_rng(seed).multinomial(
        int(games.counts.sum()), games.counts / games.counts.sum(), size=resamples
    )
    spread = _fit(*games.matrices(drawn))
    tail = (1 - level) / 2 * 100
    lower, upper = np.percentile(spread, [tail, 100 - tail], axis=0)
    half = statistics.NormalDist().inv_cdf(1 - tail / 100) * _posterior_sd(rating, played)
    lower, upper = np.minimum(lower, rating - half), np.maximum(upper, rating + half)
    wins, draws, losses = _tally(games)
    table = pandas.DataFrame(
        {
            "player": games.players,
            "rating": BASE + ELO * rating,
            "lower": BASE + ELO * lower,
            "upper": BASE + ELO * upper,
            "games": wins + draws + losses,
            "wins": wins,
            "draws": draws,
            "losses": losses,
        }
    )
    return table.sort_values("rating", ascending=False, ignore_index=True)


def win_rates(results: Any) -> pandas.DataFrame:
    """The head-to-head table: the score rate (wins and half the draws, over the games)
    of each row's player against each column's, NaN where they never met; players in
    name order (``rates.loc[order, order]`` puts them in another, as ``ratings``')."""
    import pandas

    games = Games(results)
    scores, played = games.matrices(games.counts)
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = np.where(played > 0, scores / played, np.nan)
    table = pandas.DataFrame(rate, index=games.players, columns=games.players)
    order = sorted(games.players)
    return table.loc[order, order]


def _fit(scores: np.ndarray, games: np.ndarray) -> np.ndarray:
    """The MAP ratings (log-odds) of each of a batch of tournaments, ``(batch, players)``,
    by Newton's method: the objective is strictly concave, so from 0 it converges in
    a few steps; a step is halved where it would overshoot."""
    batch, n, _ = scores.shape
    precision = (ELO / PRIOR_ELO) ** 2
    r = np.zeros((batch, n))
    eye = np.eye(n)
    for _ in range(_NEWTON_STEPS):
        p = 1 / (1 + np.exp(r[:, None, :] - r[:, :, None]))  # P(i beats j) = σ(r_i - r_j)
        gradient = (scores - games * p).sum(axis=2) - precision * r
        weight = games * p * (1 - p)
        hessian = weight - eye * (weight.sum(axis=2)[:, :, None] + precision)
        step = np.linalg.solve(hessian, gradient[..., None])[..., 0]
        step = np.clip(step, -4, 4)  # damped: never more than 4 log-odds (695 Elo) a step
        r = r - step
        if np.abs(step).max() < _TOLERANCE:
            break
    return r


def _posterior_sd(rating: np.ndarray, games: np.ndarray) -> np.ndarray:
    """Each rating's standard deviation under the normal approximation of the posterior
    at its maximum (the inverse of the negative Hessian), of the ratings as centred."""
    n = len(rating)
    p = 1 / (1 + np.exp(rating[None, :] - rating[:, None]))
    weight = games * p * (1 - p)
    precision = np.diag(weight.sum(axis=1) + (ELO / PRIOR_ELO) ** 2) - weight
    centre = np.eye(n) - 1 / n
    covariance = centre @ np.linalg.inv(precision) @ centre
    return np.sqrt(np.clip(np.diag(covariance), 0, None))


def _tally(games: Games) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each player's wins, draws and losses, from either seat."""
    n = len(games.players)
    tally = np.zeros((3, n), np.int64)
    for i, j, score, count in zip(
        games.first, games.second, games.score, games.counts, strict=True
    ):
        won = 0 if score == 1 else 1 if score == 0.5 else 2
        tally[won, i] += count
        tally[2 - won, j] += count
    return tally[0], tally[1], tally[2]


def _rows(results: Any) -> Iterable[Mapping[str, Any]]:
    """The rows of a DataFrame (as dicts), or of any iterable as they are."""
    to_dict = getattr(results, "to_dict", None)
    return to_dict("records") if callable(to_dict) else results


def _score(outcome: Any, n: int) -> float:
    """The first player's score for ``outcome``, or ValueError naming the result."""
    if isinstance(outcome, str) and outcome in _SCORES:
        return _SCORES[outcome]
    if isinstance(outcome, (int, float, np.number)) and float(outcome) in (0.0, 0.5, 1.0):
        return float(outcome)
    raise ValueError(
        f"result {n}: outcome {outcome!r:.40} is none of 'win', 'draw', 'loss' (or 1, 0.5, 0)"
    )
