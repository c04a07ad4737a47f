"""Merging a run's small step-table segments, in a folder and in a bucket (moto's S3
server): fewer segments read, the same rows before and after, and readers that list
before the merge, or between its listing and its reading, still see every step once;
a merge whose segments another took since its listing merges nothing.
A bucket's merged-away segments stay until an add ``RETIRE_AFTER`` later deletes them
(a scan of a segment deleted under it may hang there), read by no query meanwhile."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("duckdb")

from agent_widget import RunLibrary, record
from agent_widget.library import _tables
from agent_widget.library._tables import MERGE_AT, TABLES, SegmentStore
from tests.cartpole import cartpole, lean, with_angle

RUN = "CartPole-v1/lean/a"
PER_EPISODE = "SELECT episode, count(*), sum(reward) FROM steps GROUP BY 1 ORDER BY 1"
LEANING = "SELECT episode, t, angle FROM steps WHERE angle < -0.05 ORDER BY episode, t"


@pytest.fixture(scope="module")
def rollouts():
    return [record(cartpole(None), with_angle(lean), seed=s) for s in range(MERGE_AT)]


@pytest.fixture(params=["folder", "bucket"])
def root(request, tmp_path) -> Path | str:
    """Where a library is: a folder, or a prefix of the test server's bucket."""
    if request.param == "folder":
        return tmp_path / "runs"
    request.getfixturevalue("server")
    return f"s3://runs/{request.node.name[:60]}"


def library(root: Path | str, request: pytest.FixtureRequest) -> RunLibrary:
    """A library at ``root`` (a new reader or writer each call)."""
    if isinstance(root, Path):
        return RunLibrary(root)
    return RunLibrary(root, storage_options=request.getfixturevalue("server").options)


def segment_files(root: Path | str, request: pytest.FixtureRequest) -> list[str]:
    """The segment files on disk or in the bucket, listed without the library's code."""
    if isinstance(root, Path):
        return sorted(str(p) for p in (root / TABLES).rglob("*.parquet"))
    fs = request.getfixturevalue("server").fs
    fs.invalidate_cache()
    return sorted(p for p in fs.find(f"{root.removeprefix('s3://')}/{TABLES}"))


def after_merging(root: Path | str, merged: int) -> int:
    """How many segment files a merge of ``merged`` segments leaves: one in a folder; in
    a bucket, the old ones beside it until they are retired."""
    return 1 if isinstance(root, Path) else merged + 1


def added_one_by_one(root, request, rollouts) -> RunLibrary:
    """A library with ``rollouts`` added one ``add`` each, as after each evaluation."""
    lib = library(root, request)
    for rollout in rollouts:
        lib.add(rollout, algorithm="lean", run="a")
    return lib


def per_episode(rollouts) -> list[tuple[int, int, float]]:
    return [(i, r.num_steps, float(np.sum(r.rewards))) for i, r in enumerate(rollouts)]


def leaning(rollouts) -> list[tuple[int, int, float]]:
    return [
        (i, int(t), float(r.extras["angle"][t]))
        for i, r in enumerate(rollouts)
        for t in np.flatnonzero(r.extras["angle"] < -0.05)
    ]


def rows(frame) -> list[tuple]:
    return [tuple(row) for row in frame.itertuples(index=False)]


def test_the_add_that_reaches_the_threshold_merges_the_runs_segments(root, request, rollouts):
    lib = added_one_by_one(root, request, rollouts[:-1])
    assert len(segment_files(root, request)) == MERGE_AT - 1
    before = rows(lib.query(LEANING))
    assert before  # the filter finds steps
    assert before == leaning(rollouts[:-1])
    lib.add(rollouts[-1], algorithm="lean", run="a")
    assert len(segment_files(root, request)) == after_merging(root, MERGE_AT)
    assert len(lib._segment_store().read()[0]) == 1  # what a query reads
    assert rows(lib.query(PER_EPISODE)) == per_episode(rollouts)
    assert rows(lib.query(LEANING)) == leaning(rollouts)
    assert lib.errors == []


def test_a_merge_changes_no_querys_rows(root, request, rollouts):
    lib = added_one_by_one(root, request, rollouts[:5])
    before = [rows(lib.query(sql)) for sql in (PER_EPISODE, LEANING)]
    assert before == [per_episode(rollouts[:5]), leaning(rollouts[:5])]
    assert lib._segment_store().merge(RUN) == 5
    assert len(segment_files(root, request)) == after_merging(root, 5)
    assert [rows(lib.query(sql)) for sql in (PER_EPISODE, LEANING)] == before
    assert rows(library(root, request).query(PER_EPISODE)) == before[0]  # a new reader too


def test_a_reader_opened_before_the_merge_answers_after_it(root, request, rollouts):
    writer = added_one_by_one(root, request, rollouts[:4])
    reader = library(root, request)
    before = rows(reader.query(PER_EPISODE))  # its footers of the four segments cached
    writer._segment_store().merge(RUN)
    assert len(segment_files(root, request)) == after_merging(root, 4)
    assert rows(reader.query(PER_EPISODE)) == before == per_episode(rollouts[:4])
    assert reader.errors == []


class MergedUnderfoot(SegmentStore):
    """A reader's segment store, before whose first reading (after its listing) a writer
    merges the segments it listed: the moment a concurrent merge is most in the way."""

    def __init__(self, writer: RunLibrary, lib: RunLibrary) -> None:
        super().__init__(lib.root, lib.storage_options)
        self.writer = writer
        self.merged = 0

    def dataset(self, segments, schema):
        found = super().dataset(segments, schema)
        if not self.merged:
            self.merged = self.writer._segment_store().merge(RUN)
        return found


def test_a_merge_between_a_readers_listing_and_its_reading_is_read_again(root, request, rollouts):
    """In a folder the segments listed are gone: the reader lists again. In a bucket
    they stay (the reader reads them as listed), retired only later."""
    writer = added_one_by_one(root, request, rollouts[:4])
    reader = library(root, request)
    reader._segments = store = MergedUnderfoot(writer, reader)
    assert rows(reader.query(PER_EPISODE)) == per_episode(rollouts[:4])
    assert store.merged == 4
    assert len(segment_files(root, request)) == after_merging(root, 4)


def test_a_buckets_merged_away_segments_go_at_an_add_after_the_grace(
    root, request, rollouts, monkeypatch
):
    """Read by no query from the merge on; deleted by the first add ``RETIRE_AFTER``
    after it (an hour here: not by the add after the merge; none: by the next)."""
    monkeypatch.setattr(_tables, "RETIRE_AFTER", 3600)
    lib = added_one_by_one(root, request, rollouts)
    merged = after_merging(root, MERGE_AT)
    assert len(segment_files(root, request)) == merged
    [read] = lib._segment_store().read()[0]  # what a query reads: the merged one alone
    assert len(read.replaces) == MERGE_AT
    assert rows(lib.query(PER_EPISODE)) == per_episode(rollouts)
    lib.add(rollouts[0], algorithm="lean", run="a")  # within the grace: all kept
    assert len(segment_files(root, request)) == merged + 1
    monkeypatch.setattr(_tables, "RETIRE_AFTER", 0)
    lib.add(rollouts[1], algorithm="lean", run="a")
    assert len(segment_files(root, request)) == 3  # the merged one and the two added
    assert rows(lib.query(PER_EPISODE)) == per_episode([*rollouts, *rollouts[:2]])
    assert lib.errors == []


def test_an_episode_in_two_segments_is_merged_once(root, request, rollouts):
    """Two programs that built one episode's table at once left two segments."""
    lib = added_one_by_one(root, request, rollouts[:3])
    store = lib._segment_store()
    store.keep(RUN, [lib.open(RUN).run.episodes[0].file], rollouts[:1])
    assert store.merge(RUN) == 4
    [merged] = store.read()[0]
    assert sorted(merged.episodes) == sorted(e.file for e in lib.open(RUN).run.episodes)
    steps = sum(r.num_steps for r in rollouts[:3])
    assert rows(lib.query("SELECT count(*) FROM steps")) == [(steps,)]
    assert rows(lib.query(PER_EPISODE)) == per_episode(rollouts[:3])


def test_a_merged_segment_waits_for_others_of_its_tier(tmp_path, request, rollouts):
    """Each step is written again once per tier, not by every merge after its first."""
    root = tmp_path / "runs"
    lib = added_one_by_one(root, request, rollouts * 2)
    files = segment_files(root, request)
    assert len(files) == 2
    first = lib._segment_store().read()[0]
    assert [len(s.episodes) for s in first] == [MERGE_AT, MERGE_AT]
    assert rows(lib.query(PER_EPISODE)) == per_episode(rollouts * 2)


class ListedBeforeAnotherMerge(SegmentStore):
    """A writer's segment store, after whose listing of the run's segments (their
    footers known) another writer (``other``, once set) merges and deletes them, as two
    of record_many's workers adding to one run do at times."""

    other: RunLibrary | None = None
    merged = 0

    def _sizes(self, folder):
        found = super()._sizes(folder)
        if self.other is not None and not self.merged:
            self.merged = self.other._segment_store().merge(RUN)
        return found


def test_a_merge_whose_segments_another_merged_since_its_listing_merges_nothing(
    tmp_path, request, rollouts
):
    root = tmp_path / "runs"
    other = added_one_by_one(root, request, rollouts[:4])
    lib = library(root, request)
    lib._segments = store = ListedBeforeAnotherMerge(lib.root, None)
    assert len(store.read()[0]) == 4  # their footers read
    store.other = other
    assert store.merge(RUN) == 0
    assert store.merged == 4
    assert len(segment_files(root, request)) == 1  # the other's
    assert rows(lib.query(PER_EPISODE)) == per_episode(rollouts[:4])
