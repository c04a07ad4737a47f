"""A run's ``run.json``: who made the run, and one summary line per episode.

A run is a folder ``<root>/<env_id>/<algorithm>/<run>/`` holding episode files
``episode-000.rollout``, ``episode-001.rollout``, ... and ``run.json``::

    {"format": "agent-widget.run", "version": 1,
     "env_id": "FrozenLake-v1", "algorithm": "sarsa", "run": "alpha0.1",
     "params": {"alpha": 0.1}, "created": "2026-11-29T12:00:00+00:00",
     "episodes": [{"file": "episode-000.rollout", "return": 1.0, "steps": 17,
                   "success": true, "seed": 0}, ...]}

The summary of an episode is a function of its file alone (:func:`summarize`), so
``run.json`` can always be rebuilt from the episode files: that is what lets several
writers add to one run without a lock (see :mod:`agent_widget.library._run_writer`). Reading
the leaderboard reads these files only, never an episode.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple, TypeGuard
from urllib.parse import quote

import numpy as np

from agent_widget.episodes import OUTCOMES, Outcome, Rollout, zero_sum
from agent_widget.format import checked_name
from agent_widget.library._regular_files import read_regular

FORMAT = "agent-widget.run"
VERSION = 1
RUN_FILE = "run.json"
EPISODE_FILE = re.compile(r"episode-(\d{3,})\.rollout")
ROW_COLUMNS = (
    "id",
    "env_id",
    "algorithm",
    "run",
    "episodes",
    "return_mean",
    "return_std",
    "agent_returns",
    "agent_outcomes",
    "success_rate",
    "steps",
    "created",
    "params",
)
MAX_RUN_FILE_BYTES = 64 * 2**20
_BYTES_PER_CONTAINER = 16  # parsed JSON may hold an array or object in this many bytes
_FEW_CONTAINERS = 256  # a small file always may (a header and its params)
# Kept as they are in folder names; everything else is percent-encoded, so any env id
# (e.g. "ALE/Pong-v5" -> "ALE%2FPong-v5") is one safe folder name on every OS.
_SAFE = "-_.+=,@"
# Keys of the last info that, when present, say whether the episode succeeded
# (gymnasium-robotics, metaworld and minigrid wrappers use one or the other).
_SUCCESS_KEYS = ("is_success", "success")


def episode_file(number: int) -> str:
    """The file name of episode ``number``: ``episode-007.rollout``."""
    return f"episode-{number:03d}.rollout"


def episode_number(file: str) -> int:
    """The number of the episode in ``file`` (a name matching ``EPISODE_FILE``)."""
    return int(file[len("episode-") : -len(".rollout")])


def episode_files(folder: Path) -> list[str]:
    """The episode files in ``folder``, in episode order (temporary files are not listed)."""
    return sorted(filter(EPISODE_FILE.fullmatch, os.listdir(folder)), key=episode_number)


class RunError(NamedTuple):
    """A run (in a bucket, or a writer's manifest) that could not be read, and why."""

    path: Path | str
    message: str


@dataclass(frozen=True)
class EpisodeSummary:
    """One episode of a run, as ``run.json`` lists it."""

    file: str
    total_return: float
    steps: int
    success: bool | None = None
    seed: int | None = None
    # A multi-agent episode's return per agent, by name (absent for one agent).
    agent_returns: dict[str, float] | None = None
    # Its outcome per agent where the game has a winner (Rollout.outcomes); absent in
    # files written before outcomes were kept, and where a game has none.
    agent_outcomes: dict[str, Outcome] | None = None
    # Who played each agent's seat (metadata["players"], as the arena records games).
    players: dict[str, str] | None = None

    def to_json(self) -> dict[str, Any]:
        entry: dict[str, Any] = {
            "file": self.file,
            "return": self.total_return,
            "steps": self.steps,
            "success": self.success,
            "seed": self.seed,
        }
        agents = {
            "agent_returns": self.agent_returns,
            "agent_outcomes": self.agent_outcomes,
            "players": self.players,
        }
        return entry | {key: value for key, value in agents.items() if value is not None}

    @classmethod
    def from_json(cls, entry: Any, names: re.Pattern[str] = EPISODE_FILE) -> EpisodeSummary:
        """Parse one entry of ``episodes``, or raise ValueError saying what is wrong."""
        if not isinstance(entry, dict):
            raise ValueError(f"expected an object, got {type(entry).__name__}")
        file, total, steps = entry.get("file"), entry.get("return"), entry.get("steps")
        success, seed = entry.get("success"), entry.get("seed")
        if not isinstance(file, str) or not names.fullmatch(file):
            raise ValueError(f"'file' must be a name matching {names.pattern}")
        if not _is_number(total) or not math.isfinite(total):
            raise ValueError("'return' must be a finite number")
        if not _is_int(steps) or steps < 0:
            raise ValueError("'steps' must be a count of actions")
        if success is not None and not isinstance(success, bool):
            raise ValueError("'success' must be true, false or null")
        if seed is not None and not _is_int(seed):
            raise ValueError("'seed' must be an integer or null")
        agents = entry.get("agent_returns")
        if agents is not None and not (
            isinstance(agents, dict)
            and all(_is_number(v) and math.isfinite(v) for v in agents.values())
        ):
            raise ValueError("'agent_returns' must map agent names to finite numbers")
        agent_returns = None if agents is None else {k: float(v) for k, v in agents.items()}
        outcomes = entry.get("agent_outcomes")
        if outcomes is not None and not (
            isinstance(outcomes, dict) and all(v in OUTCOMES for v in outcomes.values())
        ):
            raise ValueError(f"'agent_outcomes' must map agent names to one of {OUTCOMES}")
        players = entry.get("players")
        if players is not None and _players(players) is None:
            raise ValueError("'players' must map agent names to player names")
        return cls(file, float(total), steps, success, seed, agent_returns, outcomes, players)


def summarize(rollout: Rollout, file: str) -> EpisodeSummary:
    """The summary of ``rollout`` saved as ``file``: return, steps, success, seed.

    Success is ``metadata["success"]`` when set (the library sets it from the user's
    ``success=``), else the last info's ``is_success`` or ``success``, else unknown.
    """
    metadata = rollout.metadata
    success = metadata.get("success")
    if success is None and rollout.infos is not None and rollout.num_positions:
        last = rollout.infos[-1]
        success = next((last[key] for key in _SUCCESS_KEYS if key in last), None)
    seed = metadata.get("seed")
    bad = np.flatnonzero(~np.isfinite(rollout.rewards))
    if len(bad):
        raise ValueError(
            f"the reward at step {bad[0]} is {rollout.rewards[bad[0]]}: a leaderboard ranks "
            "finite returns (view the episode to see what happened there)"
        )
    return EpisodeSummary(
        file=file,
        total_return=float(np.sum(rollout.rewards, dtype=np.float64)),
        steps=rollout.num_steps,
        success=None if success is None else bool(success),
        seed=seed if _is_int(seed) else None,
        agent_returns=_agent_returns(rollout),
        agent_outcomes=rollout.outcomes,
        players=_players(metadata.get("players")),
    )


def _players(players: Any) -> dict[str, str] | None:
    """``players`` when it maps names to names (who played which seat), else None."""
    if isinstance(players, dict) and all(
        isinstance(k, str) and isinstance(v, str) for k, v in players.items()
    ):
        return players
    return None


def _agent_returns(rollout: Rollout) -> dict[str, float] | None:
    """Each agent's return (steps it was absent from count 0), or None for one agent."""
    if not rollout.agents:
        return None
    totals = np.atleast_1d(np.nansum(rollout.agent_rewards, axis=0, dtype=np.float64))
    return {agent: float(total) for agent, total in zip(rollout.agents, totals, strict=True)}


def summarize_all(rollouts: Sequence[Rollout], files: Sequence[str]) -> list[EpisodeSummary]:
    """The summaries of ``rollouts`` saved as ``files``; ValueError naming the episode that
    cannot be summarized (taken before anything is written)."""
    summaries = []
    for i, (rollout, file) in enumerate(zip(rollouts, files, strict=True)):
        try:
            summaries.append(summarize(rollout, file))
        except ValueError as error:
            raise ValueError(f"episode {i} cannot be added: {error}") from None
    return summaries


@dataclass(frozen=True)
class Run:
    """A run of the library: what ``run.json`` says, plus where it lies.

    ``id`` is the run folder relative to the library root (``env/algorithm/run``,
    with characters unsafe in file names percent-encoded); ``run`` is its name;
    ``path`` the folder, or the run's URL in a bucket.
    """

    id: str
    path: Path | str
    env_id: str
    algorithm: str
    run: str
    params: dict[str, Any]
    created: str
    episodes: tuple[EpisodeSummary, ...] = field(repr=False)

    def location(self, file: str) -> Path | str:
        """Where the run's episode ``file`` lies: a path, or a URL."""
        return self.path / file if isinstance(self.path, Path) else f"{self.path}/{file}"

    @property
    def returns(self) -> np.ndarray:
        """The return of each episode, in episode order."""
        return np.array([e.total_return for e in self.episodes], np.float64)

    @property
    def agent_returns(self) -> dict[str, float] | None:
        """Each agent's mean return over the episodes it has one in (a multi-agent run),
        so a leaderboard ranks per agent; None when no episode has agents."""
        by_agent: dict[str, list[float]] = {}
        for episode in self.episodes:
            for agent, total in (episode.agent_returns or {}).items():
                by_agent.setdefault(agent, []).append(total)
        if not by_agent:
            return None
        return {agent: float(np.mean(totals)) for agent, totals in by_agent.items()}

    @property
    def agent_outcomes(self) -> dict[str, dict[Outcome, int]] | None:
        """Each player's count of wins, draws and losses (``{"player_0": {"win": 3,
        "draw": 1, "loss": 2}}``) over the episodes whose games have a winner; None when
        none has (one agent, a cooperative game, a run listed before outcomes were kept).
        A player is its agent (seat), or the name the episode gives whoever sat there
        (an arena's ``players``): an arena swaps seats, so a count by seat would mix two
        players' games."""
        counts: dict[str, dict[Outcome, int]] = {}
        for episode in self.episodes:
            players = episode.players or {}
            for agent, outcome in (episode.agent_outcomes or {}).items():
                player = players.get(agent, agent)
                counts.setdefault(player, dict.fromkeys(OUTCOMES, 0))[outcome] += 1
        return counts or None

    @property
    def zero_sum(self) -> bool:
        """Whether this is a multi-agent run whose every episode is zero-sum: its summed
        return is 0 whoever wins, so the leaderboard shows none."""
        agents = [e.agent_returns for e in self.episodes]
        return bool(agents) and all(a is not None and zero_sum(list(a.values())) for a in agents)

    @property
    def success_rate(self) -> float | None:
        """Share of the episodes that succeeded, among those that say; None if none says."""
        known = [e.success for e in self.episodes if e.success is not None]
        return sum(known) / len(known) if known else None

    def row(self) -> dict[str, Any]:
        """The run as one leaderboard row (std is the population std of the returns;
        neither for a zero-sum run, where the summed return is always 0)."""
        returns = np.zeros(0) if self.zero_sum else self.returns
        return {
            "id": self.id,
            "env_id": self.env_id,
            "algorithm": self.algorithm,
            "run": self.run,
            "episodes": len(self.episodes),
            "return_mean": float(returns.mean()) if len(returns) else None,
            "return_std": float(returns.std()) if len(returns) else None,
            "agent_returns": self.agent_returns,
            "agent_outcomes": self.agent_outcomes,
            "success_rate": self.success_rate,
            "steps": sum(e.steps for e in self.episodes),
            "created": self.created,
            "params": self.params,
        }

    def header(self) -> dict[str, Any]:
        """``run.json`` without its episodes: fixed when the run is created."""
        return {
            "format": FORMAT,
            "version": VERSION,
            "env_id": self.env_id,
            "algorithm": self.algorithm,
            "run": self.run,
            "params": self.params,
            "created": self.created,
        }


def check_same_run(existing: dict[str, Any], run: Run, where: str) -> None:
    """ValueError unless episodes of ``run`` may go to the run whose header is ``existing``
    (found at ``where``): the same names, and the same params unless ``run`` has none."""
    for key in ("env_id", "algorithm", "run"):
        if existing[key] != getattr(run, key):
            raise ValueError(f"{where} holds {key} {existing[key]!r}, not {getattr(run, key)!r}")
    if run.params and run.params != existing["params"]:
        raise ValueError(
            f"run {run.run!r} already exists in {where} with params {existing['params']}, "
            f"not {run.params}: pick another run name, or leave params out to add episodes"
        )


def run_json(run: Run, episodes: Sequence[EpisodeSummary]) -> bytes:
    """The ``run.json`` of ``run`` listing ``episodes``: the header, then one line per episode."""
    header = json.dumps(run.header(), indent=1, allow_nan=False)
    lines = ",\n  ".join(json.dumps(e.to_json(), allow_nan=False) for e in episodes)
    return f'{header[:-2]},\n "episodes": [\n  {lines}\n ]\n}}\n'.encode()


def read_run(folder: Path, run_id: str) -> Run:
    """The run in ``folder``, checked; ValueError naming the folder and the problem.

    Episodes that ``run.json`` lists must exist; episode files it does not list yet
    (a writer adding them right now) are left out until it does.
    """
    where = f"{folder}/{RUN_FILE}"
    try:
        data = read_regular(folder / RUN_FILE, MAX_RUN_FILE_BYTES)
        present = set(episode_files(folder))
    except FileNotFoundError:
        raise ValueError(
            f"{folder}: no {RUN_FILE} (the run is half-written or not a run)"
        ) from None
    except OSError as error:
        if error.filename != str(folder / RUN_FILE):  # the folder's listing
            raise ValueError(f"{folder}: cannot list ({error.strerror})") from None
        raise ValueError(f"{where}: cannot read ({error.strerror})") from None
    if len(data) > MAX_RUN_FILE_BYTES:
        raise ValueError(f"{where}: implausibly large (over {MAX_RUN_FILE_BYTES} bytes)")
    meta = parsed_json(data, where)
    header = check_header(meta, where)
    episodes = check_episodes(meta.get("episodes"), where)
    missing = [e.file for e in episodes if e.file not in present]
    if missing:
        raise ValueError(f"{where} lists {', '.join(missing)}, missing from the folder")
    return Run(id=run_id, path=folder, **header, episodes=episodes)


def parsed_json(data: bytes, where: str) -> Any:
    """``data`` parsed, or ValueError starting with ``where``; the listing goes on without it.

    Parsing costs memory by the value: an empty array is 3 bytes of text and ~80 of
    Python (a 63 MB file of them took 1.7 GB), so text with more than one array or
    object in ``_BYTES_PER_CONTAINER`` bytes is refused unparsed. What the package
    writes has one an episode, in 80 bytes or more; other values cost at most ~12x
    their text, as a real run's summaries do (~9x)."""
    containers = data.count(b"[") + data.count(b"{")  # in strings too: a bound, not a count
    if containers > len(data) // _BYTES_PER_CONTAINER + _FEW_CONTAINERS:
        raise ValueError(
            f"{where}: not read: {containers:,} arrays and objects in {len(data):,} bytes, "
            f"more than one in {_BYTES_PER_CONTAINER} bytes as no file the package writes has"
        )
    try:
        return json.loads(data)
    # ValueError: not UTF-8, not JSON, an integer of thousands of digits; RecursionError:
    # arrays nested thousands deep. Either way this file is listed apart, the others shown.
    except (ValueError, RecursionError) as error:
        raise ValueError(f"{where}: not valid JSON ({type(error).__name__}: {error})") from None


def check_header(meta: Any, where: str) -> dict[str, Any]:
    """The run's names, params and creation time from a parsed ``run.json`` (or a
    bucket's copy of it), checked; ValueError starting with ``where`` otherwise."""
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise ValueError(f"{where}: not an {FORMAT} file ('format' is missing or different)")
    version = meta.get("version")
    if not _is_int(version) or version < 1:
        raise ValueError(f"{where}: no format version (1 to {VERSION}): {version!r:.50}")
    if version > VERSION:
        raise ValueError(f"{where}: version {version} is newer than this agent-widget reads")
    for key in ("env_id", "algorithm", "run", "created"):
        if not isinstance(meta.get(key), str) or not meta[key]:
            raise ValueError(f"{where}: {key!r} is missing or not a non-empty string")
    if not isinstance(meta.get("params"), dict):
        raise ValueError(f"{where}: 'params' is missing or not an object")
    return {key: meta[key] for key in ("env_id", "algorithm", "run", "params", "created")}


def check_episodes(
    entries: Any, where: str, names: re.Pattern[str] = EPISODE_FILE
) -> tuple[EpisodeSummary, ...]:
    """The episode summaries of a parsed list, each file named as ``names`` says, none twice."""
    if not isinstance(entries, list):
        raise ValueError(f"{where}: 'episodes' is missing or not a list")
    episodes = []
    for i, entry in enumerate(entries):
        try:
            episodes.append(EpisodeSummary.from_json(entry, names))
        except ValueError as error:
            raise ValueError(f"{where}: episodes[{i}]: {error}") from None
    files = [e.file for e in episodes]
    if len(set(files)) != len(files):
        raise ValueError(f"{where}: 'episodes' lists a file twice")
    return tuple(episodes)


def folder_name(name: str) -> str:
    """``name`` (of an env, algorithm or run) as one folder name: percent-encoded, at most
    255 bytes, never hidden."""
    if not isinstance(name, str) or not name:
        raise ValueError(f"names of envs, algorithms and runs must be non-empty strings: {name!r}")
    encoded = quote(name, safe=_SAFE)
    folder = "%2E" + encoded[1:] if encoded.startswith(".") else encoded
    try:
        return checked_name(folder)
    except ValueError:
        raise ValueError(
            f"the name {name[:40]!r}... makes a folder name of {len(folder)} bytes (it is "
            "percent-encoded); file systems take at most 255: choose a shorter one"
        ) from None


def _is_int(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> TypeGuard[float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool)
