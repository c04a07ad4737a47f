"""``RunLibrary``: runs organized by environment and algorithm in a folder or a bucket.

The folder is ``<root>/<env_id>/<algorithm>/<run>/`` with a ``run.json`` and
``episode-NNN.rollout`` files in each run (see :mod:`agent_widget.library._run_file`). Any
program that writes that layout adds runs, with no server and no shared index;
how writers stay out of each other's way is in :mod:`agent_widget.library._run_writer`.
A URL (``s3://bucket/runs``) keeps the same runs on an fsspec filesystem, written
as :mod:`agent_widget.library._bucket` says.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, overload

from agent_widget.episodes import ActionNames, Rollout, load
from agent_widget.format import is_url, remove_stale
from agent_widget.library._bucket import BucketRuns
from agent_widget.library._new_run import new_run
from agent_widget.library._run_file import (
    ROW_COLUMNS,
    RUN_FILE,
    Run,
    RunError,
    folder_name,
    read_run,
)
from agent_widget.library._run_folders import run_folders
from agent_widget.library._run_writer import write_run

if TYPE_CHECKING:
    import pandas

    from agent_widget.library._leaderboard import Leaderboard
    from agent_widget.library._moments import Moments
    from agent_widget.library._query import StepTables
    from agent_widget.library._tables import SegmentStore
    from agent_widget.panels import PanelsGiven

_WARNED_ERRORS = 3


class RunLibrary:
    """Runs by environment and algorithm, kept as plain files in ``root``.

    Args:
        root: the library folder, created by the first :meth:`add`; or a URL of any
            fsspec filesystem (``s3://bucket/runs``, ``gs://...``), whose package
            (s3fs, gcsfs) must be installed.
        storage_options: for a URL, what its filesystem takes (credentials,
            ``client_kwargs={"endpoint_url": ...}``), as pandas and xarray take them.

    Reading (:meth:`runs`, :meth:`table`) reads each run's ``run.json`` only (in a
    bucket, the writers' manifests). A run that cannot be read (half-written by another
    program, corrupted ``run.json``), or any entry on the way to one that cannot (a
    folder without permission, a symlink loop, a ``run.json`` that is a FIFO or a link
    to a device, never opened), is skipped with a warning and listed in :attr:`errors`
    with its path and why; the others are unaffected.

    Examples:
        >>> lib = RunLibrary("runs/")  # doctest: +SKIP
        >>> lib.add(rollouts, env_id="FrozenLake-v1", algorithm="sarsa",
        ...         run="alpha0.1", params={"alpha": 0.1})  # doctest: +SKIP
        >>> lib.table()[0]["return_mean"]  # doctest: +SKIP
        0.74
        >>> episodes = lib.open("FrozenLake-v1/sarsa/alpha0.1")  # doctest: +SKIP
        >>> far = RunLibrary("s3://bucket/runs", {"profile": "eval"})  # doctest: +SKIP
    """

    def __init__(
        self, root: str | os.PathLike[str], storage_options: dict[str, Any] | None = None
    ) -> None:
        self.root: Path | str
        self._bucket: BucketRuns | None = None
        if is_url(root):
            self._bucket = BucketRuns(root, storage_options)
            self.root = self._bucket.url
        elif storage_options is not None:
            raise ValueError(f"storage_options are for URLs (s3://...), not the folder {root}")
        else:
            self.root = Path(root)
        self.errors: list[RunError] = []
        """Runs the last :meth:`runs` (or :meth:`table`) could not read; after a
        :meth:`query`, the episodes too that its tables left out."""
        self._tables: StepTables | None = None
        self._segments: SegmentStore | None = None

    @property
    def storage_options(self) -> dict[str, Any] | None:
        """The filesystem options of a library at a URL; None for a folder."""
        return None if self._bucket is None else self._bucket.storage_options

    def add(
        self,
        rollouts: Rollout | Iterable[Rollout],
        *,
        env_id: str | None = None,
        algorithm: str | None = None,
        run: str | None = None,
        params: dict[str, Any] | None = None,
        success: Callable[[Rollout], bool] | None = None,
    ) -> Run:
        """Save episodes as a run, or add them to the run of that name; the run after.

        Args:
            rollouts: one rollout or several (episodes of the run).
            env_id: defaults to the rollouts' ``metadata["env_id"]``.
            algorithm: defaults to the rollouts' ``metadata["algorithm"]``.
            run: the run's name; defaults to the current UTC time and a random suffix.
            params: JSON-able hyperparameters shown on the leaderboard. Adding to an
                existing run with different params is a ValueError.
            success: whether an episode succeeded, for envs whose infos do not say
                (``is_success`` / ``success`` in the last info); kept in each episode
                file's metadata.

        Examples:
            >>> lib.add(record(env, policy, seed=0), algorithm="random")  # doctest: +SKIP
        """
        names = {"env_id": env_id, "algorithm": algorithm, "run": run}
        run_id, _ = self._write(rollouts, params=params, success=success, **names)
        return self.open(run_id).run

    def _write(
        self, rollouts: Rollout | Iterable[Rollout], **options: Any
    ) -> tuple[str, list[str]]:
        """What :meth:`add` does (``options``: its keywords) but read the run back, which
        costs every manifest in a bucket: the run's id and the files added."""
        record, episodes = new_run(rollouts, self._run_path, **options)
        if self._bucket is not None:
            files = self._bucket.add(record, episodes)
        else:
            folder = Path(record.path)
            for place in (folder.parent, folder):  # staging folders, then temporary files
                remove_stale(place)
            files = write_run(folder, record, episodes)
        store = self._segment_store()
        if store is not None:
            store.keep(record.id, files, episodes)
        return record.id, files

    def runs(self, env_id: str | None = None, algorithm: str | None = None) -> list[Run]:
        """Every readable run (optionally of one env and/or algorithm), grouped by env and
        algorithm, then by run name. Unreadable runs go to :attr:`errors`, with a warning.

        In a bucket, a run appears once its first episodes are in; an unreachable
        endpoint or refused credentials are an OSError naming the URL.
        """
        found, self.errors = self._bucket.read() if self._bucket else self._read_folders()
        if self.errors:
            shown = "; ".join(e.message for e in self.errors[:_WARNED_ERRORS])
            more = len(self.errors) - _WARNED_ERRORS
            warnings.warn(
                f"{len(self.errors)} run(s) in {self.root} skipped: {shown}"
                + (f" (and {more} more: see .errors)" if more > 0 else ""),
                stacklevel=2,
            )
        runs = [r for r in found if env_id in (None, r.env_id) and algorithm in (None, r.algorithm)]
        return sorted(runs, key=lambda r: (r.env_id, r.algorithm, r.run))

    def _read_folders(self) -> tuple[list[Run], list[RunError]]:
        runs: list[Run] = []
        folders, errors = run_folders(Path(self.root))
        for folder in folders:
            try:
                runs.append(read_run(folder, self._id(folder)))
            except ValueError as error:
                errors.append(RunError(folder, str(error)))
        return runs, errors

    @overload
    def table(
        self,
        env_id: str | None = ...,
        algorithm: str | None = ...,
        *,
        as_frame: Literal[False] = False,
    ) -> list[dict[str, Any]]: ...
    @overload
    def table(
        self, env_id: str | None = ..., algorithm: str | None = ..., *, as_frame: Literal[True]
    ) -> pandas.DataFrame: ...
    @overload
    def table(
        self, env_id: str | None = ..., algorithm: str | None = ..., *, as_frame: bool
    ) -> list[dict[str, Any]] | pandas.DataFrame: ...
    def table(
        self, env_id: str | None = None, algorithm: str | None = None, *, as_frame: bool = False
    ) -> list[dict[str, Any]] | pandas.DataFrame:
        """The leaderboard: one row per run, in :meth:`runs` order.

        Columns: ``id, env_id, algorithm, run, episodes, return_mean, return_std,
        agent_returns, agent_outcomes, success_rate, steps, created, params``.
        ``return_std`` is the population standard deviation (both None for a zero-sum
        multi-agent run, whose summed return is always 0); ``agent_returns`` is each
        agent's mean return (``{"player_0": 0.4, ...}``) for a multi-agent (PettingZoo)
        run, else None, so ``sorted(rows, key=lambda row: row["agent_returns"]["player_0"])``
        ranks by one agent; ``agent_outcomes`` each player's wins, draws and losses in
        games with a winner (``{"player_0": {"win": 3, "draw": 1, "loss": 2}}``, see
        ``Rollout.outcomes``; by player name where the episodes name their players, as an
        arena's do), else None; ``success_rate`` is None when the episodes do not say;
        ``steps`` counts actions over all episodes.

        Args:
            env_id: keep only the runs of this env.
            algorithm: keep only the runs of this algorithm.
            as_frame: return a pandas DataFrame (pandas must be installed) instead of
                a list of dicts.
        """
        rows = [run.row() for run in self.runs(env_id, algorithm)]
        if not as_frame:
            return rows
        try:
            import pandas
        except ImportError:
            raise ImportError("table(as_frame=True) needs pandas: pip install pandas") from None
        return pandas.DataFrame(rows, columns=list(ROW_COLUMNS))

    def open(
        self,
        run: Run | str | tuple[str, str, str],
        algorithm: str | None = None,
        name: str | None = None,
    ) -> Episodes:
        """The episodes of ``run``, loaded lazily: each file is opened when first indexed.

        Args:
            run: a :class:`Run`, its ``id`` (``"FrozenLake-v1/sarsa/alpha0.1"``),
                ``(env_id, algorithm, run)``, or the env id with ``algorithm`` and
                ``name`` given too: ``lib.open("FrozenLake-v1", "sarsa", "alpha0.1")``.
            algorithm: the algorithm, when ``run`` is an env id.
            name: the run's name, when ``run`` is an env id.
        """
        if algorithm is not None or name is not None:
            if not isinstance(run, str) or algorithm is None or name is None:
                raise TypeError(
                    "open() takes a run, its id, (env_id, algorithm, run), or the three "
                    f"names as arguments; got {run!r}, {algorithm!r}, {name!r}"
                )
            run = (run, algorithm, name)
        if isinstance(run, Run):
            return Episodes(run, self.storage_options)
        if isinstance(run, tuple):
            run = "/".join(map(folder_name, run))
        _check_run_id(run)
        if self._bucket is None:
            folder = Path(self._run_path(run))
            return Episodes(read_run(folder, self._id(folder)))
        runs, errors = self._bucket.read()
        found = [r for r in runs if r.id == run]
        if not found:
            why = [e.message for e in errors if e.path == self._run_path(run)]
            raise ValueError(why[0] if why else f"{self.root}/{run}: no such run (no episodes)")
        return Episodes(found[0], self.storage_options)

    def has_run(self, run: str) -> bool:
        """Whether the run of id ``run`` is written: its first episodes are in, so
        :meth:`open` reads it. What a reader opened before a training's first checkpoint
        waits for (a folder being written, its ``run.json`` not in yet, is not a run)."""
        _check_run_id(run)
        if self._bucket is None:
            return Path(self._run_path(run, RUN_FILE)).is_file()
        return any(found.id == run for found in self._bucket.read()[0])

    def query(
        self,
        sql: str,
        *,
        progress: bool = True,
        timeout: float | None = None,
        memory_limit: str | None = None,
    ) -> pandas.DataFrame:
        """Run ``sql`` over every step of the library; the result as a pandas DataFrame.

        Tables (:mod:`agent_widget.library._query`, :mod:`agent_widget.library._step_tables`):

        - ``steps``: one row per action: ``run`` (the run's id), ``env_id``,
          ``algorithm``, ``episode`` (its number in the run, as :meth:`open` indexes),
          ``seed``, ``t``, ``action`` (``action_vector`` for vector actions),
          ``action_name``, ``reward``, ``return_so_far`` (before this action),
          ``return_to_go`` (from it on), ``terminated``, ``truncated``, then every
          numeric extra (``(T, k)`` extras as lists) and scalar info (the info the step
          returned) the episodes hold, NULL where an episode lacks it, and
          ``training_step`` and ``checkpoint`` from the episode's metadata;
        - ``episodes``: ``run, episode, env_id, algorithm, seed, length, return,
          success, training_step, checkpoint, file``;
        - ``runs``: the leaderboard's rows (:meth:`table`), ``params`` as JSON text.

        Frames are never decoded: the steps are kept as Parquet beside the episodes
        (written by :meth:`add`; for episodes added without them, built by the first
        query, with a progress bar, and kept). The query reads these tables and nothing
        else; reading files, the network, extensions or settings is refused. A refused
        or malformed query is a ``QueryError`` (a ValueError) with the engine's message.
        An episode that cannot be read is left out, listed in :attr:`errors`.

        A query may take ``timeout`` seconds (none by default) and ``memory_limit`` of
        memory (``"8GB"``; by default half the machine's): past either it stops with a
        ``QueryError`` saying which. Ctrl-C stops it with a ``QueryError`` too.

        Needs the ``sql`` extra: ``pip install agent-widget[sql]``.

        Examples:
            >>> lib.query("SELECT run, episode, t FROM steps WHERE reward < -1")  # doctest: +SKIP
        """
        tables = self._step_tables()
        runs = self.runs()
        found = tables.query(runs, sql, progress, seconds=timeout, memory=memory_limit)
        self.errors = [*self.errors, *tables.errors]
        if tables.errors:
            warnings.warn(
                f"{len(tables.errors)} episode(s) or tables left out of the query: "
                f"{tables.errors[0].message} (see .errors)",
                stacklevel=2,
            )
        return found

    def moments(
        self,
        sql: str,
        *,
        stretches: bool = False,
        panels: PanelsGiven = None,
        action_names: ActionNames | None = None,
    ) -> Moments:
        """The steps ``sql`` finds (it must give ``run``, ``episode`` and ``t``, as
        ``SELECT run, episode, t ... FROM steps`` does) as a widget: one row per step,
        or per stretch of consecutive steps with ``stretches=True``; clicking a row
        opens the viewer at that episode and step, under the list, the found steps
        marked on its timeline, with ``panels``, its actions named by ``action_names``
        where given (see :class:`Moments`).

        Examples:
            >>> lib.moments("SELECT run, episode, t, td_error FROM steps "
            ...             "WHERE abs(td_error) > 5")  # doctest: +SKIP
            >>> lib.moments(sql, panels={"Q": QValues(q_net)})  # doctest: +SKIP
        """
        from agent_widget.library._moments import Moments

        return Moments(self, sql, stretches=stretches, panels=panels, action_names=action_names)

    def _step_tables(self) -> StepTables:
        """The library's step tables, for queries (ImportError without the ``sql`` extra)."""
        if self._tables is None:
            try:
                from agent_widget.library._query import StepTables
            except ImportError:
                raise ImportError(
                    "query() needs duckdb and pyarrow: pip install agent-widget[sql]"
                ) from None
            store = self._segment_store()
            assert store is not None  # pyarrow, imported by _query
            self._tables = StepTables(store, self.storage_options)
        return self._tables

    def _segment_store(self) -> SegmentStore | None:
        """Where the step tables are kept; None without pyarrow (then ``add`` writes
        none, and the first query builds them). DuckDB is not imported for an add."""
        if self._segments is None:
            try:
                from agent_widget.library._tables import SegmentStore
            except ImportError:
                return None
            self._segments = SegmentStore(self.root, self.storage_options)
        return self._segments

    def leaderboard(
        self,
        group_by: Literal["env", "algorithm"] | None = "env",
        *,
        panels: PanelsGiven = None,
        action_names: ActionNames | None = None,
    ) -> Leaderboard:
        """This library as a widget: the table, sortable and filterable, grouped by
        ``group_by`` (see :class:`Leaderboard`); ticked runs open in an EpisodeViewer or
        a CompareViewer, with ``panels`` (as for :meth:`moments`), their actions named
        by ``action_names`` where given. ``display(lib)`` shows it too.

        Examples:
            >>> lib.leaderboard(panels=[QValues(q_net)])  # doctest: +SKIP
        """
        from agent_widget.library._leaderboard import Leaderboard

        return Leaderboard(self, group_by=group_by, panels=panels, action_names=action_names)

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.leaderboard()._repr_mimebundle_(**kwargs)

    def __repr__(self) -> str:
        return f"RunLibrary({str(self.root)!r})"

    def _run_path(self, *names: str) -> Path | str:
        """The run of that id (and its file of that name), as a path or a URL."""
        if isinstance(self.root, Path):
            return self.root.joinpath(*names)
        return "/".join((self.root, *names))

    def _id(self, folder: Path) -> str:
        return folder.relative_to(self.root).as_posix()


class Episodes(Sequence[Rollout]):
    """The episodes of a run, each loaded from its file when first indexed (then kept)."""

    def __init__(self, run: Run, storage_options: dict[str, Any] | None = None) -> None:
        self.run = run
        self._storage_options = storage_options
        self._loaded: dict[int, Rollout] = {}

    def __len__(self) -> int:
        return len(self.run.episodes)

    @overload
    def __getitem__(self, index: int) -> Rollout: ...
    @overload
    def __getitem__(self, index: slice) -> list[Rollout]: ...
    def __getitem__(self, index: int | slice) -> Rollout | list[Rollout]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        i = range(len(self))[index]  # IndexError out of range, negative indices count back
        if i not in self._loaded:
            location = self.run.location(self.run.episodes[i].file)
            self._loaded[i] = load(location, storage_options=self._storage_options)
        return self._loaded[i]

    def __repr__(self) -> str:
        return f"Episodes({self.run.id!r}, {len(self)} episodes)"


def _check_run_id(run: str) -> None:
    """A ValueError for a run id that would name a path outside the library."""
    if ".." in Path(run).parts or Path(run).is_absolute():
        raise ValueError(f"run id {run!r} must be a path inside the library")
