"""The viewer benchmark's near-and-far part of RESULTS.md: Pong over each link side by
side, the far-link proxy's own check, the requests the page had in flight while the
episode filled in, and issue #18's targets, each met or missed."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from benchmarks.report import median, steps_of, verdict
from harness.far_link import CHECKS

FAR = "150ms-10mbit"  # the link #18's far targets are set on

METHOD = (
    "Each far link is the proxy of `harness/far_link.py` between Chromium and the same "
    "JupyterLab server (page and websockets): every byte leaves it half the round trip "
    "after it arrived, at no more than the link's rate, each direction on its own; each "
    "side's TCP talks to a local peer, so TCP's own slow start over the long path is not "
    "modelled. The links run one after another, each in a fresh page and kernel, on the "
    "Pong scene: ours after its fill, the uncached viewer (every jump a miss), (a) and the "
    "echo (e). First frame by length: the viewer built and shown in one cell, lengths "
    "alternating. The fill: from the 1,001-position viewer's first paint until it held "
    "every chunk (its `data-cached-chunks`), as displayed (its first 16 KiB of chunks in "
    "the widget's state, the default embed_bytes since 2026-12-04; 64 KiB, all of them, "
    "before) and with none there (`embed_bytes=0`: the first "
    "frame waits for a request); then the 100,000-step viewer's, with the bytes the page's "
    "websockets received meanwhile; requests are the widget's custom messages "
    "with an id, seen leaving and answered at the page's websocket; a request starts a "
    "new round trip when it leaves after an answer to a request of the current one came "
    "back (it could have waited for it)."
)


def requests(log: dict[str, Any]) -> list[dict[str, Any]]:
    """The frame (and timeline) requests of a run: panel requests left out."""
    return [r for r in log["requests"] if r["type"] != "panel"]


def round_trips(sent: list[dict[str, Any]]) -> int:
    """How many round trips ``sent`` took, one after another (see METHOD)."""
    count, answered = 0, float("inf")  # answered: the first answer to the current round
    for request in sorted(sent, key=lambda r: r["sent"]):
        if count == 0 or request["sent"] >= answered:
            count, answered = count + 1, float("inf")
        if request["replied"] is not None:
            answered = min(answered, request["replied"])
    return count


def in_flight(sent: list[dict[str, Any]], origin: float) -> tuple[int, str]:
    """The most requests in flight at once, and how many were, from ``origin`` on (ms
    after it: count, at each change, the first dozen)."""
    events = sorted(
        [(r["sent"], 1) for r in sent] + [(r["replied"], -1) for r in sent if r["replied"]]
    )
    level, peak, changes = 0, 0, []
    for at, change in events:
        level += change
        peak = max(peak, level)
        changes.append(f"{max(at - origin, 0):,.0f} ms: {level}")
    shown = ", ".join(changes[:12]) + (", ..." if len(changes) > 12 else "")
    return peak, shown or "none"


def fill(scene: dict[str, Any], which: str = "fill_log", positions: int = 0) -> dict[str, Any]:
    """A background fill after the first frame (the run log ``which`` of ``positions``,
    the scene's by default): how long, which requests, round trips."""
    log = scene["results"][which]
    chunks = -(-(positions or scene["positions"]) // 16)
    first = log["firstFrame"]
    full = next((t for t, n in log["cached"] if n >= chunks), None)
    before = [q for q in requests(log) if q["replied"] is not None and q["replied"] <= first]
    after = [q for q in requests(log) if q not in before and (full is None or q["sent"] <= full)]
    peak, shown = in_flight(after, first)
    return {
        "ms": None if full is None else max(full - first, 0.0),
        "first_requests": len(before),
        "requests": len(after),
        "chunks": sum(q["chunks"] or 0 for q in after),
        "rounds": round_trips(after),
        "peak": peak,
        "in_flight": shown,
    }


def floor_ms(measured: dict[str, Any], wire_bytes: int) -> float | None:
    """The least a link takes to bring ``wire_bytes``: one round trip and the bytes at
    its rate (None for the local link, which has no rate of its own)."""
    link = measured["link"]
    return None if link is None else 1e3 * (link["rtt"] + 8 * wire_bytes / link["rate"])


def first_frames(scene: dict[str, Any]) -> dict[str, float]:
    return {key: float(np.median(values)) for key, values in scene["results"]["ttff"].items()}


def first_requests(scene: dict[str, Any], length: str) -> float:
    """Median requests a first frame of ``length`` waited for (answered before its paint)."""
    logs = scene["results"]["ttff_logs"][length]
    counts = [
        sum(q["replied"] is not None and q["replied"] <= log["firstFrame"] for q in requests(log))
        for log in logs
    ]
    return float(np.median(counts))


def pong(links: dict[str, Any], name: str) -> dict[str, Any]:
    return links[name]["scenes"][0]


def rows(links: dict[str, Any]) -> list[tuple[str, Callable[[dict[str, Any]], str]]]:
    """The table's rows: a label, and what to write for a link's Pong scene."""

    def latency(key: str, kind: str) -> Callable[[dict[str, Any]], str]:
        return lambda s: f"{median(s['results']['latency'][key][kind]):.1f}"

    def jump(s: dict[str, Any]) -> str:
        lat = s["results"]["latency"]
        jumped, echo = median(lat["uncached"]["jump"]), median(lat["echo"]["jump"])
        return f"{jumped:.1f} ({jumped / echo:.2f}x)"

    def play(key: str) -> Callable[[dict[str, Any]], str]:
        def text(s: dict[str, Any]) -> str:
            p = s["results"]["playback"][key]
            return f"{p['fps']:.1f} fps, {p['dropped']} dropped"

        return text

    def first(length: str) -> Callable[[dict[str, Any]], str]:
        def text(s: dict[str, Any]) -> str:
            times = first_frames(s)
            ratio = f" ({times[length] / times['1000']:.2f}x)" if length != "1000" else ""
            return f"{times[length]:,.0f}{ratio}, {first_requests(s, length):.0f} req."

        return text

    def filled(which: str = "fill_log") -> Callable[[dict[str, Any]], str]:
        def text(s: dict[str, Any]) -> str:
            if which not in s["results"]:
                return "not measured"
            f = fill(s, which)
            if f["ms"] is None:
                return "never completed"
            echo = median(s["results"]["latency"]["echo"]["jump"])
            return (
                f"{f['ms']:,.0f} ms ({f['ms'] / echo:.1f} echoes): {f['requests']} requests, "
                f"{f['rounds']} round trips, at most {f['peak']} in flight"
            )

        return text

    def filled_long(s: dict[str, Any]) -> str:
        r = s["results"]
        if "hundred_k_fill_log" not in r:
            return "not measured"
        f = fill(s, "hundred_k_fill_log", steps_of(s, "100000") + 1)
        if f["ms"] is None:
            return "never completed"
        wire = r["hundred_k_fill_bytes"]
        floor = floor_ms(next(m for m in links.values() if m["scenes"][0] is s), wire)
        against = "" if floor is None else f", {f['ms'] / floor:.2f}x the link's {floor:,.0f}"
        return (
            f"{f['ms']:,.0f} ms for {wire / 2**20:.1f} MB{against}: {f['requests']} requests, "
            f"at most {f['peak']} in flight"
        )

    def during_fill(s: dict[str, Any]) -> str:
        measured = s["results"].get("jumps_during_fill")
        if measured is None:
            return "not measured"
        jumped = median(measured["jumps"])
        echo = median(s["results"]["latency"]["echo"]["jump"])
        ended = " (the fill ended before the last)" if measured["filled_after"] else ""
        return f"{jumped:.1f} ({jumped / echo:.2f}x), median of {len(measured['jumps'])}{ended}"

    scene = pong(links, next(iter(links)))
    steps = {key: f"{steps_of(scene, key):,}" for key in ("100", "1000", "100000", "long")}
    return [
        ("(e) comm echo, median (ms)", latency("echo", "jump")),
        ("(a) interact + plt.imshow: step / jump to paint (ms)", lambda s: (
            f"{median(s['results']['latency']['interact']['step']):.1f} / "
            f"{median(s['results']['latency']['interact']['jump']):.1f}")),
        ("ours: arrow key / slider step to paint, after the fill (ms)", latency("ours", "step")),
        ("uncached: step to paint, prefetch window only (ms)", latency("uncached", "step")),
        ("uncached: random jump to paint (ms; x the echo)", jump),
        ("playback at 60 fps after the fill", play("ours")),
        ("playback at 60 fps from an unfetched stretch (uncached)", play("uncached")),
        (f"first frame, {steps['100']} steps (ms; x {steps['1000']}'s; requests it waited "
         "for)", first("100")),
        (f"first frame, {steps['1000']} steps", first("1000")),
        (f"first frame, {steps['100000']} steps", first("100000")),
        (f"first frame, {steps['long']} steps", first("long")),
        (f"background fill of {scene['positions']:,} positions after the first frame", filled()),
        ("the same, no chunks in the widget's state (embed_bytes=0)",
         filled("fill_unembedded_log")),
        (f"background fill of {steps_of(scene, '100000') + 1:,} positions (x the link's floor: "
         "a round trip and the bytes at its rate)", filled_long),
        ("random jump while that fill runs, to a stretch it has not reached (ms; x the echo)",
         during_fill),
    ]  # fmt: skip


def check_table(links: dict[str, Any]) -> str:
    """The proxy against the link it stands for: echo and 1 MB each way, and their floors."""
    lines = [
        "| link | echo (ms) | floor | 1 MiB up (ms) | 1 MiB down (ms) | floor |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for name, measured in links.items():
        if measured["link"] is None:
            continue
        link, c = measured["link"], measured["check"]
        transfer = link["rtt"] + 8 * 2**20 / link["rate"]
        lines.append(
            f"| {name} | {c['echo'] * 1e3:.1f} | {link['rtt'] * 1e3:.0f} "
            f"| {c['upload'] * 1e3:,.0f} | {c['download'] * 1e3:,.0f} | {transfer * 1e3:,.0f} |"
        )
    return "\n".join(lines)


def side_by_side(links: dict[str, Any]) -> str:
    names = list(links)
    scene = pong(links, names[0])
    lines = [
        f"| {scene['name']}, {scene['positions'] - 1:,} steps | " + " | ".join(names) + " |",
        "|---|" + "---:|" * len(names),
    ]
    for label, cell in rows(links):
        lines.append(f"| {label} | " + " | ".join(cell(pong(links, n)) for n in names) + " |")
    return "\n".join(lines)


def fill_notes(links: dict[str, Any]) -> str:
    notes = []
    fills = {"fill_log": "as displayed", "fill_unembedded_log": "with embed_bytes=0"}
    for name in links:
        for which, how in fills.items():
            if which not in pong(links, name)["results"]:
                continue
            f = fill(pong(links, name), which)
            notes.append(
                f"- {name}, {how}: the first frame waited for {f['first_requests']} requests; "
                f"the fill then sent {f['requests']} carrying {f['chunks']} chunks; in flight "
                f"(ms after the first frame: requests): {f['in_flight']}."
            )
    return "\n".join(notes)


def far_targets(links: dict[str, Any]) -> list[str]:
    if FAR not in links:
        return [f"- the {FAR} targets: not measured (no {FAR} link in this run)"]
    s = pong(links, FAR)
    lat = s["results"]["latency"]
    times = first_frames(s)
    ratio = times["long"] / times["1000"]
    f = fill(s, "fill_unembedded_log")  # from no chunk in the state: the longest fill
    echo = median(lat["echo"]["jump"])
    steps = max(median(lat["ours"]["step"]), median(lat["uncached"]["step"]))
    plays = [s["results"]["playback"][key] for key in ("ours", "uncached")]
    smooth = all(p["fps"] >= 0.98 * 60 and p["dropped"] == 0 for p in plays)
    fill_ms = "never" if f["ms"] is None else f"{f['ms']:,.0f} ms = {f['ms'] / echo:.1f} echoes"
    return [
        f"- {FAR}: first frame of {steps_of(s, 'long'):,} steps within 1.3x of 1,000 steps': "
        f"{times['long']:,.0f} / {times['1000']:,.0f} ms = {ratio:.2f}x: {verdict(ratio <= 1.3)}",
        f"- {FAR}: fill of 1,000 Pong positions within two round trips after the first frame "
        f"(no chunks in the widget's state): {f['rounds']} round trips "
        f"({fill_ms} of {echo:.0f} ms): "
        f"{verdict(f['ms'] is not None and f['rounds'] <= 2)}",
        f"- {FAR}: steps under 8 ms: {median(lat['ours']['step']):.1f} ms after the fill, "
        f"{median(lat['uncached']['step']):.1f} ms uncached: {verdict(steps < 8)}",
        f"- {FAR}: 60 fps: {plays[0]['fps']:.1f} fps after the fill, {plays[1]['fps']:.1f} from "
        f"an unfetched stretch, {plays[0]['dropped'] + plays[1]['dropped']} dropped: "
        f"{verdict(smooth)}",
    ]


def local_targets(links: dict[str, Any]) -> list[str]:
    if "local" not in links:
        return ["- local uncached jumps: not measured (no local link in this run)"]
    lines = []
    for scene in links["local"]["scenes"]:
        lat = scene["results"]["latency"]
        jumped, echo = median(lat["uncached"]["jump"]), median(lat["echo"]["jump"])
        floor = median(lat.get("echo_frame", {}).get("jump", []))  # runs before (e'') had none
        lines.append(
            f"- local, {scene['name']}: uncached random jump within 1.25x of the echo: "
            f"{jumped:.1f} / {echo:.1f} ms = {jumped / echo:.2f}x: {verdict(jumped <= 1.25 * echo)}"
            f" (the echo bringing one frame back, inflated and painted, (e''): {floor:.1f} ms "
            f"= {floor / echo:.2f}x; the jump {jumped / floor:.2f}x that)"
        )
    return lines


def markdown(raw: dict[str, Any]) -> str:
    links = raw["links"]
    minutes = ", ".join(f"{name} {m['minutes']:.1f} min" for name, m in links.items())
    return "\n\n".join(
        [
            "### Near and far: Pong over each link",
            f"{METHOD} Time each link took: {minutes}.",
            "The proxy checked against its link before the run (an echo, 1 MiB each way "
            f"through a local server; medians of {CHECKS}):",
            check_table(links),
            side_by_side(links),
            fill_notes(links),
            "### Issue #18's targets",
            "\n".join(far_targets(links) + local_targets(links)),
        ]
    )
