"""The step tables kept with a library's episodes, as Parquet segments beside them.

::

    <root>/.tables/<env>/<algorithm>/<run>/<segment>.parquet

A segment holds the steps of some episodes of one run (those one ``add`` wrote, or
those a query found without a table); its footer lists them (file name and the metadata
the episodes table shows) so that which episodes have tables costs a footer read per
segment, cached, as segments never change once written. ``.tables`` starts with a dot:
the library's listing never sees it (nor do a bucket's readers, which read manifests).
Segment names are the UTC time and random bits (no two writers take one name): a folder
writes them under a temporary name then renames them, a bucket whole; neither is
fsynced, as the tables are a cache of the episodes. Two segments may list one episode
(two programs built it at once, or a merge left its copy beside the originals); the
older one is read: a query joins every episode to the rows of that segment alone.

Merging (:meth:`SegmentStore.merge`, by ``add`` once a run has ``MERGE_AT`` small
segments of one tier): their rows are written as one new segment, whole, whose footer
names the segments it replaces; a reader listing it reads it instead of them, so at
every moment each episode is read from one segment, never twice, never neither. In a
folder the old ones are deleted at once, and a query whose segment was deleted between
its listing and its reading lists again (:mod:`agent_widget.library._query`). In a
bucket a reader's scan of a segment deleted under it may hang (DuckDB on S3, about one
run in seven on moto) instead of failing: the old ones are deleted by an ``add``
``RETIRE_AFTER`` after the merge, when only a query that listed before the merge and
read that much later could still want them.

The tables of a run removed from a folder are deleted by the next ``add``, never by a
query (:meth:`SegmentStore.drop_removed`).

Nothing here is needed to add or list runs: without pyarrow, ``add`` writes no
segment, and the first query builds the missing ones.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import time
import warnings
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds
import pyarrow.fs as pafs
import pyarrow.parquet as pq

from agent_widget.episodes import Rollout
from agent_widget.format import temporary_name, url_to_fs
from agent_widget.library._bucket import unique_name
from agent_widget.library._regular_files import unopened
from agent_widget.library._run_file import RUN_FILE
from agent_widget.library._step_tables import episode_metadata, step_columns

TABLES = ".tables"
SEGMENT_NUMBER = "agent_widget.segment"  # a dataset's: which of its segments a row is in
_EPISODES_KEY = b"agent_widget.episodes"
_REPLACES_KEY = b"agent_widget.replaces"  # a merged segment's: those it replaces, and when
RETIRE_AFTER = 15 * 60  # seconds from a merge to a bucket's deleting what it replaced
_READERS = 8  # footers read at once
_ROW_GROUP = 128 * 1024  # rows: a filter skips the groups whose statistics rule them out
MERGE_AT = 16  # small segments of a run, of one tier, that an add merges
_SMALL_BYTES = 8 * 2**20  # a segment under this is merged; one merge's output is larger
_MERGED_BYTES = 64 * 2**20  # at most this much read by one merge (memory held)
_DICTIONARY = pa.dictionary(pa.int32(), pa.string())
_PARQUET = ds.ParquetFileFormat(read_options=ds.ParquetReadOptions(dictionary_columns=["file"]))


@dataclass(frozen=True)
class Segment:
    """One segment: where it is, its columns, and the episodes it holds (file ->
    the metadata the episodes table shows)."""

    path: str
    run: str
    name: str
    schema: pa.Schema
    episodes: dict[str, dict[str, Any]]
    table: pa.Table | None = None  # kept in memory: the library could not be written to
    replaces: tuple[str, ...] = ()  # a merged segment's: the names of those it replaces
    merged_at: float = 0.0  # when (the merging writer's clock, seconds since the epoch)


def unified_schema(schemas: Sequence[pa.Schema]) -> pa.Schema:
    """One schema for tables of ``schemas``: each column with its type where they agree,
    DOUBLE where numbers and flags mix, left out where anything else does (an info that
    is a number in one episode and a string in another cannot be compared anyway)."""
    types: dict[str, list[pa.DataType]] = {}
    for schema in schemas:
        for field in schema:
            types.setdefault(field.name, []).append(field.type)
    fields = []
    for name, found in types.items():
        if all(t == found[0] for t in found):
            fields.append(pa.field(name, found[0]))
        elif all(
            pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_boolean(t)
            for t in found
        ):
            fields.append(pa.field(name, pa.float64()))
    return pa.schema(fields)


def conform(table: pa.Table, schema: pa.Schema) -> pa.Table:
    """``table`` with the columns of ``schema``, cast to its types, NULL where missing."""
    if table.schema.remove_metadata() == schema:  # episodes alike: nothing to do
        return table
    columns = [
        table[f.name].cast(f.type) if f.name in table.column_names else pa.nulls(len(table), f.type)
        for f in schema
    ]
    return pa.table(columns, schema=schema)


def segment_table(run_id: str, name: str, episodes: Sequence[tuple[str, Rollout]]) -> pa.Table:
    """The steps of ``episodes`` (file name, rollout) of run ``run_id`` as one table,
    the episodes listed in its metadata."""
    parts, listed = [], []
    for file, rollout in episodes:
        columns = step_columns(rollout)
        steps = rollout.num_steps
        where = {
            "run": pa.repeat(pa.scalar(run_id), steps),
            "file": pa.repeat(pa.scalar(file), steps),
            "segment": pa.repeat(pa.scalar(name), steps),
        }
        parts.append(pa.table({**where, **columns}))
        listed.append({"file": file, "metadata": episode_metadata(rollout)})
    schema = unified_schema([part.schema for part in parts])
    table = pa.concat_tables([conform(part, schema) for part in parts])
    return table.replace_schema_metadata({_EPISODES_KEY: json.dumps(listed).encode()})


class SegmentStore:
    """The segments of the library at ``root`` (a folder, or a URL with its options)."""

    def __init__(self, root: Path | str, storage_options: dict[str, Any] | None) -> None:
        self._local = isinstance(root, Path)
        if isinstance(root, Path):
            self._root = str(root / TABLES)
            self.filesystem: pafs.FileSystem = pafs.LocalFileSystem()
            self._fs: Any = None
        else:
            self._fs, base = url_to_fs(root, storage_options or {})
            self._root = f"{base}/{TABLES}"
            self.filesystem = pafs.PyFileSystem(pafs.FSSpecHandler(self._fs))
        self._footers: dict[str, Segment] = {}
        self._kept: list[Segment] = []  # segments that could not be written
        self._unopened: dict[str, str] = {}  # path -> why: no regular file, never opened

    def keep(self, run_id: str, files: Sequence[str], rollouts: Sequence[Rollout]) -> None:
        """Write the segment of episodes just added (``files`` of run ``run_id``),
        merge the run's small segments once a tier has ``MERGE_AT``, and delete the
        tables of runs removed from a folder (:meth:`drop_removed`). Whatever
        goes wrong, the episodes are in all the same: a warning says so, and the first
        query builds their tables (or lists the episode it cannot)."""
        try:
            self.write(run_id, list(zip(files, rollouts, strict=True)))
        except Exception as error:  # never an add's failure: its episodes are written
            warnings.warn(
                f"the step tables of {len(files)} episode(s) added to {run_id} were not "
                f"written ({type(error).__name__}: {error}); the first query builds them",
                stacklevel=3,
            )
            return
        try:
            self.merge(run_id, MERGE_AT)
        except Exception as error:  # the segments stay as they were, each still read
            warnings.warn(
                f"the step tables of {run_id} were not merged ({type(error).__name__}: "
                f"{error}); the next add tries again",
                stacklevel=3,
            )
        self.drop_removed()

    def drop_removed(self) -> list[str]:
        """Delete the tables of the runs removed from a folder library (a run is
        removed by deleting its folder: its ``run.json`` is gone); their ids.

        Only ``add`` calls this: whoever adds owns the library, while a query may be a
        stranger's reader and deletes nothing (removed runs' tables are never read, a
        query joining steps to the episodes listed). A bucket's runs are listed by
        their writers' manifests, which the library never removes a run from."""
        if not self._local:
            return []
        tables = Path(self._root)
        dropped = []
        for folder in tables.glob("*/*/*"):
            run_id = folder.relative_to(tables).as_posix()
            if folder.is_dir() and not _listed(tables.parent / run_id / RUN_FILE):
                shutil.rmtree(folder, ignore_errors=True)  # what is left, the next add takes
                dropped.append(run_id)
        return dropped

    def write(self, run_id: str, episodes: Sequence[tuple[str, Rollout]]) -> Segment:
        """A new segment of run ``run_id`` holding ``episodes``, written whole."""
        name = unique_name()
        table = segment_table(run_id, name, episodes)
        try:
            return self._put(run_id, name, table)
        except (OSError, PermissionError):  # a stranger's library, read-only: kept here
            segment = _segment("", run_id, name, table.schema, table)
            self._kept.append(segment)
            return segment

    def _put(self, run_id: str, name: str, table: pa.Table) -> Segment:
        """Write ``table`` as segment ``name`` of run ``run_id``, whole or not at all."""
        buffer = io.BytesIO()
        # Dictionaries for the text columns only (run, file, action names: few values);
        # numbers gain little from them and cost half the write.
        text = [f.name for f in table.schema if pa.types.is_string(f.type)]
        pq.write_table(table, buffer, row_group_size=_ROW_GROUP, use_dictionary=text)
        path = f"{self._root}/{run_id}/{name}.parquet"
        if self._local:
            _write_renamed(Path(path), buffer.getvalue())
        else:
            self._fs.pipe_file(path, buffer.getvalue())
        segment = _segment(path, run_id, name, table.schema)
        self._footers[path] = segment
        return segment

    def merge(self, run_id: str, at_least: int = 2) -> int:
        """Merge the oldest small segments of one tier of run ``run_id`` (up to
        ``_MERGED_BYTES``) into one when the tier has ``at_least``; how many were merged
        (0: none). A segment's tier is how many times ``MERGE_AT`` divides its count of
        episodes: 16 one-episode segments make one of tier 1, 16 of those one of tier 2,
        so each step is written again once per tier (about twice before a segment is
        too large to merge), not at every merge.

        The merged segment is written first, naming those it replaces: readers read it
        instead of them. Then, in a folder, the old ones are deleted; in a bucket a
        later merge deletes them, ``RETIRE_AFTER`` after (:meth:`_retire`). Two merges
        at once both write theirs (the older copy of an episode is read, and the next
        merge keeps one), unless one deleted the segments the other listed before it
        read them: that one merges nothing (the arena's two workers adding to one run
        met it). Unreadable segments are left as they are.
        """
        sizes = self._sizes(f"{self._root}/{run_id}")
        found = [self._cached_footer(path) for path in sorted(sizes)]  # oldest first
        present = [segment for segment in found if isinstance(segment, Segment)]
        self._retire(present, sizes)
        replaced = {name for segment in present for name in segment.replaces}
        tiers: dict[int, list[Segment]] = {}
        for segment in present:
            if sizes[segment.path] < _SMALL_BYTES and segment.name not in replaced:
                tiers.setdefault(_tier(len(segment.episodes)), []).append(segment)
        for tier in sorted(tiers):
            taken: list[Segment] = []
            for segment in tiers[tier]:
                if taken and sum(sizes[s.path] for s in (*taken, segment)) > _MERGED_BYTES:
                    break
                taken.append(segment)
            if len(taken) >= max(at_least, 2):
                name = unique_name()
                try:
                    table = _merged(taken, name, self.filesystem)
                except FileNotFoundError:  # another writer merged them since the listing
                    return 0
                self._put(run_id, name, table)
                for segment in taken if self._local else ():
                    self._remove(segment.path)
                return len(taken)
        return 0

    def _retire(self, present: Sequence[Segment], sizes: dict[str, int]) -> None:
        """Delete the segments (of ``sizes``, listed) that one of ``present`` merged at
        least ``RETIRE_AFTER`` ago replaces (a folder's went at the merge)."""
        now = time.time()
        for merged in present:
            if now - merged.merged_at >= RETIRE_AFTER:
                folder = merged.path.rsplit("/", 1)[0]
                for old in (f"{folder}/{name}.parquet" for name in merged.replaces):
                    if old in sizes:
                        self._remove(old)

    def _cached_footer(self, path: str) -> Segment | Exception:
        if path not in self._footers:
            read = self._footer(path)
            if not isinstance(read, Segment):
                return read
            self._footers[path] = read
        return self._footers[path]

    def _remove(self, path: str) -> None:
        """Delete segment ``path``; already gone (another merge took it) is fine."""
        try:
            if self._local:
                os.unlink(path)
            else:
                self._fs.rm_file(path)
        except FileNotFoundError:
            pass
        self._footers.pop(path, None)

    def read(self) -> tuple[list[Segment], list[tuple[str, str]]]:
        """Every segment, oldest first, and (path, why) for each whose footer cannot be read."""
        self._unopened = {}
        paths = self._paths()
        self._footers = {p: self._footers[p] for p in paths if p in self._footers}  # merged away
        new = [path for path in paths if path not in self._footers]
        errors = list(self._unopened.items())
        with ThreadPoolExecutor(_READERS) as pool:  # a bucket's footers: a request or two each
            for path, read in zip(new, pool.map(self._footer, new), strict=True):
                if isinstance(read, Segment):
                    self._footers[path] = read
                else:
                    errors.append((path, f"{path}: not a readable step table ({read})"))
        segments = [self._footers[path] for path in paths if path in self._footers]
        replaced = {(s.run, name) for s in segments for name in s.replaces}  # merged
        segments = [s for s in segments if (s.run, s.name) not in replaced]
        return sorted(segments + self._kept, key=lambda s: s.name), errors

    def _footer(self, path: str) -> Segment | Exception:
        """The segment at ``path`` as its footer says, or why it cannot be read."""
        run_id, file = path[len(self._root) + 1 :].rsplit("/", 1)
        try:
            schema = pq.read_schema(path, filesystem=self.filesystem)
            return _segment(path, run_id, file.removesuffix(".parquet"), schema)
        except (OSError, ValueError, TypeError, KeyError, pa.ArrowException) as error:
            return error

    def _paths(self) -> list[str]:
        return list(self._sizes(self._root))

    def _sizes(self, folder: str) -> dict[str, int]:
        """Each segment under ``folder`` (path -> bytes), listed afresh."""
        if self._local:
            found = {}
            for where, _, files in os.walk(folder):
                for file in (f"{where}/{file}" for file in files if file.endswith(".parquet")):
                    try:
                        info = os.lstat(file)
                    except FileNotFoundError:  # merged away since the walk read it
                        continue
                    if (why := unopened(info.st_mode, file)) is None:
                        found[file] = info.st_size
                    else:  # a FIFO would hang the query, a link read outside the library
                        self._unopened[file] = why
            return found
        self._fs.invalidate_cache(folder)  # segments other writers added since
        try:
            listed = self._fs.find(folder, detail=True)
        except FileNotFoundError:
            return {}
        return {p: int(e.get("size") or 0) for p, e in listed.items() if p.endswith(".parquet")}

    def gone(self, segments: Sequence[Segment]) -> bool:
        """Whether any of ``segments`` written here is no longer listed (merged away)."""
        return not {s.path for s in segments if s.table is None} <= set(self._paths())

    def dataset(self, segments: Sequence[Segment], schema: pa.Schema) -> ds.Dataset:
        """The segments as one dataset of ``schema`` (NULL where a segment lacks a column),
        read as a query needs. A step joins its episode on ``file``, read as the dictionary
        it is stored as, and ``SEGMENT_NUMBER``, its segment's place in ``segments``."""
        schema = schema.set(schema.get_field_index("file"), pa.field("file", _DICTIONARY))
        schema = schema.append(pa.field(SEGMENT_NUMBER, pa.int32()))  # a file's constant
        paths = {i: s.path for i, s in enumerate(segments) if s.table is None}
        parts: list[ds.Dataset] = [
            ds.FileSystemDataset.from_paths(
                list(paths.values()),
                schema=schema,
                format=_PARQUET,
                filesystem=self.filesystem,
                partitions=[pc.field(SEGMENT_NUMBER) == pa.scalar(i, pa.int32()) for i in paths],
            )
        ]
        for i, segment in enumerate(segments):
            if segment.table is not None:
                numbers = pa.repeat(pa.scalar(i, pa.int32()), len(segment.table))
                table = conform(segment.table.append_column(SEGMENT_NUMBER, numbers), schema)
                parts.append(ds.dataset(table))
        return parts[0] if len(parts) == 1 else ds.dataset(parts)


def _merged(segments: Sequence[Segment], name: str, filesystem: pafs.FileSystem) -> pa.Table:
    """The rows of ``segments`` (oldest first) as segment ``name``: each episode's from
    the oldest segment listing it, as a query reads them, each row naming the new one."""
    chosen: dict[str, Segment] = {}
    for segment in segments:
        for file in segment.episodes:
            chosen.setdefault(file, segment)
    schema = unified_schema([s.schema for s in segments])
    parts = []
    for segment in segments:
        table = pq.read_table(segment.path, filesystem=filesystem)
        mine = [file for file, owner in chosen.items() if owner is segment]
        if len(mine) < len(segment.episodes):  # a copy another segment holds too
            table = table.filter(pc.is_in(table["file"], pa.array(mine, pa.string())))
        column = table.schema.get_field_index("segment")
        table = table.set_column(column, "segment", pa.repeat(pa.scalar(name), len(table)))
        parts.append(conform(table, schema))
    listed = [{"file": f, "metadata": s.episodes[f]} for f, s in chosen.items()]
    replaces = {"names": [s.name for s in segments], "at": time.time()}
    return pa.concat_tables(parts).replace_schema_metadata(
        {_EPISODES_KEY: json.dumps(listed).encode(), _REPLACES_KEY: json.dumps(replaces).encode()}
    )


def _tier(episodes: int) -> int:
    """How many times ``MERGE_AT`` divides ``episodes`` (a segment's tier, see merge)."""
    tier = 0
    while episodes >= MERGE_AT:
        episodes //= MERGE_AT
        tier += 1
    return tier


def _listed(run_file: Path) -> bool:
    """Whether the run of ``run_file`` is there; True when that cannot be told (a folder
    without permission): only a file the system says is not there is a removed run."""
    try:
        os.stat(run_file)
    except (FileNotFoundError, NotADirectoryError):
        return False
    except OSError:
        return True
    return True


def _write_renamed(path: Path, data: bytes) -> None:
    """Write ``path`` under a temporary name, then rename it: readers see it whole or
    not at all. Not fsynced: a segment is a cache, and one a crash left unreadable is
    reported, and its episodes' tables built again by the next query."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = temporary_name(path)
    try:
        temporary.write_bytes(data)
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def _segment(
    path: str, run_id: str, name: str, schema: pa.Schema, table: pa.Table | None = None
) -> Segment:
    metadata = schema.metadata or {}
    listed = json.loads(metadata.get(_EPISODES_KEY, b"[]"))
    episodes = {str(e["file"]): dict(e["metadata"]) for e in listed}
    replaces = json.loads(metadata.get(_REPLACES_KEY, b'{"names": [], "at": 0}'))
    names, merged_at = tuple(map(str, replaces["names"])), float(replaces["at"])
    return Segment(path, run_id, name, schema.remove_metadata(), episodes, table, names, merged_at)
