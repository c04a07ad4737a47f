"""Recordings stopped, filled and fed odd values: what each costs, and what the user sees.

Each case runs in a fresh process recording MountainCar (which, pushed nowhere, never
ends) to a file, as a notebook user would, and is stopped the way users stop things:
Kernel → Interrupt (a SIGINT to the process group, at random moments), a full disk
(``RLIMIT_FSIZE``: writes past it fail with EFBIG), a reward that is no number. For
each: how long until the user has the exception back (for an interrupt, from the
signal), the process's peak memory, and the first line the user reads. Also the cost
the protection adds to every step: holding Ctrl-C around a step's append.
"""

from __future__ import annotations

import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import timeit
from pathlib import Path

from agent_widget.recording._interrupts import interrupts_held
from benchmarks.results import arguments, code_version, command, machine, publish, today

TITLE = "Recording faults"
INTERRUPTS = 20

# A recording, stopped by what argv[2] says; prints one JSON line of what it saw.
RECORDER = """
import json, resource, sys, time
import gymnasium as gym
from agent_widget import load, record

path, case = sys.argv[1], sys.argv[2]

class OddRewardAt30(gym.Wrapper):
    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(action)
        self.t = getattr(self, "t", 0) + 1
        return obs, ("lots" if self.t == 31 else reward), terminated, truncated, info

env = gym.make("MountainCar-v0", render_mode="rgb_array", max_episode_steps=10**9)
if case == "odd reward":
    env = OddRewardAt30(env)
if case == "full disk":
    resource.setrlimit(resource.RLIMIT_FSIZE, (200_000, 200_000))
print("go", flush=True)
started = time.time()
try:
    record(env, lambda obs: 1, seed=0, max_steps=10**9, path=path)
except BaseException as error:
    caught = time.time()
    rollout = getattr(error, "rollout", None)
    status = open("/proc/self/status").read()
    rss = int(next(l for l in status.splitlines() if l.startswith("VmHWM")).split()[1]) * 1024
    whole = True
    if rollout is not None and case != "full disk":
        whole = load(path).num_positions == rollout.num_positions
    print(json.dumps({
        "started": started, "caught": caught, "rss": rss, "whole": whole,
        "steps": None if rollout is None else rollout.num_steps,
        "said": f"{type(error).__name__}: {str(error)[:110]}",
    }), flush=True)
"""


def run(case: str, path: Path, interrupt_after: float | None = None) -> dict:
    """One recording to ``path`` in a fresh process, stopped by ``case``."""
    process = subprocess.Popen(
        [sys.executable, "-c", RECORDER, str(path), case],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
        env={**os.environ, "SDL_VIDEODRIVER": "dummy"},
    )
    assert process.stdout is not None
    assert process.stdout.readline() == "go\n"
    sent = None
    if interrupt_after is not None:
        time.sleep(interrupt_after)  # the interrupt at a random moment
        sent = time.time()
        os.killpg(process.pid, signal.SIGINT)
    result = json.loads(process.stdout.readline())
    process.wait(timeout=120)
    result["seconds"] = result["caught"] - (sent if sent is not None else result["started"])
    return result


def holding_cost() -> float:
    """Microseconds that holding Ctrl-C around a block adds."""

    def held() -> None:
        with interrupts_held():
            pass

    return min(timeit.repeat(held, number=10_000, repeat=7)) / 10_000 * 1e6


def main(argv: list[str] | None = None) -> None:
    args = arguments(__doc__.splitlines()[0]).parse_args(argv)
    load_start = os.getloadavg()[0]
    random.seed(0)
    with tempfile.TemporaryDirectory(prefix="aw-faults-") as name:
        folder = Path(name)
        interrupts = [
            run("interrupt", folder / f"{i}.rollout", random.uniform(0.2, 2.0))
            for i in range(INTERRUPTS)
        ]
        full = run("full disk", folder / "full.rollout")
        odd = run("odd reward", folder / "odd.rollout")
    latencies = sorted(r["seconds"] * 1000 for r in interrupts)
    rows = [
        f"| Kernel → Interrupt at a random moment ({INTERRUPTS} times) | "
        f"{statistics.median(latencies):.1f} ms median, {latencies[-1]:.1f} ms at most, from "
        f"the signal | {max(r['rss'] for r in interrupts) / 2**20:.0f} MB | "
        f"{sum(r['whole'] for r in interrupts)} of {INTERRUPTS} files whole and equal to the "
        f"exception's rollout; `{interrupts[0]['said'] or 'KeyboardInterrupt'}` |",
    ]
    for label, result in (
        ("a full disk (EFBIG at 200 KB)", full),
        ("a reward 'lots' at step 30", odd),
    ):
        said = result["said"].replace(name + "/", "")
        rows.append(
            f"| {label} | {result['seconds'] * 1000:.0f} ms from the start | "
            f"{result['rss'] / 2**20:.0f} MB | {result['steps']} steps on the exception; `{said}` |"
        )
    table = "\n".join(
        [
            "| case | time to the exception | peak memory | what the user sees |",
            "|---|---:|---:|---|",
            *rows,
        ]
    )
    body = (
        f"`{command('benchmarks.recording_faults', argv)}` ({today()}, code {code_version()}, "
        f"{machine(load_start)}). Each recording runs in a fresh process (MountainCar with "
        "frames, to a file); peak memory is that process's. Holding Ctrl-C around a step "
        f"costs {holding_cost():.1f} µs (two signal-handler swaps through `_signal`), "
        f"against ~470 µs for a Pong step and render.\n\n{table}"
    )
    publish(TITLE, body, write=not args.no_write)


if __name__ == "__main__":
    main()
