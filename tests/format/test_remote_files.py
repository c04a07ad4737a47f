"""``load()`` of a URL: a ``.rollout`` in an S3-compatible bucket (moto's server, started
here on loopback, with s3fs as the client) opens lazily, and a view of a long episode
fetches only the ranges it reads, counted in the server's own request log."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from agent_widget import Rollout, RolloutFileError, load

pytest.importorskip("s3fs")
from harness.process import free_port
from harness.s3_server import S3Server  # needs s3fs


@pytest.fixture(scope="module")
def bucket(tmp_path_factory: pytest.TempPathFactory) -> Iterator[S3Server]:
    bucket = S3Server(tmp_path_factory.mktemp("s3"))
    bucket.fs.mkdir("episodes")
    yield bucket
    bucket.stop()


def moving(n: int) -> Rollout:
    frames = np.zeros((n, 24, 32, 3), np.uint8)
    t = np.arange(n)
    frames[t, t % 24, t % 32] = 255
    return Rollout.from_arrays(
        frames=frames,
        actions=t[:-1] % 3,
        rewards=np.ones(n - 1),
        infos=[{"t": int(i)} for i in t],
        metadata={"env_id": "Moving-v0", "seed": 1},
    )


def test_a_rollout_in_a_bucket_loads_and_reads_like_a_local_one(bucket, tmp_path):
    local = moving(200).save(tmp_path / "moving.rollout")
    bucket.fs.put(str(local), "episodes/moving.rollout")
    remote = load("s3://episodes/moving.rollout", storage_options=bucket.options)
    mine = load(local)
    assert remote.num_positions == 200
    assert remote.metadata["env_id"] == "Moving-v0"
    for t in (0, 77, 199):
        np.testing.assert_array_equal(remote.frames[t], mine.frames[t])
        assert remote.infos[t] == {"t": t}
    np.testing.assert_array_equal(remote.actions, mine.actions)


def test_a_long_episode_in_a_bucket_is_read_a_chunk_at_a_time(bucket, tmp_path):
    local = moving(20_000).save(tmp_path / "long.rollout")
    bucket.fs.put(str(local), "episodes/long.rollout")
    before = bucket.gets()
    remote = load("s3://episodes/long.rollout", storage_options=bucket.options)
    opened = bucket.gets() - before
    np.testing.assert_array_equal(remote.frames[12_345], load(local).frames[12_345])
    read = bucket.gets() - before - opened
    # Opening: the object's size, its end (the zip directory), the small members (one
    # request for all) and the blob's header; a frame: its part.
    assert opened <= 4, opened
    assert read <= 2, read


def test_missing_objects_and_unreachable_endpoints_are_clear_errors(bucket):
    with pytest.raises(RolloutFileError, match=r"s3://episodes/nothing.rollout: cannot open"):
        load("s3://episodes/nothing.rollout", storage_options=bucket.options)
    nowhere = {
        **bucket.options,
        "client_kwargs": {"endpoint_url": f"http://127.0.0.1:{free_port()}"},
    }
    nowhere["config_kwargs"] = {"retries": {"max_attempts": 1}, "connect_timeout": 2}
    with pytest.raises(RolloutFileError, match=r"s3://episodes/long.rollout: cannot open"):
        load("s3://episodes/long.rollout", storage_options=nowhere)
