"""The viewer benchmark's RESULTS.md section, rendered from its raw measurements (the JSON
``benchmarks.viewer --raw`` writes): a table and notes per episode, first frame by
length, and the issue's targets, each met or missed."""

from __future__ import annotations

import os
import platform
from collections.abc import Sequence
from importlib.metadata import version
from typing import Any

import numpy as np

Scene = dict[str, Any]

LABELS = {
    "ours": "agent-widget EpisodeViewer",
    "uncached": "agent-widget, uncached",
    "interact": "(a) interact + plt.imshow",
    "image": "(b) ipywidgets.Image + IntSlider",
    "base64": "(c) base64 PNG in JSON (HTML img)",
    "jshtml": "(d) FuncAnimation.to_jshtml()",
    "echo": "(e) comm echo (the floor)",
    "echo_chunk": "(e') comm echo, one chunk's bytes back",
    "echo_frame": "(e'') comm echo, one frame back, inflated and painted",
}

METHOD = (
    "Latency is timed in the page from the input event to the new frame painted (the "
    "viewer's `data-painted-step`, set after `putImageData`; for the baselines, their new "
    "`<img>` decoded). Steps: an arrow key (ours: also a slider step; ipywidgets sliders: "
    "the arrow key on the handle, the code path of a drag; to_jshtml: its Next button). "
    "Jumps: the slider to a random position (ipywidgets: typed into the slider's readout). "
    "Bytes on the wire: all the page's websockets received from the input until the kernel "
    "was idle, status messages included (for ours: what the kernel sent during the "
    "background fill, per frame). Memory held: the page's JS heap + DOM heap + ArrayBuffers "
    "freed when the variant's output is cleared (decoded `<img>` bitmaps are not counted). "
    "Notebook: the saved .ipynb holding the setup cell and that variant's cell. Episodes: "
    "Pong is ALE/Pong-v5 under a seeded uniform random policy, recorded by `record()`; the "
    "480x480 one is synthetic (a static sky and checkered floor, two shaded balls moving "
    "smoothly); both are saved to a .rollout that the kernel loads. (a)-(c) encode PNG on "
    "demand with Pillow's defaults; (d) sizes its figure to the frame. The uncached row is "
    "the viewer on a long episode tiling the same chunks, too big for the background fill."
)


def ms(values: Sequence[float]) -> str:
    if not values:
        return "—"
    return f"{np.median(values):.1f} / {np.percentile(values, 95):.1f}"


def median(samples: Sequence[dict[str, float]], field: str = "ms") -> float:
    return float(np.median([s[field] for s in samples])) if samples else float("nan")


def size(n: float) -> str:
    if n >= 2**20:
        return f"{n / 2**20:.1f} MB"
    return f"{n / 1024:.1f} KB" if n >= 1024 else f"{n:.0f} B"


def number(value: float | None, format_spec: str) -> str:
    return "—" if value is None else format(value, format_spec)


def reply_bytes(scene: Scene) -> float:
    """What the kernel sent per frame during the fill: JSON content and buffers."""
    kernel = scene["results"]["fill_kernel"]
    return (kernel["json_bytes"] + kernel["buffer_bytes"]) / max(kernel["frames"], 1)


def payload_bytes(scene: Scene) -> float:
    """The frame payloads alone, per frame (runs before the readout data became a buffer
    counted all buffers as frame payload)."""
    kernel = scene["results"]["fill_kernel"]
    return kernel.get("payload_bytes", kernel["buffer_bytes"]) / max(kernel["frames"], 1)


def played(play: dict[str, Any] | None, seconds: float) -> str:
    if play is None:
        return "—"
    text = f"{play['fps']:.1f} fps"
    if play["dropped"] is not None:
        text += f", {play['dropped']} dropped"
    if play.get("lastPaintMs") is not None and play["lastPaintMs"] < 1000 * seconds - 500:
        text += f"; stalled at step {play['endStep']} after {play['lastPaintMs']:,.0f} ms"
    return text


def wire(scene: Scene, key: str) -> str:
    samples = scene["results"]["latency"].get(key, {})
    if key == "ours":
        return f"{size(reply_bytes(scene))} ({size(scene['frame_bytes'])} encoded)"
    if key.startswith("uncached"):
        return f"{size(median(samples['jump'], 'bytes'))} per jump (chunk + prefetch)"
    if key.startswith("echo"):
        return f"{size(median(samples['jump'], 'bytes'))} per round trip"
    return size(median(samples["step"], "bytes"))


def scene_table(scene: Scene, seconds: float) -> str:
    r = scene["results"]
    lines = [
        "| variant | step to paint: median / p95 (ms) | random jump to paint: median / p95 (ms) "
        "| bytes on the wire per frame | first frame (ms) | playback "
        "| memory held (MB) | saved notebook (KB) |",
        "|---|---:|---:|---:|---:|---|---:|---:|",
    ]
    for key, label in LABELS.items():
        if key not in r["latency"]:
            continue  # not measured in this run (an older one's raw measurements)
        samples = r["latency"][key]
        steps = [s["ms"] for s in samples.get("step", [])]
        jumps = [s["ms"] for s in samples.get("jump", [])]
        held = r["memory_held"].get(key)
        notebook = r["notebook_bytes"].get(key)
        lines.append(
            f"| {label} | {ms(steps)} | {ms(jumps)} | {wire(scene, key)} "
            f"| {number(r['first_frame'].get(key), ',.0f')} "
            f"| {played(r['playback'].get(key), seconds)} "
            f"| {number(None if held is None else held / 2**20, '.1f')} "
            f"| {number(None if notebook is None else notebook / 1024, ',.1f')} |"
        )
    return "\n".join(lines)


def breakdown(latency: dict[str, Any]) -> str:
    """Where random jumps' time went: until the page's request left, until the message
    carrying the frame arrived, and after."""
    parts = []
    for key in ("uncached", "interact", "image", "base64"):
        timed = [s for s in latency[key]["jump"] if s.get("replyMs") is not None]
        if timed:
            sent = [s["sentMs"] for s in timed if s.get("sentMs") is not None]
            arrived = np.median([s["replyMs"] for s in timed])
            after = np.median([s["ms"] - s["replyMs"] for s in timed])
            left = f"{np.median(sent):.1f} / " if sent else ""
            parts.append(f"{LABELS[key]} {left}{arrived:.1f} / {after:.1f}")
    return "; ".join(parts)


def scene_notes(scene: Scene) -> str:
    r = scene["results"]
    kernel = r["fill_kernel"]
    play = r["playback"]
    frames = kernel["frames"]
    payload = payload_bytes(scene)
    during = r["steps_during_fill"]
    long_chunks = -(-scene["long_positions"] // 16)
    gaps = ", ".join(
        f"{number(play[key]['maxGapMs'], '.0f')} ms ({key})" for key in ("ours", "uncached")
    )
    return "\n".join(
        [
            f"- Background fill of the {scene['positions']:,} positions: "
            f"{r['fill_ms']:,.0f} ms after the first frame, in {kernel['replies']} replies "
            f"carrying {frames:,} frames (each position once: {frames == scene['positions']}); "
            f"arrow-key steps meanwhile: {ms(during)} ms (median / p95 of {len(during)}).",
            f"- Per frame, the kernel sent {size(payload)} of frame payload "
            f"({payload / scene['frame_bytes']:.2f}x the encoded frame) and "
            f"{size(reply_bytes(scene))} with the part headers and the readout data "
            f"({reply_bytes(scene) / scene['frame_bytes']:.2f}x); the page's websockets "
            f"received {size(r['fill_wire'] / scene['positions'])} per position from running "
            f"the cell to the end of the fill.",
            f"- Random jumps, median ms from the input until the page's first message out "
            f"(the request; where it was timed) / until the message carrying the frame "
            f"arrived / from there to the paint: {breakdown(r['latency'])}.",
            f"- Uncached: {scene['long_positions']:,} positions; the view held "
            f"{r['uncached_cached_chunks']:,} of its {long_chunks:,} chunks at the end.",
            f"- Playback: display rate {play['ours']['displayFps']:.0f} Hz; longest gap "
            f"between painted frames after the first second: {gaps}.",
            f"- Page peak (JS + DOM + ArrayBuffers): {r['peak_heap'] / 2**20:.0f} MB. With "
            f'"Save Widget State Automatically" on (JupyterLab\'s default is off), the '
            f"viewer's state would add {size(r['widget_state_bytes']['ours'])} to the notebook "
            f"({size(r['widget_state_bytes']['uncached'])} for the uncached episode).",
        ]
    )


def steps_of(pong: Scene, length: str) -> int:
    """The steps of the episode that first-frame measurement ``length`` showed."""
    positions = {"100": 101, "1000": pong["positions"], "100000": 100_001}
    return positions.get(length, pong["long_positions"]) - 1


def first_frame_table(pong: Scene) -> str:
    r = pong["results"]
    times = r["ttff"]
    short, long = np.median(times["100"]), np.median(times["100000"])
    fill = r.get("hundred_k_fill_ms")
    fill_text = "not waited for (--quick)" if fill is None else f"{fill / 1000:.1f} s"
    rows = [
        f"| {steps_of(pong, key):,} | {np.median(values):,.0f} | {len(values)} |"
        for key, values in times.items()
    ]
    return "\n".join(
        [
            "| steps | first frame: median (ms) | runs |",
            "|---:|---:|---:|",
            *rows,
            "",
            f"100,000 / 100 steps: {long / short:.2f}x. The 100,000-step viewer's background "
            f"fill: {fill_text}; memory it then held in the page: "
            f"{r['hundred_k_held'] / 2**20:.1f} MB; saved notebook with it: "
            f"{r['hundred_k_notebook_bytes'] / 1024:.1f} KB (its widget state, if saved: "
            f"{size(r['hundred_k_state_bytes'])}).",
        ]
    )


def verdict(ok: bool) -> str:
    return "**met**" if ok else "**missed**"


def held(samples: list[dict[str, float]]) -> str:
    """How many of ``samples`` took over 30 ms, as a fraction: on a stock server, a reply
    held back for the browser's delayed ACK (~40 ms; benchmarks.server_extension)."""
    return f"{sum(s['ms'] > 30 for s in samples)}/{len(samples)}"


def scene_targets(scene: Scene) -> list[str]:
    r = scene["results"]
    lat = r["latency"]
    step, prefetched = median(lat["ours"]["step"]), median(lat["uncached"]["step"])
    worst = max(step, prefetched)
    a_step = median(lat["interact"]["step"])
    jump, echo = median(lat["uncached"]["jump"]), median(lat["echo"]["jump"])
    chunk_echo = median(lat["echo_chunk"]["jump"])
    frame_echo = median(lat.get("echo_frame", {}).get("jump", []))  # runs before (e'') had none
    hit = median(lat["ours"]["jump"])
    a_jump, b_jump = median(lat["interact"]["jump"]), median(lat["image"]["jump"])
    play = r["playback"]["ours"]
    fps = scene["fps"]
    per_frame = reply_bytes(scene) / scene["frame_bytes"]
    payload = payload_bytes(scene)
    notebook = max(r["notebook_bytes"]["ours"], r["notebook_bytes"]["uncached"])
    return [
        f"- stepping median under 8 ms and 10x faster than (a): {step:.1f} ms after the fill, "
        f"{prefetched:.1f} ms on the uncached episode (prefetch window only), "
        f"{a_step / worst:.0f}x faster than (a): {verdict(worst < 8 and a_step >= 10 * worst)}",
        f"- uncached random jump within 1.25x of the echo floor, faster than (a) and (b): "
        f"{jump:.1f} ms = {jump / echo:.2f}x the echo's {echo:.1f} ms; (a) {a_jump:.0f} ms, "
        f"(b) {b_jump:.0f} ms: {verdict(jump <= 1.25 * echo and jump < min(a_jump, b_jump))}"
        f". (e'), the echo bringing one chunk's bytes back with "
        f"nothing to decode or paint: {chunk_echo:.1f} ms = {chunk_echo / echo:.2f}x; "
        f"(e''), the echo bringing one frame back (RGBA, deflated ahead), inflated and "
        f"painted: {frame_echo:.1f} ms = {frame_echo / echo:.2f}x. "
        f"Round trips over 30 ms: {held(lat['echo']['jump'])} of the "
        f"echo's, {held(lat['uncached']['jump'])} of ours",
        f"- after the background fill ({r['fill_ms'] / 1000:.2f} s), random jumps under 8 ms: "
        f"{hit:.1f} ms: {verdict(hit < 8)}",
        f"- playback at {fps:.0f} fps, no dropped frames after the first second: "
        f"{play['fps']:.1f} fps, {play['dropped']} dropped: "
        f"{verdict(play['fps'] >= 0.98 * fps and play['dropped'] == 0)}",
        f"- wire bytes per frame within 1.1x of the encoded frame: {per_frame:.2f}x with the "
        f"readout data ({payload / scene['frame_bytes']:.2f}x the frame payload alone): "
        f"{verdict(per_frame <= 1.1)}",
        f"- saved notebook under 100 KB: {notebook / 1024:.1f} KB: "
        f"{verdict(notebook < 100 * 1024)}",
    ]


def targets(scenes: Sequence[Scene]) -> str:
    blocks = [f"{scene['name']}:\n\n" + "\n".join(scene_targets(scene)) for scene in scenes]
    pong = scenes[0]["results"]
    short, long = np.median(pong["ttff"]["100"]), np.median(pong["ttff"]["100000"])
    notebook = pong["hundred_k_notebook_bytes"]
    any_length = [
        f"- first frame for 100,000 steps within 1.5x of 100 steps: {long / short:.2f}x: "
        f"{verdict(long <= 1.5 * short)}",
        f"- saved notebook with the 100,000-step viewer under 100 KB: {notebook / 1024:.1f} KB: "
        f"{verdict(notebook < 100 * 1024)}",
    ]
    return "\n\n".join([*blocks, "Any length:\n\n" + "\n".join(any_length)])


def heading(raw: dict[str, Any]) -> str:
    """What was run, on what, how loaded and how long."""
    run, plan = raw["run"], raw["plan"]
    versions = ", ".join(
        f"{name} {version(name)}" for name in ("jupyterlab", "jupyter_server", "ipywidgets")
    )
    samples = plan["reps"] * plan["jumps_per_rep"]
    head = (
        f"`{run['command']}` ({run['date']}, code {run['code']}; the {os.cpu_count()}-core "
        f"{platform.machine()} machine, shared "
        f"with other jobs: load average {run['load_start']:.1f} at the start, "
        f"{run['load_end']:.1f} at the end; {versions}, with agent_widget_server (TCP_NODELAY "
        f"on kernel websockets, as the wheel installs it); "
        f"headless Debian Chromium {run['chromium']}; {plan['reps']} interleaved repetitions: "
        f"{samples} random jumps and {2 * samples} steps per variant, medians; playback "
        f"{plan['play_seconds']:.0f} s; the whole run took {run['minutes']:.1f} min)."
    )
    return head


def markdown(raw: dict[str, Any]) -> str:
    """The section's near part (the server's own port), from the raw measurements."""
    pong, big = raw["scenes"]
    seconds = raw["plan"]["play_seconds"]
    return "\n\n".join(
        [
            heading(raw),
            METHOD,
            f"### {pong['name']}, {pong['positions'] - 1:,} steps (210x160)",
            scene_table(pong, seconds),
            scene_notes(pong),
            f"### {big['name']}, {big['positions'] - 1:,} steps",
            scene_table(big, seconds),
            scene_notes(big),
            "### Time to first frame by length (Pong chunks, viewer built and shown in one cell)",
            first_frame_table(pong),
            "### Targets",
            targets(raw["scenes"]),
        ]
    )
