"""``record_many``: one episode per seed, recorded by parallel workers (processes of this
machine, or Ray actors) straight into a library run or a folder, or back to the caller;
a seed that fails, or whose worker dies, is reported."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

from agent_widget import RunLibrary, load, record, record_many
from tests.cartpole import balance, cartpole
from tests.waiting import wait_until


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


INTERRUPTED = """
import sys
from pathlib import Path
from agent_widget import record_many
from tests.cartpole import balance, cartpole

def touching(obs):
    Path(sys.argv[2]).touch()  # a worker is recording
    return balance(obs)

if __name__ == "__main__":
    where = {"directory": sys.argv[1]} if sys.argv[1] != "-" else {}
    try:
        record_many(cartpole, touching, range(60), engine="processes", workers=2,
                    max_steps=500, progress=False, **where)
    except KeyboardInterrupt as error:
        done = error.recorded
        print(sorted(done.paths) or sorted(done.kept), flush=True)
        print(*error.__notes__, flush=True)
"""


@pytest.mark.parametrize("destination", ["directory", "none"])
def test_one_ctrl_c_stops_the_workers_and_keeps_every_finished_episode(tmp_path, destination):
    """Ctrl-C as a terminal or Jupyter sends it: to the whole process group."""
    folder, marker = tmp_path / "episodes", tmp_path / "recording"
    folder.mkdir()
    where = str(folder) if destination == "directory" else "-"
    started = subprocess.Popen(
        [sys.executable, "-c", INTERRUPTED, where, str(marker)],
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own group, as a kernel's: the SIGINT reaches its workers
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    wait_until(marker.exists, "a worker recording")
    if destination == "directory":
        wait_until(lambda: len(list(folder.glob("seed-*.rollout"))) >= 2, "two episodes")
    workers = _children(started.pid)
    os.killpg(started.pid, signal.SIGINT)
    out, _ = started.communicate(timeout=120)  # a hang guard: it waited for all 60 seeds
    kept, note = out.splitlines()
    kept = [int(seed) for seed in kept.strip("[]").split(",") if seed]
    assert len(kept) < 60
    assert note.startswith(f"record_many: interrupted with {len(kept)} of 60 episodes recorded")
    assert started.returncode == 0
    wait_until(lambda: not any(map(_running, workers)), "every worker gone")  # none left
    if destination == "directory":
        assert len(kept) >= 2
        whole = sorted(int(p.name[5:-8]) for p in folder.glob("seed-*.rollout"))
        assert whole == kept  # every finished episode kept, and only those as whole files
        for seed in kept:  # each as recorded alone
            want = record(cartpole(None), balance, seed=seed, max_steps=500).actions
            np.testing.assert_array_equal(load(folder / f"seed-{seed}.rollout").actions, want)


MANY_SEEDS = """
import sys
from pathlib import Path
from agent_widget import record_many
from tests.cartpole import balance, cartpole

def touching(obs):
    Path(sys.argv[1]).touch()  # a worker is recording
    return balance(obs)

if __name__ == "__main__":
    try:
        record_many(cartpole, touching, range(20_000), engine="processes", workers=2,
                    max_steps=5, progress=False)
    except KeyboardInterrupt as error:
        print(len(error.recorded.kept), flush=True)
"""


def test_ctrl_c_among_thousands_of_seeds_exits(tmp_path):
    """A kernel's interrupt reaches its process alone. Waiting on 20,000 seeds, the main
    thread spends most of its time locking their futures: a Ctrl-C there once left
    some locked, and the process hung at exit (its pool's thread waiting on one)."""
    marker = tmp_path / "recording"
    started = subprocess.Popen(
        [sys.executable, "-c", MANY_SEEDS, str(marker)],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    wait_until(marker.exists, "a worker recording")
    started.send_signal(signal.SIGINT)
    out, _ = started.communicate(timeout=120)  # a hang guard: it hung for good
    assert started.returncode == 0
    assert 0 <= int(out) < 20_000


STOPPED_BETWEEN_SEEDS = """
import os, signal
from agent_widget.library import _record_many as many

signal.signal(signal.SIGINT, many._interrupt_if_stopping)  # as a worker starts
signal.signal(signal.SIGTERM, many._stop_here)
os.kill(os.getpid(), signal.SIGINT)  # the group's Ctrl-C, then record_many's stop
os.kill(os.getpid(), signal.SIGTERM)
os.kill(os.getpid(), signal.SIGINT)  # a second Ctrl-C
many._WORKER = many._Worker  # (not called: the seed is turned away)
print(many._record_here(7))
"""


def test_a_stop_between_seeds_raises_nothing_and_turns_the_next_seed_away():
    """Between seeds a worker is in the pool's own code, sending an outcome or waiting
    for a seed: an interrupt raised there would lose an episode already filed."""
    done = subprocess.run(
        [sys.executable, "-c", STOPPED_BETWEEN_SEEDS], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "stopped by Ctrl-C before it started\n"


def _children(parent: int) -> list[int]:
    """The processes whose parent is ``parent``."""
    return [pid for pid in _pids() if _stat(pid)[1] == str(parent)]


def _running(pid: int) -> bool:
    """Whether ``pid`` is a process that has not exited (a zombie has)."""
    return pid in _pids() and _stat(pid)[0] != "Z"


def _pids() -> list[int]:
    return [int(p.name) for p in Path("/proc").iterdir() if p.name.isdigit()]


def _stat(pid: int) -> list[str]:
    """State and parent of ``pid`` (fields 3 and 4 of /proc/<pid>/stat)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[:2]
    except OSError:
        return ["Z", "0"]


def test_a_library_without_algorithm_is_refused_before_any_seed(tmp_path):
    with pytest.raises(ValueError, match=r"needs algorithm=.*checked before any seed"):
        record_many(cartpole, balance, range(4), library=tmp_path / "runs", progress=False)
    assert not (tmp_path / "runs").exists()


def test_a_success_function_is_kept_in_each_episodes_summary(tmp_path):
    done = record_many(
        cartpole, balance, range(3), library=tmp_path, algorithm="pd", run="eval",
        success=lambda rollout: rollout.metadata["seed"] != 1, engine="processes", workers=1,
        max_steps=20, progress=False,
    )  # fmt: skip
    assert done.run is not None
    assert {e.seed: e.success for e in done.run.episodes} == {0: True, 1: False, 2: True}
    assert [r.metadata["success"] for r in done.rollouts] == [True, False, True]


UNGUARDED = """
from agent_widget import record_many
from tests.cartpole import balance, cartpole

done = record_many(cartpole, balance, range(2), engine="processes", workers=1, progress=False)
print(sorted(done.failed.values())[0])
"""


def test_a_script_without_a_main_guard_is_told_why_its_workers_died(tmp_path):
    script = tmp_path / "unguarded.py"
    script.write_text(UNGUARDED)
    done = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    assert 'call record_many under `if __name__ == "__main__":`' in done.stdout.splitlines()[-1]
