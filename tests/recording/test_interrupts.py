"""Kernel → Interrupt while recording: a SIGINT to the kernel's process group at any
moment raises KeyboardInterrupt carrying every step so far, and the file holds exactly
those steps (agent_widget.recording._interrupts)."""

from __future__ import annotations

import hashlib
import json
import os
import random
import signal
import subprocess
import sys
import time
import warnings

import numpy as np
import pytest

from agent_widget.episodes import Rollout, load
from agent_widget.recording import RecordRollout, record, record_vector
from agent_widget.recording._interrupts import interrupts_held
from tests.cartpole import cartpole, lean

TRIALS = 100  # the count, spread over a few processes to keep the run short
PROCESSES = 4

# Records MountainCar (which, pushed nowhere, never ends) to a file per trial, saying
# "go" before each; a SIGINT cuts it. Prints what the exception carried.
RECORDER = """
import json, sys
import gymnasium as gym
from agent_widget import record
from tests.recording.test_interrupts import digest

folder, first, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
env = gym.make("MountainCar-v0", render_mode="rgb_array", max_episode_steps=10**9)
for trial in range(first, first + count):
    print("go", flush=True)
    try:
        record(env, lambda obs: 1, seed=0, max_steps=10**9, path=f"{folder}/{trial}.rollout")
        report = {"error": "the episode ended"}
    except KeyboardInterrupt as error:
        rollout = getattr(error, "rollout", None)
        report = {"rollout": None if rollout is None else digest(rollout)}
    except BaseException as error:
        report = {"error": repr(error)}
    print(json.dumps({"trial": trial, **report}), flush=True)
"""


# The same with record_vector on an AsyncVectorEnv: its worker processes, in the
# recorder's process group, get the SIGINT too.
VECTOR_RECORDER = """
import json, sys
import gymnasium as gym
from agent_widget import record_vector

folder, first, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
for trial in range(first, first + count):
    envs = gym.vector.AsyncVectorEnv(
        [lambda: gym.make("MountainCar-v0", max_episode_steps=10**9)] * 2
    )
    print("go", flush=True)
    try:
        record_vector(envs, lambda obs: [1, 1], seed=0, max_steps=10**9,
                      directory=f"{folder}/{trial}")
        report = {"error": "the episodes ended"}
    except KeyboardInterrupt as error:
        report = {"steps": [r.num_steps for r in getattr(error, "rollouts", [])]}
    except BaseException as error:
        report = {"error": repr(error)}
    print(json.dumps({"trial": trial, **report}), flush=True)
"""


def interrupted_recordings(folder, first: int, count: int, script: str = RECORDER) -> list[dict]:
    """``count`` recordings in one process, each interrupted at a random moment by a
    SIGINT to its process group, as Jupyter interrupts a kernel."""
    process = subprocess.Popen(
        [sys.executable, "-c", script, str(folder), str(first), str(count)],
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
        env={**os.environ, "SDL_VIDEODRIVER": "dummy"},
    )
    reports = []
    try:
        assert process.stdout is not None
        for _ in range(count):
            assert process.stdout.readline() == "go\n"
            time.sleep(random.uniform(0.0, 1.0))  # deliberate: the interrupt at a random moment
            os.killpg(process.pid, signal.SIGINT)
            reports.append(json.loads(process.stdout.readline()))
        assert process.wait(timeout=120) == 0
    finally:
        process.kill()
        process.wait()
    return reports


def test_an_interrupt_at_any_moment_keeps_every_step_in_the_exception_and_the_file(tmp_path):
    random.seed(0)
    reports = []
    per_process = TRIALS // PROCESSES
    for first in range(0, TRIALS, per_process):
        reports += interrupted_recordings(tmp_path, first, per_process)
    assert len(reports) == TRIALS
    assert [r for r in reports if "error" in r] == []
    longest = max(r["rollout"]["positions"] for r in reports if r["rollout"])
    env_steps = longest - 1
    reference = record(mountain_car(), lambda obs: 1, seed=0, max_steps=env_steps)
    for report in reports:
        path = tmp_path / f"{report['trial']}.rollout"
        carried = report["rollout"]
        if carried is None:  # interrupted before the episode began: nothing was written
            assert not path.exists()
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # a whole file, not one recovered from its journal
            stored = load(path)
        n = stored.num_positions
        assert carried == digest(stored)
        assert stored.actions.tolist() == reference.actions[: n - 1].tolist()
        np.testing.assert_array_equal(stored.frames[n - 1], reference.frames[n - 1])
        assert n == 1 or stored.truncated[-1]
        assert not path.with_name(path.name + ".part").exists()
    lengths = {r["rollout"]["positions"] for r in reports if r["rollout"]}
    assert len(lengths) > 20, lengths  # the interrupts did land at different moments


def test_an_interrupt_reaching_a_vector_envs_workers_too_keeps_each_episode(tmp_path):
    random.seed(1)
    reports = interrupted_recordings(tmp_path, 0, 5, VECTOR_RECORDER)
    assert [r for r in reports if "error" in r] == []
    for report in reports:
        folder = tmp_path / str(report["trial"])
        if not report["steps"]:  # interrupted before the episodes began
            continue
        stored = [load(path) for path in sorted(folder.iterdir())]
        assert [r.num_steps for r in stored] == report["steps"]
        assert len(set(report["steps"])) == 1  # a vector step is in every episode or none
        assert all(r.actions.tolist() == [1] * r.num_steps for r in stored)


def mountain_car():
    import gymnasium as gym

    return gym.make("MountainCar-v0", render_mode="rgb_array", max_episode_steps=10**9)


def digest(rollout: Rollout) -> dict:
    return {
        "positions": rollout.num_positions,
        "actions": rollout.actions.tolist(),
        "last_frame": hashlib.sha256(rollout.frames[-1].tobytes()).hexdigest(),
        "last_info": rollout.infos[-1],
        "truncated": bool(rollout.truncated[-1]) if rollout.num_steps else None,
    }


def test_an_interrupt_while_held_is_raised_after_the_block():
    steps = []

    def held_block() -> None:
        with interrupts_held():
            signal.raise_signal(signal.SIGINT)
            steps.append("finished")  # the block goes on to its end

    with pytest.raises(KeyboardInterrupt):
        held_block()
    assert steps == ["finished"]


def test_an_interrupt_held_during_a_clean_up_is_dropped_and_the_next_one_raised():
    with interrupts_held(raise_after=False):
        signal.raise_signal(signal.SIGINT)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    with pytest.raises(KeyboardInterrupt):  # outside a held block, Ctrl-C is as ever
        signal.raise_signal(signal.SIGINT)


def test_blocks_nest_and_the_outermost_raises():
    steps = []

    def nested() -> None:
        with interrupts_held():
            with interrupts_held():
                signal.raise_signal(signal.SIGINT)
            steps.append("outer goes on")

    with pytest.raises(KeyboardInterrupt):
        nested()
    assert steps == ["outer goes on"]


def test_a_handler_installed_meanwhile_is_the_one_an_interrupt_reaches():
    seen = []
    previous = signal.signal(signal.SIGINT, lambda *_: seen.append("mine"))
    try:
        with interrupts_held():
            signal.raise_signal(signal.SIGINT)
        assert seen == ["mine"]  # handed over after the block
        signal.raise_signal(signal.SIGINT)
        assert seen == ["mine", "mine"]
    finally:
        signal.signal(signal.SIGINT, previous)


def test_an_interrupt_in_the_policy_of_a_wrapper_loop_leaves_the_episode_whole():
    env = RecordRollout(cartpole())

    def loop() -> None:
        obs, _ = env.reset(seed=0)
        for t in range(30):
            if t == 20:
                signal.raise_signal(signal.SIGINT)  # as Kernel → Interrupt would, in the loop
            obs, *_ = env.step(lean(obs))

    with pytest.raises(KeyboardInterrupt):
        loop()
    current = env.current
    assert current is not None
    assert current.num_steps == 20
    rollout = env.end_episode()
    assert rollout is not None
    assert rollout.num_positions == 21


def test_an_interrupt_in_a_batched_policy_carries_each_sub_envs_steps(tmp_path):
    import gymnasium as gym

    envs = gym.make_vec("CartPole-v1", num_envs=2, vectorization_mode="sync")
    calls = []

    def policy(obs):
        calls.append(1)
        if len(calls) == 5:
            signal.raise_signal(signal.SIGINT)
        return (obs[:, 2] > 0).astype(int)

    with pytest.raises(KeyboardInterrupt) as caught:
        record_vector(envs, policy, seed=0, directory=tmp_path)
    rollouts = caught.value.rollouts
    assert [r.num_steps for r in rollouts] == [4, 4]
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "episode-000.rollout",
        "episode-001.rollout",
    ]
    assert [load(p).num_steps for p in sorted(tmp_path.iterdir())] == [4, 4]


def test_the_interrupt_tests_run_when_pytest_starts_with_sigint_ignored():
    """As under ``nohup`` or a shell's ``&``: the tests set Ctrl-C back (tests/conftest.py)."""
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", __file__,
         "-k", "held_is_raised_after_the_block"],
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
        capture_output=True,
        text=True,
        timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:]
