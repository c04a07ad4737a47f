"""Recordings interrupted at random moments, as Jupyter's Kernel → Interrupt does: a
SIGINT to the recording process's group. tests/recording/test_interrupts.py runs 100
and checks them; benchmarks.record_interrupt runs them by the hundred under load.

The recorder process records MountainCar (which, pushed nowhere, never ends) to a file
per trial, saying "go" before each, and prints what each trial's KeyboardInterrupt
carried. Its env renders once before the first "go": the first render imports pygame,
and a Ctrl-C in that import leaves pygame broken for the process (pygame's, not the
recording's: every later trial then failed at once, before its SIGINT, in 2 of 20
processes under load). "go" is said inside the try, so that a SIGINT just after it is
still the trial's.
"""

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
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from agent_widget.episodes import Rollout, load
from agent_widget.recording import record

RECORDER = """
import json, sys
import gymnasium as gym
from agent_widget import record
from harness.interrupted_recordings import digest

folder, first, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
env = gym.make("MountainCar-v0", render_mode="rgb_array", max_episode_steps=10**9)
env.reset(seed=0)
env.render()
for trial in range(first, first + count):
    try:
        print("go", flush=True)
        record(env, lambda obs: 1, seed=0, max_steps=10**9, path=f"{folder}/{trial}.rollout")
        report = {"error": "the episode ended"}
    except KeyboardInterrupt as error:
        rollout = getattr(error, "rollout", None)
        report = {"rollout": None if rollout is None else digest(rollout)}
    except BaseException as error:
        report = {"error": repr(error)}
    print(json.dumps({"trial": trial, **report}), flush=True)
"""


def interrupted_recordings(
    folder: Path, first: int, count: int, script: str = RECORDER
) -> list[dict[str, Any]]:
    """The reports of trials ``first`` to ``first + count - 1``, recorded by ``script``
    in one process, each cut by a SIGINT to its process group up to a second after its
    "go" (``random``'s draw). A trial that fails by itself fails here, before another
    SIGINT: it did not take its own, and the next would land between trials. (The
    asserts here say what they saw: pytest rewrites only the tests' own.)"""
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
            said = process.stdout.readline()
            assert said == "go\n", f"the recorder said {said!r}, not go (exit {process.poll()})"
            time.sleep(random.uniform(0.0, 1.0))  # deliberate: the interrupt at a random moment
            os.killpg(process.pid, signal.SIGINT)
            line = process.stdout.readline()
            assert line, f"the recorder ended with no report (exit {process.wait(timeout=120)})"
            report = json.loads(line)
            assert "error" not in report, f"not a KeyboardInterrupt: {report}"
            reports.append(report)
        status = process.wait(timeout=120)
        assert status == 0, f"the recorder exited with {status} after its last report"
    finally:
        process.kill()
        process.wait()
    return reports


def check_kept(folder: Path, reports: list[dict[str, Any]]) -> None:
    """Each trial's file is whole and holds the steps its exception carried: those of
    the episode recorded without an interrupt."""
    longest = max((r["rollout"]["positions"] for r in reports if r["rollout"]), default=1)
    reference = record(mountain_car(), lambda obs: 1, seed=0, max_steps=longest - 1)
    for report in reports:
        trial, path = f"trial {report['trial']}", folder / f"{report['trial']}.rollout"
        carried = report["rollout"]
        if carried is None:  # interrupted before the episode began: nothing was written
            assert not path.exists(), f"{trial}: stopped before its episode, yet it wrote one"
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # a whole file, not one recovered from its journal
            stored = load(path)
        n = stored.num_positions
        assert carried == digest(stored), f"{trial}: carried {carried}, filed {digest(stored)}"
        assert stored.actions.tolist() == reference.actions[: n - 1].tolist(), trial
        np.testing.assert_array_equal(frame(stored, n - 1), frame(reference, n - 1), trial)
        assert n == 1 or stored.truncated[-1], f"{trial}: its last step is not truncated"
        assert not path.with_name(path.name + ".part").exists(), f"{trial}: a .part left"


def frame(rollout: Rollout, t: int) -> np.ndarray:
    assert rollout.frames is not None  # MountainCar is recorded with its frames
    return np.asarray(rollout.frames[t])


def mountain_car() -> gym.Env[Any, Any]:
    return gym.make("MountainCar-v0", render_mode="rgb_array", max_episode_steps=10**9)


def digest(rollout: Rollout) -> dict[str, Any]:
    """What a trial's report says of the rollout its exception carried."""
    assert rollout.infos is not None
    return {
        "positions": rollout.num_positions,
        "actions": rollout.actions.tolist(),
        "last_frame": hashlib.sha256(frame(rollout, -1).tobytes()).hexdigest(),
        "last_info": rollout.infos[-1],
        "truncated": bool(rollout.truncated[-1]) if rollout.num_steps else None,
    }
