"""Step tables kept with a library in a bucket (moto's S3 server, s3fs the client):
written by add, read by queries as a folder's are, built by the first query when missing."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("duckdb")
pytest.importorskip("s3fs")

from agent_widget import RunLibrary, record
from agent_widget.library._tables import TABLES
from tests.cartpole import cartpole, lean, with_angle

BUCKET = "runs"  # made by the server fixture (conftest)


@pytest.fixture(scope="module")
def rollouts():
    return [record(cartpole(None), with_angle(lean), seed=s) for s in range(4)]


@pytest.fixture
def url(request) -> str:
    return f"s3://{BUCKET}/{request.node.name[:60]}"


def added(server, url, rollouts) -> RunLibrary:
    lib = RunLibrary(url, storage_options=server.options)
    lib.add(rollouts[:2], algorithm="lean", run="a")
    lib.add(rollouts[2:], algorithm="lean", run="a")
    return RunLibrary(url, storage_options=server.options)  # another reader


def test_add_writes_a_segment_per_add_that_the_listing_never_sees(server, url, rollouts):
    lib = added(server, url, rollouts)
    segments = server.fs.find(f"{url.removeprefix('s3://')}/{TABLES}")
    assert len(segments) == 2
    assert all(s.endswith(".parquet") and "/CartPole-v1/lean/a/" in s for s in segments)
    assert [(r.id, len(r.episodes)) for r in lib.runs()] == [("CartPole-v1/lean/a", 4)]
    assert lib.errors == []


def test_a_bucket_library_answers_as_numpy_does(server, url, rollouts):
    lib = added(server, url, rollouts)
    found = lib.query("SELECT episode, count(*), sum(reward) FROM steps GROUP BY 1 ORDER BY 1")
    assert [tuple(r) for r in found.itertuples(index=False)] == [
        (i, r.num_steps, float(np.sum(r.rewards))) for i, r in enumerate(rollouts)
    ]
    leaning = lib.query("SELECT episode, t FROM steps WHERE angle < -0.05 ORDER BY episode, t")
    expected = [
        (i, int(t))
        for i, r in enumerate(rollouts)
        for t in np.flatnonzero(r.extras["angle"] < -0.05)
    ]
    assert expected
    assert [tuple(r) for r in leaning.itertuples(index=False)] == expected


def test_a_bucket_without_tables_gets_them_built_by_the_first_query(server, url, rollouts):
    added(server, url, rollouts)
    tables = f"{url.removeprefix('s3://')}/{TABLES}"
    server.fs.rm(tables, recursive=True)
    lib = RunLibrary(url, storage_options=server.options)
    assert lib.query("SELECT count(*) FROM steps").iloc[0, 0] == sum(r.num_steps for r in rollouts)
    assert len(server.fs.find(tables)) == 1  # one segment for the run's four episodes
    assert lib.query("SELECT count(*) FROM episodes").iloc[0, 0] == 4
