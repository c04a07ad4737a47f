"""A run library in a bucket: runs added and listed with no rename, link or append.

Object stores (S3, GCS, Azure through fsspec) show an object whole or not at all and
list what was written, but cannot rename, hard-link or append, so the folder
protocol of :mod:`agent_widget.library._run_writer` does not hold there. Under the
library's URL, with the run ids of a folder library::

    <root>/<env>/<algorithm>/<run>/run.json                the run's header, written once
    <root>/<env>/<algorithm>/<run>/episode-<uid>.rollout   an episode, written once
    <root>/.writers/<writer>.json                          one writer's manifest

- An episode is uploaded under a name no other writer takes (the UTC time to the
  microsecond and 48 random bits), and never overwritten.
- ``run.json`` is created once: on S3 by a conditional write (``If-None-Match: *``),
  elsewhere by fsspec's check, then write, where two writers creating one run at the
  same moment may both write it (the later wins). A writer that finds it adds to that
  run, checking env, algorithm and params as in a folder.
- A writer (one ``RunLibrary`` in one process) keeps a manifest: the header and the
  episode summaries of everything it added, rewritten by it alone after each add,
  once the episodes are uploaded. Past 2,000 episodes or 1 MiB it starts another.

Readers list ``.writers/`` and read the manifests, never a run's objects: a
listing never shows an episode whose upload did not finish, a killed writer leaves
at most objects no manifest names (ignored, as anything else in the bucket is), and
the leaderboard costs a request per writer, not per run or episode. Two manifests
giving a run different params (the race above) make the run reported, not shown.

Whatever a bucket holds, reading it holds bounded memory: a manifest is at most
``MAX_MANIFEST_BYTES`` (writers start another past ``_ROTATE_BYTES``, and refuse an
add that could not fit); a larger one is reported, unread when the listing says so,
else read no further than the cap (a ranged request). Manifests are fetched
together, in batches asking for ``_BATCH_BYTES`` at most, each parsed as it comes.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from agent_widget.episodes import Rollout, save
from agent_widget.format import url_to_fs
from agent_widget.library import _run_file as run_file
from agent_widget.library._run_file import (
    RUN_FILE,
    EpisodeSummary,
    Run,
    RunError,
    check_episodes,
    check_header,
    check_same_run,
    folder_name,
    summarize_all,
)

WRITERS = ".writers"
FORMAT = "agent-widget.writer"
VERSION = 1
EPISODE_NAME = re.compile(r"episode-[0-9A-Za-z_-]{1,100}\.rollout")
_MANIFEST_EPISODES = 2_000
MAX_MANIFEST_BYTES = 4 * 2**20  # 2,000 episodes' summaries take about 300 KB
_ROTATE_BYTES = 2**20  # a writer starts another manifest past this
_BATCH_BYTES = 16 * 2**20  # asked for at once, at most, when reading manifests
_SLACK_BYTES = 2**16  # a manifest may have grown since it was listed
_NAMES = ("env_id", "algorithm", "run")


def unique_name() -> str:
    """A name no other writer takes: UTC time to the microsecond, then 48 random bits."""
    return datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S%fZ-") + os.urandom(6).hex()


@dataclass
class _Manifest:
    """What one writer (in one process) has published: run id -> header and episodes."""

    name: str = field(default_factory=unique_name)
    pid: int = field(default_factory=os.getpid)
    runs: dict[str, dict[str, Any]] = field(default_factory=dict)
    episodes: int = 0


class BucketRuns:
    """The runs under ``url`` on the fsspec filesystem it names: read, and added to."""

    def __init__(self, url: str, storage_options: dict[str, Any] | None) -> None:
        self.url = url.rstrip("/")
        self.storage_options = dict(storage_options or {})
        self._fs, self._root = url_to_fs(self.url, self.storage_options)
        self._lock = threading.Lock()
        self._manifest = _Manifest()

    def __getstate__(self) -> dict[str, Any]:  # a copy in another process is another writer
        return {"url": self.url, "storage_options": self.storage_options}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["url"], state["storage_options"])  # type: ignore[misc]

    def add(self, run: Run, rollouts: Sequence[Rollout]) -> list[str]:
        """Upload ``rollouts`` into ``run`` (created when new), then publish them in this
        writer's manifest; their file names."""
        files = [f"episode-{unique_name()}.rollout" for _ in rollouts]
        summaries = summarize_all(rollouts, files)
        _check_fits(run, summaries)
        with self._lock:
            if self._manifest.pid != os.getpid():  # a forked copy: another writer
                self._manifest = _Manifest()
            entry = self._entry(run)
            with tempfile.TemporaryDirectory() as scratch:
                for file, rollout in zip(files, rollouts, strict=True):
                    local = save(rollout, Path(scratch) / file)
                    target = f"{self._root}/{run.id}/{file}"
                    self._call(f"cannot upload {file}", self._fs.put_file, str(local), target)
                    local.unlink()
            self._publish(entry, summaries)
        return files

    def read(self) -> tuple[list[Run], list[RunError]]:
        """Every run a manifest names with at least one episode, and what could not be read."""
        prefix = f"{self._root}/{WRITERS}"
        try:
            listing = self._fs.ls(prefix, detail=True, refresh=True)
        except FileNotFoundError:
            return [], []
        except Exception as error:  # any client's own errors: botocore's are not OSErrors
            raise OSError(f"{self.url}: cannot list the library ({_problem(error)})") from None
        errors, sizes = [], {}
        for entry in listing:
            name = entry["name"].rsplit("/", 1)[-1]
            if entry.get("type") != "file" or name.startswith(".") or not name.endswith(".json"):
                continue
            size = entry.get("size") or 0
            if size > MAX_MANIFEST_BYTES:
                where = self._where(entry["name"])
                errors.append(RunError(where, _too_large(where, f"{size:,} bytes")))
                continue
            sizes[entry["name"]] = size
        parts: dict[str, list[tuple[dict[str, Any], tuple[EpisodeSummary, ...]]]] = {}
        for path, data in self._manifests(sizes):
            where = self._where(path)
            try:
                for run_id, header, episodes in _parse_manifest(data, where):
                    parts.setdefault(run_id, []).append((header, episodes))
            except ValueError as error:
                errors.append(RunError(where, str(error)))
        runs = []
        for run_id, found in parts.items():
            try:
                run = self._merged(run_id, found)
            except ValueError as error:
                errors.append(RunError(f"{self.url}/{run_id}", str(error)))
                continue
            if run is not None:
                runs.append(run)
        return runs, errors

    def _where(self, path: str) -> str:
        return f"{self.url}/{WRITERS}/{path.rsplit('/', 1)[-1]}"

    def _manifests(self, sizes: dict[str, int]) -> Iterator[tuple[str, bytes | Exception]]:
        """Each manifest's bytes (or why they could not be had): a batch of requests at
        a time, each for a range of at most ``MAX_MANIFEST_BYTES + 1`` bytes (and for
        not much more than the listing's size, so that a batch asks for at most
        ``_BATCH_BYTES``). One that grew past that range since the listing is asked
        for again, alone, up to the cap; one past the cap is an error, unparsed."""
        bounds = {
            path: min(2 * size + _SLACK_BYTES, MAX_MANIFEST_BYTES) + 1
            for path, size in sizes.items()
        }
        for batch in _batches(bounds):
            ends = [bounds[path] for path in batch]
            blobs = self._fs.cat_ranges(batch, 0, ends, on_error="return")
            for path, end, data in zip(batch, ends, blobs, strict=True):
                if isinstance(data, bytes) and len(data) == end <= MAX_MANIFEST_BYTES:
                    [data] = self._fs.cat_ranges(
                        [path], 0, MAX_MANIFEST_BYTES + 1, on_error="return"
                    )
                if isinstance(data, bytes) and len(data) > MAX_MANIFEST_BYTES:
                    data = _TooLarge(_too_large(self._where(path), "read no further"))
                yield path, data

    def _merged(
        self, run_id: str, found: list[tuple[dict[str, Any], tuple[EpisodeSummary, ...]]]
    ) -> Run | None:
        """The run from the manifests that name it (None when they list no episode yet)."""
        params = {json.dumps(header["params"], sort_keys=True) for header, _ in found}
        if len(params) > 1:
            raise ValueError(
                f"{self.url}/{run_id}: writers created this run at once with different "
                f"params ({', '.join(sorted(params))}); see the run library guide"
            )
        episodes = {e.file: e for _, listed in found for e in listed}
        if not episodes:
            return None
        header = min((header for header, _ in found), key=lambda h: h["created"])
        ordered = tuple(episodes[f] for f in sorted(episodes))
        return Run(id=run_id, path=f"{self.url}/{run_id}", **header, episodes=ordered)

    def _entry(self, run: Run) -> dict[str, Any]:
        """This writer's manifest entry of ``run``: made the first time, after creating the
        run's header or reading the one there and checking it is the same run."""
        entry = self._manifest.runs.get(run.id)
        where = f"{self.url}/{run.id}"
        if entry is None:
            path = f"{self._root}/{run.id}/{RUN_FILE}"
            header = run.header()
            data = json.dumps(header, indent=1, allow_nan=False).encode()
            try:
                self._call(
                    f"cannot write {RUN_FILE}", self._fs.pipe_file, path, data, mode="create"
                )
            except FileExistsError:
                raw = self._call(f"cannot read {RUN_FILE}", self._fs.cat_file, path)
                header = _header_in(raw, f"{where}/{RUN_FILE}")
            entry = {"header": header, "episodes": []}
        check_same_run(entry["header"], run, where)
        self._manifest.runs[run.id] = entry
        return entry

    def _publish(self, entry: dict[str, Any], summaries: list[EpisodeSummary]) -> None:
        """Rewrite this writer's manifest with ``summaries`` added to ``entry``."""
        manifest = self._manifest
        entry["episodes"].extend(s.to_json() for s in summaries)
        manifest.episodes += len(summaries)
        data = {"format": FORMAT, "version": VERSION, "runs": manifest.runs}
        path = f"{self._root}/{WRITERS}/{manifest.name}.json"
        encoded = json.dumps(data, allow_nan=False).encode()
        self._call("cannot write its manifest", self._fs.pipe_file, path, encoded)
        if manifest.episodes >= _MANIFEST_EPISODES or len(encoded) >= _ROTATE_BYTES:
            self._manifest = _Manifest()  # keeps each rewrite, and each read, small

    def _call(self, what: str, function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """``function(*args)``; its failure (but FileExistsError) an OSError naming the URL."""
        try:
            return function(*args, **kwargs)
        except FileExistsError:
            raise
        except Exception as error:
            raise OSError(f"{self.url}: {what} ({_problem(error)})") from None


def _check_fits(run: Run, summaries: list[EpisodeSummary]) -> None:
    """ValueError, before anything is uploaded, if a manifest could not list ``summaries``
    of ``run`` within the cap readers hold to (the manifest may hold up to
    ``_ROTATE_BYTES`` already, its other runs included)."""
    entry = {"header": run.header(), "episodes": [s.to_json() for s in summaries]}
    size = len(json.dumps(entry, allow_nan=False).encode())
    if size > MAX_MANIFEST_BYTES - _ROTATE_BYTES:
        raise ValueError(
            f"{len(summaries)} episodes of run {run.id!r} and its params take {size:,} bytes "
            f"in a manifest, which readers cap at {MAX_MANIFEST_BYTES:,}: add the episodes "
            "in smaller groups (or keep large params elsewhere)"
        )


def _problem(error: Exception) -> str:
    return f"{type(error).__name__}: {error}"


class _TooLarge(ValueError):
    """A manifest past the cap, said with its URL."""


def _too_large(where: str, what: str) -> str:
    return f"{where}: over the {MAX_MANIFEST_BYTES:,}-byte cap of a manifest ({what})"


def _batches(bounds: dict[str, int]) -> Iterator[list[str]]:
    """The keys of ``bounds`` in groups whose bounds add up to ``_BATCH_BYTES`` at most
    (a group of one when one alone is more)."""
    batch: list[str] = []
    total = 0
    for path, bound in bounds.items():
        if batch and total + bound > _BATCH_BYTES:
            yield batch
            batch, total = [], 0
        batch.append(path)
        total += bound
    if batch:
        yield batch


def _json(data: Any, where: str) -> Any:
    if isinstance(data, _TooLarge):
        raise data
    if isinstance(data, Exception):
        raise ValueError(f"{where}: cannot read ({_problem(data)})")
    return run_file.parsed_json(data, where)


def _header_in(data: Any, where: str) -> dict[str, Any]:
    """A run header (a parsed ``run.json``) as the manifest keeps it, checked."""
    header = check_header(_json(data, where), where)
    return {"format": run_file.FORMAT, "version": run_file.VERSION, **header}


def _parse_manifest(
    data: Any, where: str
) -> list[tuple[str, dict[str, Any], tuple[EpisodeSummary, ...]]]:
    """Each run a manifest names: its id, header and episodes; ValueError if any is wrong."""
    meta = _json(data, where)
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise ValueError(f"{where}: not an {FORMAT} manifest ('format' is missing or different)")
    if meta.get("version") != VERSION:
        raise ValueError(f"{where}: version {meta.get('version')!r:.20} is not {VERSION}")
    runs = meta.get("runs")
    if not isinstance(runs, dict):
        raise ValueError(f"{where}: 'runs' is missing or not an object")
    parsed = []
    for run_id, entry in runs.items():
        at = f"{where}: run {run_id!r:.100}"
        if not isinstance(entry, dict):
            raise ValueError(f"{at}: not an object")
        header = check_header(entry.get("header"), at)
        if run_id != "/".join(folder_name(header[key]) for key in _NAMES):
            raise ValueError(f"{at}: its header names another run")
        parsed.append((run_id, header, check_episodes(entry.get("episodes"), at, EPISODE_NAME)))
    return parsed
