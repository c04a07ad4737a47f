"""Kernel → Interrupt while recording: a SIGINT to the kernel's process group at any
moment raises KeyboardInterrupt carrying every step so far, and the file holds exactly
those steps (agent_widget.recording._interrupts). The recording processes and what is
checked of their files: harness/interrupted_recordings.py."""

from __future__ import annotations

import random
import signal
import subprocess
import sys

import pytest

from agent_widget.episodes import load
from agent_widget.recording import RecordRollout, record_vector
from agent_widget.recording._interrupts import interrupts_held
from harness.interrupted_recordings import check_kept, interrupted_recordings
from tests.cartpole import cartpole, lean

TRIALS = 100  # the count, spread over a few processes to keep the run short
PROCESSES = 4

# The harness's recorder with record_vector on an AsyncVectorEnv: its worker processes,
# in the recorder's process group, get the SIGINT too.
VECTOR_RECORDER = """
import json, sys
import gymnasium as gym
from agent_widget import record_vector

folder, first, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
for trial in range(first, first + count):
    envs = gym.vector.AsyncVectorEnv(
        [lambda: gym.make("MountainCar-v0", max_episode_steps=10**9)] * 2
    )
    try:
        print("go", flush=True)
        record_vector(envs, lambda obs: [1, 1], seed=0, max_steps=10**9,
                      directory=f"{folder}/{trial}")
        report = {"error": "the episodes ended"}
    except KeyboardInterrupt as error:
        report = {"steps": [r.num_steps for r in getattr(error, "rollouts", [])]}
    except BaseException as error:
        report = {"error": repr(error)}
    print(json.dumps({"trial": trial, **report}), flush=True)
"""


def test_an_interrupt_at_any_moment_keeps_every_step_in_the_exception_and_the_file(tmp_path):
    random.seed(0)
    reports = []
    per_process = TRIALS // PROCESSES
    for first in range(0, TRIALS, per_process):
        reports += interrupted_recordings(tmp_path, first, per_process)
    assert len(reports) == TRIALS
    check_kept(tmp_path, reports)
    lengths = {r["rollout"]["positions"] for r in reports if r["rollout"]}
    assert len(lengths) > 20, lengths  # the interrupts did land at different moments


def test_an_interrupt_reaching_a_vector_envs_workers_too_keeps_each_episode(tmp_path):
    random.seed(1)
    reports = interrupted_recordings(tmp_path, 0, 5, VECTOR_RECORDER)
    for report in reports:
        folder = tmp_path / str(report["trial"])
        if not report["steps"]:  # interrupted before the episodes began
            continue
        stored = [load(path) for path in sorted(folder.iterdir())]
        assert [r.num_steps for r in stored] == report["steps"]
        assert len(set(report["steps"])) == 1  # a vector step is in every episode or none
        assert all(r.actions.tolist() == [1] * r.num_steps for r in stored)


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
