"""Arena ratings: how often the 95% intervals cover the true ratings, and how fast.

Coverage: tournaments of players with known Bradley–Terry strengths ``s`` (drawn from
a normal of 1 log-odds, 174 Elo points), round robin, each pairing playing as many
games from each seat, each game won by the first with probability
``σ(s_first - s_second)``; rated through the plain-table entry
(``agent_widget.arena.ratings``); a player's interval covers when it holds its true
rating, ``1000 + (s - mean(s)) · 400 / ln 10``. Each scenario's coverage is over every
player of every tournament.

Speed: ``ratings`` of 10,000 games among 8 players with 1,000 bootstrap resamples,
from a pandas DataFrame to the rated table (the process's CPU time, median of 5).

    .venv/bin/python -m benchmarks.ratings            # prints and updates RESULTS.md
"""

from __future__ import annotations

import os
import statistics
import time
from typing import Any

import numpy as np
import pandas

from agent_widget.arena import ratings
from agent_widget.arena._ratings import BASE, ELO
from benchmarks.results import arguments, code_version, command, machine, publish, today

TITLE = "Arena ratings"
SCENARIOS = ((8, 20), (8, 6), (4, 100))  # (players, games per pairing)
COVERAGE_BAR = (0.91, 0.98)
SPEED_GAMES, SPEED_PLAYERS, RESAMPLES = 10_000, 8, 1_000
SPEED_BAR = 1.0  # seconds


def tournament(rng: np.random.Generator, strengths: np.ndarray, per_pair: int) -> Any:
    """A round robin of ``per_pair`` games a pairing (half from each seat), as a table."""
    rows = []
    n = len(strengths)
    for i in range(n):
        for j in range(i + 1, n):
            for g in range(per_pair):
                first, second = (i, j) if g % 2 == 0 else (j, i)
                p = 1 / (1 + np.exp(strengths[second] - strengths[first]))
                won = rng.random() < p
                rows.append((f"p{first}", f"p{second}", "win" if won else "loss"))
    return pandas.DataFrame(rows, columns=["first", "second", "outcome"])


def coverage(tournaments: int, players: int, per_pair: int) -> dict[str, float]:
    rng = np.random.default_rng(players * 1000 + per_pair)
    covered, widths = [], []
    for t in range(tournaments):
        s = rng.normal(0.0, 1.0, players)
        table = ratings(tournament(rng, s, per_pair), seed=t).set_index("player")
        truth = BASE + ELO * (s - s.mean())
        for i in range(players):
            row = table.loc[f"p{i}"]
            covered.append(row["lower"] <= truth[i] <= row["upper"])
            widths.append(row["upper"] - row["lower"])
    return {"coverage": float(np.mean(covered)), "width": float(np.median(widths))}


def speed(repeats: int = 5) -> float:
    rng = np.random.default_rng(1)
    s = rng.normal(0.0, 1.0, SPEED_PLAYERS)
    pairs = np.array([rng.choice(SPEED_PLAYERS, 2, replace=False) for _ in range(SPEED_GAMES)])
    won = rng.random(SPEED_GAMES) < 1 / (1 + np.exp(s[pairs[:, 1]] - s[pairs[:, 0]]))
    table = pandas.DataFrame(
        {
            "first": [f"p{i}" for i in pairs[:, 0]],
            "second": [f"p{j}" for j in pairs[:, 1]],
            "outcome": np.where(won, "win", "loss"),
        }
    )
    times = []
    for _ in range(repeats):
        start = time.process_time()
        ratings(table, resamples=RESAMPLES)
        times.append(time.process_time() - start)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> None:
    parser = arguments(__doc__.splitlines()[0])
    parser.add_argument("--tournaments", type=int, default=200)
    args = parser.parse_args(argv)
    load_start = os.getloadavg()[0]
    found = {scenario: coverage(args.tournaments, *scenario) for scenario in SCENARIOS}
    seconds = speed()
    low, high = COVERAGE_BAR
    rows = "\n".join(
        f"| {players} | {per_pair} | {players * (players - 1) // 2 * per_pair:,} "
        f"| {f['coverage']:.1%} | {f['width']:.0f} |"
        for (players, per_pair), f in found.items()
    )
    main_coverage = found[SCENARIOS[0]]["coverage"]
    verdict = "meets it" if low <= main_coverage <= high else "MISSES it"
    speed_verdict = "meets it" if seconds < SPEED_BAR else "MISSES it"
    body = "\n\n".join(
        [
            f"`{command('benchmarks.ratings', argv)}` ({today()}, code {code_version()}, "
            f"{machine(load_start)}).",
            f"Coverage of the 95% bootstrap intervals (1,000 resamples) over "
            f"{args.tournaments} simulated round robins a scenario: players with "
            "Bradley–Terry strengths drawn from a normal of sd 1 log-odds (174 Elo), half "
            "of each pairing's games from each seat, no draws; an interval covers when it "
            "holds the player's true rating, 1000 + (s - mean(s)) · 400 / ln 10.",
            "| players | games a pairing | games a tournament | coverage | median interval "
            "width (Elo) |\n|---:|---:|---:|---:|---:|\n" + rows,
            f"Bar ({SCENARIOS[0][0]} players, {SCENARIOS[0][1]} games a pairing): coverage in "
            f"{low:.0%}-{high:.0%}: {main_coverage:.1%}, {verdict}.",
            f"Speed: `ratings` of {SPEED_GAMES:,} games among {SPEED_PLAYERS} players with "
            f"{RESAMPLES:,} resamples, from a DataFrame to the rated table: {seconds:.2f} s "
            f"of CPU (median of 5); bar under {SPEED_BAR:.0f} s: {speed_verdict}.",
        ]
    )
    publish(TITLE, body, write=not args.no_write)


if __name__ == "__main__":
    main()
