"""``record_many``: one episode per seed, recorded by parallel workers (processes of this
machine, or Ray actors) straight into a library run or a folder, or back to the caller;
a seed that fails, or whose worker dies, is reported."""

from __future__ import annotations

import os
import tempfile

import gymnasium as gym
import numpy as np
import pytest

from agent_widget import RunLibrary, load, record, record_many
from tests.cartpole import balance, cartpole


def assert_recorded_as_alone(paths):
    """Each file holds the episode its seed gives when recorded alone, in this process."""
    for seed, path in paths.items():
        got, want = load(path), record(cartpole(), balance, seed=seed, max_steps=60)
        np.testing.assert_array_equal(got.actions, want.actions)
        np.testing.assert_array_equal(got.frames[len(got.frames) - 1], want.frames[-1])
        assert got.metadata["seed"] == seed


def test_processes_record_every_seed_into_one_library_run(tmp_path):
    library = RunLibrary(tmp_path / "runs")
    done = record_many(
        cartpole, lambda obs: balance(obs), range(6), library=library, run="eval",
        algorithm="pd", params={"gain": 3}, engine="processes", workers=2, max_steps=60,
        progress=False,
    )  # fmt: skip
    assert done.failed == {}
    assert sorted(done.paths) == list(range(6))
    assert done.run is not None
    assert sorted(e.seed for e in done.run.episodes) == list(range(6))
    assert (done.run.env_id, done.run.algorithm) == ("CartPole-v1", "pd")
    assert done.run.params == {"gain": 3}
    assert_recorded_as_alone(done.paths)
    assert [r.metadata["seed"] for r in done.rollouts] == list(range(6))


def test_a_seed_that_fails_is_reported_and_the_others_recorded(tmp_path):
    def make():  # the env of seed 3 raises when stepped
        class Breaks(gym.Wrapper):
            def reset(self, *, seed=None, options=None):
                self.bad = seed == 3
                return self.env.reset(seed=seed, options=options)

            def step(self, action):
                if self.bad:
                    raise RuntimeError("the env broke")
                return self.env.step(action)

        return Breaks(cartpole())

    done = record_many(
        make, balance, range(5), directory=tmp_path, engine="processes", workers=2,
        max_steps=60, progress=False,
    )  # fmt: skip
    assert list(done.failed) == [3]
    assert "RuntimeError: the env broke" in done.failed[3]
    assert sorted(done.paths) == [0, 1, 2, 4]
    assert_recorded_as_alone(done.paths)


def test_a_worker_that_dies_has_its_seeds_reported_not_recorded(tmp_path):
    def dies_on_seed_2(obs):
        if abs(obs[0] - DYING_CART) < 1e-9:
            os._exit(1)  # the worker process is gone, as when it is killed
        return balance(obs)

    DYING_CART = record(cartpole(), balance, seed=2, max_steps=1).observations[0][0]
    done = record_many(
        cartpole, dies_on_seed_2, range(4), directory=tmp_path, engine="processes",
        workers=2, max_steps=60, progress=False,
    )  # fmt: skip
    assert 2 in done.failed
    assert "died" in done.failed[2]
    assert set(done.failed) | set(done.paths) == {0, 1, 2, 3}  # none silently missing
    assert_recorded_as_alone(done.paths)


def test_ray_actors_record_into_a_library_run(tmp_path):
    ray = pytest.importorskip("ray")
    try:  # record_many starts a local Ray instance of 2 CPUs on loopback
        done = record_many(
            cartpole, balance, range(4), library=tmp_path / "runs", run="ray", algorithm="pd",
            engine="ray", workers=2, max_steps=60, progress=False,
        )  # fmt: skip
    finally:
        ray.shutdown()
    assert done.failed == {}
    assert sorted(e.seed for e in done.run.episodes) == [0, 1, 2, 3]
    assert_recorded_as_alone(done.paths)


def test_with_nowhere_to_write_the_episodes_come_back_and_no_file_stays(tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))  # where the workers put their scratch...
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # ...and this process its own
    done = record_many(
        cartpole, balance, range(4), engine="processes", workers=2, max_steps=60, progress=False
    )
    assert done.failed == {}
    assert done.paths == {}
    rollouts = done.rollouts
    for seed, got in enumerate(rollouts):
        want = record(cartpole(), balance, seed=seed, max_steps=60)
        np.testing.assert_array_equal(got.actions, want.actions)
        np.testing.assert_array_equal(got.frames[got.num_positions - 1], want.frames[-1])
    assert list(tmp_path.rglob("*.rollout")) == []  # held open, deleted from the disk


def test_record_many_needs_seeds_and_a_known_engine(tmp_path):
    with pytest.raises(ValueError, match="at least one seed"):
        record_many(cartpole, balance, [], directory=tmp_path)
    with pytest.raises(ValueError, match="engine must be"):
        record_many(cartpole, balance, [0], directory=tmp_path, engine="dask")
