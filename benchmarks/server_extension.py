"""Inputs in quick succession, on a server with agent-widget's extension and on a stock one.

jupyter_server leaves Nagle's algorithm on for kernel websockets: a kernel's reply
that follows its "busy" status while the browser has not yet acknowledged it waits
in the server, and a browser that exchanged messages in the last ~200 ms delays its
acknowledgement by ~40 ms. agent_widget_server (enabled by the wheel) turns Nagle
off. Two JupyterLab servers side by side, one with the extension and one stock, each
with a page showing, for Pong: the viewer on a long episode (every random jump a
chunk never fetched), (a) ``interact`` + ``plt.imshow`` and (e) the bare comm echo.
Each input follows the last one's answer once the kernel has been idle for the gap:
50 ms (a user scrubbing, clicking along the timeline, stepping with a panel open)
or 600 ms (an input after a pause). Servers, gaps and variants take turns.

    .venv/bin/python -m benchmarks.server_extension          # prints and updates RESULTS.md
    .venv/bin/python -m benchmarks.server_extension --quick  # smoke run; prints only
"""

from __future__ import annotations

import contextlib
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks import scenes
from benchmarks.results import arguments, code_version, command, machine, publish, today
from benchmarks.viewer import FULL, QUICK, VARIANTS, Run, saved_scene
from harness.chromium import chromium
from harness.lab import Server

TITLE = "Inputs in quick succession: the server extension"
TIMEOUT_MS = 60_000
GAPS = {"in quick succession (50 ms gap)": 50, "after a pause (600 ms gap)": 600}
SERVERS = {"ours": "with agent_widget_server", "stock": "stock server"}
SHOWN = {
    "uncached": "agent-widget, uncached: random jump to paint",
    "interact": "(a) interact + plt.imshow: random jump to paint",
    "echo": "(e) comm echo: round trip",
}
HELD_MS = 40
STARTED = time.monotonic()


def measure(quick: bool) -> dict[str, Any]:
    """Both servers' pages, inputs interleaved; the raw latencies in ms by server, gap, variant."""
    plan = QUICK if quick else FULL
    reps, per_turn = (2, 2) if quick else (8, 4)
    load_start = os.getloadavg()[0]
    samples: dict[str, dict[str, dict[str, list[float]]]] = {
        server: {gap: {key: [] for key in SHOWN} for gap in GAPS} for server in SERVERS
    }
    with tempfile.TemporaryDirectory(prefix="aw-bench-server-ext-") as tmp:
        folder = Path(tmp)
        scene = saved_scene("ALE/Pong-v5", "pong", scenes.pong(plan.steps), folder, fps=60)
        with contextlib.ExitStack() as stack:
            browser = stack.enter_context(chromium())
            runs: dict[str, Run] = {}
            for key in SERVERS:
                server = Server(folder / key, stock=key == "stock")
                stack.callback(server.stop)
                runs[key] = Run(server, browser, scene, plan, far=False)
                stack.callback(runs[key].close)
                for variant in SHOWN:
                    source, first, _drive = VARIANTS[variant]
                    runs[key].cells[variant], _ = runs[key].run_cell(source, first)
            current = {(server, key): 0 for server in SERVERS for key in SHOWN}
            for rep in range(reps):
                turns = [(s, g, k) for g in GAPS for s in SERVERS for k in SHOWN]
                shift = rep % len(turns)
                for server, gap, key in turns[shift:] + turns[:shift]:
                    run, quiet = runs[server], GAPS[gap]
                    for _ in range(per_turn):
                        if key == "echo":
                            answer = run.probed.call("echo", run.cells[key], 0, quiet)
                        else:
                            t = run.jump_target(key, current[server, key])
                            current[server, key] = t
                            drive = VARIANTS[key][2]
                            cell = run.cells[key]
                            answer = run.probed.call(
                                "measure", cell, drive, "jump", t, TIMEOUT_MS, quiet
                            )
                        samples[server][gap][key].append(answer["ms"])
                print(f"repetition {rep + 1}/{reps} done", flush=True)
    return {
        "command": command("benchmarks.server_extension"),
        "code": code_version(),
        "date": today(),
        "machine": machine(load_start),
        "minutes": (time.monotonic() - STARTED) / 60,
        "samples": samples,
    }


def markdown(raw: dict[str, Any]) -> str:
    samples = raw["samples"]
    n = len(samples["ours"][next(iter(GAPS))]["echo"])
    head = (
        f"`{raw['command']}` ({raw['date']}, code {raw['code']}; {raw['machine']}; "
        f"{n} inputs per variant, gap and server, interleaved; the run took "
        f"{raw['minutes']:.1f} min).\n\n{__doc__.split(chr(10) + chr(10))[1]}\n\n"
        "Medians / p95 in ms, and how many answers took 40 ms or more (Linux delays an "
        "ACK by 40 ms at least, so a reply held for one takes that long; not counted for "
        "(a), whose every frame takes longer to draw). A stock server holds some replies "
        "and not others, so its medians move from run to run; the counts move less."
    )
    rows = [
        "| input | gap | with agent_widget_server | stock server | stock / with |",
        "|---|---|---:|---:|---:|",
    ]
    for key, label in SHOWN.items():
        for gap in GAPS:
            ours, stock = (samples[s][gap][key] for s in ("ours", "stock"))
            ratio = statistics.median(stock) / statistics.median(ours)
            held = key != "interact"
            rows.append(
                f"| {label} | {gap} | {cell(ours, held)} | {cell(stock, held)} | {ratio:.2f}x |"
            )
    return head + "\n\n" + "\n".join(rows)


def cell(values: list[float], held: bool) -> str:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    count = f"; {sum(v >= HELD_MS for v in values)}/{len(values)} at 40+" if held else ""
    return f"{statistics.median(values):.1f} / {p95:.1f}{count}"


def main() -> None:
    parser = arguments(__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a short smoke run (prints only)")
    args = parser.parse_args()
    raw = measure(args.quick)
    publish(TITLE, markdown(raw), write=not (args.no_write or args.quick))


if __name__ == "__main__":
    main()
