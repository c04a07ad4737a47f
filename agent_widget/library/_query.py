"""SQL over every step of a library: DuckDB reading the step tables, locked down.

DuckDB runs in the process, reads Arrow datasets (so Parquet segments in a folder or
a bucket, only the columns and row groups a query needs) and answers a filter over
millions of rows in well under a second; its result converts to pandas directly.

A query is the user's SQL, and a library may be a stranger's: the tables are
registered first, then the engine is locked (no file or network access, no
extension installed or loaded, configuration frozen), so the SQL reads the tables
``steps``, ``episodes`` and ``runs`` and nothing else.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

import duckdb
import pyarrow as pa
from tqdm.auto import tqdm

from agent_widget.episodes import Rollout, load
from agent_widget.library._run_file import Run, RunError
from agent_widget.library._step_tables import (
    EPISODE_METADATA,
    FIXED,
    FROM_EPISODE,
    step_columns,
)
from agent_widget.library._tables import SEGMENT_NUMBER, Segment, SegmentStore, unified_schema

if TYPE_CHECKING:
    import pandas

# The fixed columns' types before any episode says otherwise (float actions make
# ``action`` DOUBLE).
_BASE = pa.schema(
    [
        ("run", pa.string()),
        ("file", pa.string()),
        ("segment", pa.string()),
        ("t", pa.int64()),
        ("action", pa.int64()),
        ("action_vector", pa.list_(pa.float64())),
        ("action_name", pa.string()),
        ("reward", pa.float64()),
        ("return_so_far", pa.float64()),
        ("return_to_go", pa.float64()),
        ("terminated", pa.bool_()),
        ("truncated", pa.bool_()),
    ]
)
assert tuple(_BASE.names) == FIXED
_EPISODES = pa.schema(
    [
        ("run", pa.string()),
        ("episode", pa.int64()),
        ("env_id", pa.string()),
        ("algorithm", pa.string()),
        ("seed", pa.int64()),
        ("length", pa.int64()),
        ("return", pa.float64()),
        ("success", pa.bool_()),
        ("training_step", pa.int64()),
        ("checkpoint", pa.string()),
        ("file", pa.string()),
        ("name", pa.string()),  # the file's name in the run: what segments say
        (SEGMENT_NUMBER, pa.int32()),  # the segment read: its place in the dataset
    ]
)
_ATTEMPTS = 3  # a query runs again when a merge took a segment it was reading
_LOADERS = 8  # episodes opened at once when building tables (a bucket waits on requests)
_LOCK = (
    "SET enable_external_access = false",
    "SET lock_configuration = true",
)
_CONFIG: dict[str, str | bool | int | float | list[str]] = {
    "autoinstall_known_extensions": False,
    "autoload_known_extensions": False,
    "allow_community_extensions": False,
    "python_enable_replacements": False,  # no DataFrame found by name in Python's frames
}


class QueryError(ValueError):
    """A query the engine refused or could not run; the message is the engine's."""


class StepTables:
    """The step tables of a library: the segments kept with it, and those a query builds
    for episodes without one (then kept too)."""

    def __init__(self, store: SegmentStore, storage_options: dict[str, Any] | None) -> None:
        self.store = store
        self._storage_options = storage_options
        self._broken: dict[str, str] = {}  # episode location -> why its table is missing
        self.errors: list[RunError] = []
        """What the last query's tables left out: unreadable segments and episodes."""
        self._reading: list[Segment] = []  # the segments the last connection reads
        # The connection queries that only read share: (listing, connection, segments read).
        self._kept: tuple[Any, duckdb.DuckDBPyConnection, list[Segment]] | None = None
        self._one_at_a_time = threading.Lock()  # DuckDB refuses a connection two queries

    def query(
        self,
        runs: Sequence[Run],
        sql: str,
        progress: bool = True,
        seconds: float | None = None,
        memory: str | None = None,
    ) -> pandas.DataFrame:
        """``sql`` over the tables of ``runs``; problems with episodes go to :attr:`errors`.

        A merge deleting a segment between the listing and the reading fails the query
        (the rows it read are thrown away, none returned): it is run again on a fresh
        listing, up to ``_ATTEMPTS`` times, as merges are rare and quick. It stops after
        ``seconds`` and past ``memory`` (``"4GB"``), with a :class:`QueryError`.

        A query that only reads (``SELECT``) runs on the connection kept from the last
        one while the listing is unchanged: a repeated query costs the listing, not the
        tables registered again. Any other statement (``CREATE TEMP TABLE``, ``DROP
        VIEW steps``) gets a connection of its own, closed after it, so that no query
        changes what the next one sees. Queries from several threads take turns."""
        reads_only = _reads_only(sql)
        for attempt in range(1, _ATTEMPTS + 1):
            with self._one_at_a_time:
                connection = self.connect(runs, progress, memory, kept=reads_only)
                try:
                    found = _answered(connection, sql, seconds)
                except duckdb.Error as error:
                    if attempt < _ATTEMPTS and self.store.gone(self._reading):
                        self._kept = None  # it reads a segment merged away: made again
                        connection.close()
                        continue
                    raise QueryError(_explained(error, memory)) from None
                finally:
                    if not reads_only:
                        connection.close()
            if found is None:  # a statement with no result
                import pandas

                return pandas.DataFrame()
            return found
        raise AssertionError("unreachable: the last attempt returns or raises")

    def connect(
        self,
        runs: Sequence[Run],
        progress: bool = True,
        memory: str | None = None,
        kept: bool = False,
    ) -> duckdb.DuckDBPyConnection:
        """A locked connection holding the tables ``steps``, ``episodes`` and ``runs``,
        using at most ``memory`` (DuckDB's ``memory_limit``; by default half the
        machine's); sets :attr:`errors` to what was left out of them. With ``kept``, the
        connection the last such call made while the runs, the segment each episode is
        read from and ``memory`` are the same (the caller must not close it), else a new
        one, kept in its place."""
        segments, unreadable = self.store.read()
        self.errors = [RunError(path, why) for path, why in unreadable]
        chosen = _chosen(segments)
        missing = [
            (run, file)
            for run in runs
            for file in (e.file for e in run.episodes)
            if (run.id, file) not in chosen and str(run.location(file)) not in self._broken
        ]
        for segment in self._build(missing, progress):
            segments.append(segment)
            chosen.update({(segment.run, file): segment for file in segment.episodes})
        self.errors += [RunError(where, why) for where, why in self._broken.items()]
        read = [chosen.get((run.id, e.file)) for run in runs for e in run.episodes]
        memory = memory or _half_the_memory()
        listing = (memory, tuple(runs), [s and (s.run, s.name) for s in read])
        if kept and self._kept is not None and self._kept[0] == listing:
            self._reading = self._kept[2]
            return self._kept[1]
        # Only segments holding a listed episode are read: a removed run's cost nothing.
        used = list({id(s): s for s in read if s is not None}.values())
        self._reading = used
        schema = unified_schema([_BASE, *(s.schema for s in used)])
        connection = duckdb.connect(config={**_CONFIG, "memory_limit": memory})
        connection.register("_steps", self.store.dataset(used, schema))
        numbers = {(s.run, s.name): i for i, s in enumerate(used)}
        episodes = _episodes(runs, chosen, numbers)
        connection.register("_episodes", episodes)
        connection.register("_runs", _runs(runs))
        for statement in _views(schema, episodes.schema):
            connection.execute(statement)
        for statement in _LOCK:
            connection.execute(statement)
        if kept:
            if self._kept is not None:
                self._kept[1].close()
            self._kept = (listing, connection, used)
        return connection

    def _build(self, missing: list[tuple[Run, str]], progress: bool) -> list[Segment]:
        """Segments for the ``missing`` episodes (one per run); those that cannot be read
        are noted in ``_broken``, left out."""
        if not missing:
            return []
        built: dict[str, list[tuple[str, Rollout]]] = {}
        bar = tqdm(total=len(missing), desc="step tables", unit="episode", disable=not progress)
        with ThreadPoolExecutor(_LOADERS) as pool, bar:
            for (run, file), loaded in zip(missing, pool.map(self._load, missing), strict=True):
                bar.update()
                if loaded is not None:
                    built.setdefault(run.id, []).append((file, loaded))
        return [self.store.write(run_id, episodes) for run_id, episodes in built.items()]

    def _load(self, entry: tuple[Run, str]) -> Rollout | None:
        run, file = entry
        location = run.location(file)
        try:
            rollout = load(location, storage_options=self._storage_options)
            # Infos are read a chunk at a time, and an episode may hold what no table
            # can: fail here, for this episode alone, not when its run's segment is made.
            step_columns(rollout)
            return rollout
        except Exception as error:  # whatever one file holds, the others are tabled
            why = str(error) if str(location) in str(error) else f"{location}: {error}"
            self._broken[str(location)] = f"{why} (left out of the step tables)"
            return None


def _chosen(segments: Sequence[Segment]) -> dict[tuple[str, str], Segment]:
    """(run id, episode file) -> the oldest segment holding that episode."""
    chosen: dict[tuple[str, str], Segment] = {}
    for segment in segments:  # oldest first
        for file in segment.episodes:
            chosen.setdefault((segment.run, file), segment)
    return chosen


def _episodes(
    runs: Sequence[Run],
    chosen: dict[tuple[str, str], Segment],
    numbers: dict[tuple[str, str], int],
) -> pa.Table:
    """One row per episode with a table: its summary (from run.json or a manifest), its
    number in the run (as ``lib.open(run)[i]`` takes it), the segment to read (its
    number in ``numbers``, by run and segment name), and for
    the agents of multi-agent runs (in the order first met) ``player_<agent>`` (who
    played that seat, where the episode's metadata says: an arena's games),
    ``return_<agent>`` and ``outcome_<agent>`` (``'win'``, ``'draw'``, ``'loss'``; NULL
    where the game has no winner, or the agent is not in it)."""
    rows, agents = [], {}
    for run in runs:
        for i, episode in enumerate(run.episodes):
            segment = chosen.get((run.id, episode.file))
            if segment is None:
                continue
            metadata = segment.episodes[episode.file]
            returns, outcomes = episode.agent_returns or {}, episode.agent_outcomes or {}
            players = episode.players or {}
            agents.update(dict.fromkeys([*returns, *players]))
            rows.append(
                {
                    "run": run.id,
                    "episode": i,
                    "env_id": run.env_id,
                    "algorithm": run.algorithm,
                    "seed": episode.seed,
                    "length": episode.steps,
                    "return": episode.total_return,
                    "success": episode.success,
                    "training_step": _int_or_none(metadata.get("training_step")),
                    "checkpoint": _str_or_none(metadata.get("checkpoint")),
                    "file": str(run.location(episode.file)),
                    "name": episode.file,
                    SEGMENT_NUMBER: numbers[segment.run, segment.name],
                    **{f"return_{agent}": total for agent, total in returns.items()},
                    **{f"outcome_{agent}": outcome for agent, outcome in outcomes.items()},
                    **{f"player_{agent}": player for agent, player in players.items()},
                }
            )
    per_agent = [
        field
        for agent in agents
        for field in (
            pa.field(f"player_{agent}", pa.string()),
            pa.field(f"return_{agent}", pa.float64()),
            pa.field(f"outcome_{agent}", pa.string()),
        )
        if field.name not in _EPISODES.names
    ]
    schema = pa.schema([*_EPISODES, *per_agent])
    return pa.Table.from_pylist(rows, schema=schema)


def _runs(runs: Sequence[Run]) -> pa.Table:
    """The leaderboard's rows (params as JSON text: DuckDB's json functions read it)."""
    rows = [{**run.row(), "params": json.dumps(run.params)} for run in runs]
    schema = pa.schema(
        [
            ("id", pa.string()),
            ("env_id", pa.string()),
            ("algorithm", pa.string()),
            ("run", pa.string()),
            ("episodes", pa.int64()),
            ("return_mean", pa.float64()),
            ("return_std", pa.float64()),
            ("success_rate", pa.float64()),
            ("steps", pa.int64()),
            ("created", pa.string()),
            ("params", pa.string()),
        ]
    )
    return pa.Table.from_pylist(rows, schema=schema)


def _views(schema: pa.Schema, episodes: pa.Schema) -> list[str]:
    """The views the user's SQL sees: ``steps`` joins each step to its episode, which
    keeps out episodes no longer listed and copies a second segment left."""
    hidden = {"run", "file", "segment", SEGMENT_NUMBER}
    first = ("t", "action", "action_vector", "action_name", "reward")
    taken = {*hidden, *first, *FROM_EPISODE}  # a segment written elsewhere may hold these
    rest = [name for name in schema.names if name not in taken]
    columns = [
        *(f"e.{c}" for c in ("run", "env_id", "algorithm", "episode", "seed")),
        *(f"s.{_quoted(c)}" for c in (*first, *rest)),
        *(f"e.{c}" for c in EPISODE_METADATA),
    ]
    episode_columns = [c for c in episodes.names if c not in ("name", SEGMENT_NUMBER)]
    number = _quoted(SEGMENT_NUMBER)
    return [
        f"CREATE VIEW steps AS SELECT {', '.join(columns)} FROM _steps s JOIN _episodes e "
        f"ON s.{number} = e.{number} AND s.file = e.name",
        f"CREATE VIEW episodes AS SELECT {', '.join(map(_quoted, episode_columns))} FROM _episodes",
        "CREATE VIEW runs AS SELECT * FROM _runs",
    ]


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _explained(error: duckdb.Error, memory: str | None) -> str:
    """The engine's message, with what a refusal means; out of memory, the limit and how
    to raise it (DuckDB's own advice names settings the lock refuses)."""
    if isinstance(error, duckdb.OutOfMemoryException):
        first = str(error).split("\n", 1)[0]
        return (
            f"{type(error).__name__}: {first}\n(a query may use {memory or _half_the_memory()}"
            " of memory: query(..., memory_limit='16GB') allows more)"
        )
    message = f"{type(error).__name__}: {error}"
    if isinstance(error, duckdb.PermissionException) or "lock" in str(error).lower():
        message += (
            "\n(a query reads the library's tables steps, episodes and runs, and nothing "
            "else: no files, network, extensions or settings)"
        )
    return message


def _reads_only(sql: str) -> bool:
    """Whether ``sql`` is only ``SELECT`` statements (``DESCRIBE``, ``SUMMARIZE`` and
    ``VALUES`` are too), which leave the connection as they found it; one the parser
    refuses too, as the engine refuses it the same way on any connection."""
    try:
        statements = duckdb.extract_statements(sql)
    except duckdb.Error:
        return True
    return all(s.type == duckdb.StatementType.SELECT for s in statements)


def _half_the_memory() -> str:
    """Half this machine's memory, as DuckDB's ``memory_limit`` reads it: the rest for
    the kernel and the result's DataFrame (DuckDB's own default is 80%)."""
    total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    return f"{total // 2 // 2**20}MB"


def _answered(
    connection: duckdb.DuckDBPyConnection, sql: str, seconds: float | None
) -> pandas.DataFrame | None:
    """``sql``'s result, run on a thread of its own while this one waits where Ctrl-C
    and the timeout land. Run on this thread, a query sees Ctrl-C only when DuckDB
    polls for signals, and under load it missed some: 3 of 12 interrupted queries ran
    on. Stopped, the query fails with a :class:`QueryError` saying why."""
    answer: list[Any] = []
    answered = threading.Event()  # not Thread.join: Ctrl-C in it marks a thread ended

    def run() -> None:
        try:
            relation = connection.sql(sql)
            answer.append(None if relation is None else relation.df())
        except BaseException as error:  # handed to the waiting thread, raised there
            answer.append(error)
        finally:
            answered.set()

    threading.Thread(target=run, name="agent-widget-query", daemon=True).start()
    stopped = None
    try:
        if not answered.wait(seconds):
            stopped = f"the query ran over its timeout of {seconds} s, and was stopped"
    except KeyboardInterrupt:
        stopped = "the query was stopped by Ctrl-C"
    if stopped is not None:
        connection.interrupt()
        answered.wait()
        raise QueryError(stopped)
    (found,) = answer
    if isinstance(found, BaseException):
        raise found
    return found


def _int_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None
