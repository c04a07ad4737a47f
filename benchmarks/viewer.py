"""EpisodeViewer against what notebook users have today, in Chromium on a real JupyterLab.

Two 1,000-step episodes, each in its own notebook and kernel: ALE/Pong-v5 under a
seeded random policy (210x160), and a synthetic 480x480 render (a static sky and
floor with two shaded balls on smooth orbits). Each is recorded once and saved to a
temporary ``.rollout``; the kernels load it. Side by side in the same page:

- agent-widget's ``EpisodeViewer`` of the episode;
- the same viewer on a long episode tiled from the episode's chunks, too big for the
  front end's background fill, so every random jump is a cache miss;
- the baselines of :mod:`benchmarks.baselines`: (a) ``interact`` + ``plt.imshow``,
  (b) ``ipywidgets.Image`` + slider, (c) base64 PNG in JSON, (d) ``to_jshtml``, and
  (e) a bare comm echo, (e') one replying with a chunk's worth of bytes and (e'') one
  replying with a frame that the page inflates and paints: the least a jump to a frame
  not in the page can cost here.

Latency is timed in the page (``probes.js``): from the input event (a key press or
slider step to the next frame; a random jump through the slider) to the new frame
painted (the viewer's ``data-painted-step``; for the baselines, their new ``<img>``
decoded). Variants take turns within each repetition, so load from other jobs on the
machine falls on all of them alike. The server runs agent-widget's server extension
(agent_widget_server: TCP_NODELAY on kernel websockets), as the wheel installs it;
benchmarks.server_extension compares it with a stock server.

Then the same over far links (:mod:`benchmarks.far_link`: Chromium reaches JupyterLab,
page and websockets, through a proxy that delays and rate-limits each direction), one
link after another, for Pong: ours, the uncached viewer, (a) and the echo (e), first
frame by length, and the background fill with the requests the page had in flight.

    .venv/bin/python -m benchmarks.viewer            # ~11 min; prints and updates RESULTS.md
    .venv/bin/python -m benchmarks.viewer --links local,150ms-10mbit   # some links only
    .venv/bin/python -m benchmarks.viewer --quick    # ~3 min smoke run of every link; prints only
    .venv/bin/python -m benchmarks.viewer --raw r.json        # also keeps the raw numbers
    .venv/bin/python -m benchmarks.viewer --from-raw r.json   # re-renders them
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from dataclasses import asdict, dataclass, field, replace
from itertools import pairwise
from pathlib import Path
from typing import Any

import nbformat
import numpy as np
from playwright.sync_api import Browser

from agent_widget.episodes import Rollout, load
from agent_widget.format import CHUNK_SIZE, chunk_count
from agent_widget.viewer._transport import action_text, shows_actions
from benchmarks import link_report, report, scenes
from benchmarks.browser import ProbedPage
from benchmarks.results import arguments, code_version, command, publish, today
from harness.chromium import chromium
from harness.far_link import Link, check, proxy
from harness.lab import Notebook, Server, through

TITLE = "Viewer in the browser"
LOCAL = "local"  # no proxy: the browser on the server's own port
LINKS = (LOCAL, "50ms-20mbit", "150ms-10mbit")
ROOT = Path(__file__).resolve().parent.parent
SEED = 0
TIMEOUT_MS = 120_000
QUIET_MS = 100  # kernel idle this long after a paint: its trailing messages are counted
# js/frames/store.ts's budget for encoded chunks: an episode under 90% of it is filled in whole.
FILL_BUDGET = 64 * 2**20
HUNDRED_K = 100_001  # positions of 100,000 steps
MIN_LONG_CHUNKS = 2_000  # plenty of room for random jumps to land on chunks never fetched
JUMPS_DURING_FILL = 5
STARTED = time.monotonic()

OURS = "ours = EpisodeViewer(rollout)\nours_sent = baselines.SendCounter(ours)\nours"
# Variant -> (cell source, how its first frame shows, how the page drives it).
VARIANTS: dict[str, tuple[str, str, str]] = {
    "ours": (OURS, "ours", "ours"),
    "uncached": ("uncached = EpisodeViewer(long_rollout)\nuncached", "ours", "ours"),
    "interact": ("baselines.interact_imshow(frames)", "image", "slider"),
    "image": ("baselines.image_slider(frames)", "image", "slider"),
    "base64": ("baselines.base64_slider(frames)", "image", "slider"),
    "jshtml": ("baselines.jshtml(frames, {fps})", "image", "jshtml"),
    "echo": ("baselines.Echo(frames)", "none", ""),
}
FAR_VARIANTS = ("ours", "uncached", "interact", "echo")  # measured over the far links
# Time to first frame by length: the cell that builds and shows each viewer.
LENGTHS = {
    "100": "EpisodeViewer(hundred)",
    "1000": "EpisodeViewer(rollout)",
    "100000": "big = EpisodeViewer(hundred_k)\nbig",
    "long": "EpisodeViewer(long_rollout)",
}


@dataclass(frozen=True)
class Plan:
    """How much to measure: the full run, or a quick smoke run."""

    steps: int
    reps: int
    jumps_per_rep: int
    play_seconds: float
    ttff_reps: int
    wait_hundred_k_fill: bool


FULL = Plan(1000, reps=10, jumps_per_rep=3, play_seconds=4, ttff_reps=4, wait_hundred_k_fill=True)
QUICK = Plan(200, reps=1, jumps_per_rep=2, play_seconds=2, ttff_reps=1, wait_hundred_k_fill=False)


@dataclass
class Scene:
    """One episode as saved, and what the run measured on it."""

    name: str
    slug: str
    path: Path
    fps: float
    positions: int
    frame_bytes: float  # encoded frame payload per position, as stored
    chunk_bytes: float  # mean encoded frame payload per full chunk
    digests: list[int]  # a hash of each frame: which positions look alike
    long_positions: int = 0
    results: dict[str, Any] = field(default_factory=dict)


def saved_scene(name: str, slug: str, rollout: Rollout, folder: Path, fps: float) -> Scene:
    path = rollout.save(folder / f"{slug}.rollout")
    frames = load(path).frames
    sizes = [sum(len(p.payload) for p in frames.chunk(k)) for k in range(frames.num_chunks)]
    chunk_bytes = float(np.mean(sizes[: len(frames) // CHUNK_SIZE]))
    # The fill starts only for episodes under 90% of the budget, as the front end
    # counts them (frames and readout data): 10% over it, none ever starts.
    counted = chunk_bytes + CHUNK_SIZE * readout_bytes(rollout)
    long_chunks = max(int(1.1 * FILL_BUDGET / counted) + 1, MIN_LONG_CHUNKS)
    return Scene(
        name=name,
        slug=slug,
        path=path,
        fps=fps,
        positions=len(frames),
        frame_bytes=sum(sizes) / len(frames),
        chunk_bytes=chunk_bytes,
        digests=[hash(frame.tobytes()) for frame in frames],
        long_positions=long_chunks * CHUNK_SIZE + 1,
    )


def readout_bytes(rollout: Rollout) -> float:
    """Mean bytes per position js/frames/transport.ts counts against the cache for the readout
    data (its UTF-16 estimate of the info, and of the action text the kernel sends
    for actions that are not scalars)."""
    names = rollout.metadata.get("action_names") or []
    infos = rollout.infos or []
    texts = not shows_actions(rollout.actions)
    total = 0
    for t, info in enumerate(infos):
        action = action_text(rollout.actions[t], names) if texts and t < rollout.num_steps else ""
        total += 2 * (len(str(t)) + len(action) + len(json.dumps(info, separators=(",", ":"))))
    return total / max(len(infos), 1)


def setup_cell(scene: Scene, hundred_k: bool) -> str:
    lines = [
        "import sys",
        f"sys.path.insert(0, {str(ROOT)!r})",
        "import numpy as np",
        "import matplotlib.pyplot  # imported once here, not inside a variant's first frame",
        "from agent_widget.episodes import load",
        "from agent_widget.viewer import EpisodeViewer",
        "from benchmarks import baselines",
        "from harness.long_episodes import repeated",
        f"rollout = load({str(scene.path)!r})",
        "frames = np.stack(list(rollout.frames))",
        f"long_rollout = repeated(rollout, {scene.long_positions})",
    ]
    if hundred_k:
        lines += [
            "hundred = repeated(rollout, 101)",
            f"hundred_k = repeated(rollout, {HUNDRED_K})",
        ]
    return "\n".join(lines)


class Run:
    """One scene's notebook in its own page: the variants displayed side by side (over a
    far link when ``far``: fewer of them, and nothing that does not depend on the link)."""

    def __init__(
        self, server: Server, browser: Browser, scene: Scene, plan: Plan, far: bool
    ) -> None:
        self.server, self.scene, self.plan, self.far = server, scene, plan, far
        self.variants = {k: v for k, v in VARIANTS.items() if not far or k in FAR_VARIANTS}
        self.rng = np.random.default_rng(SEED)
        self.probed = ProbedPage(browser)
        self.name = f"{scene.slug}.ipynb"
        self.notebook = Notebook(
            server, self.probed.page, self.name, [setup_cell(scene, scene.slug == "pong")]
        )
        self.cells: dict[str, int] = {}
        self.results = scene.results
        self.touched: set[int] = set()  # chunks of the uncached episode fetched so far

    def close(self) -> None:
        self.notebook.close()
        self.probed.close()

    def run_cell(self, source: str, first: str) -> tuple[int, float | None]:
        cell = self.probed.call("addCell", source)
        ms = self.probed.call("runCell", cell, first, TIMEOUT_MS)
        errors = self.notebook.cell_errors()
        assert not errors, "\n".join(errors)
        return cell, ms

    def wire_in(self) -> int:
        return int(self.probed.page.evaluate("() => window.__bench.wire.in"))

    def display_all(self) -> None:
        """Displays each variant in its own cell, timing its first frame; waits for the
        viewer's background fill (timed) before the next one starts."""
        first: dict[str, float | None] = {}
        for key, (source, kind, _drive) in self.variants.items():
            before = self.wire_in()
            self.cells[key], first[key] = self.run_cell(source.format(fps=self.scene.fps), kind)
            log(f"{key}: first frame {first[key]} ms")
            if key == "ours":
                chunks = chunk_count(self.scene.positions)
                cell = self.cells[key]
                fill = self.probed.call("stepsDuringFill", cell, chunks, 20, TIMEOUT_MS)
                self.results["fill_ms"] = fill["fillMs"]
                self.results["fill_log"] = self.probed.call("lastRunLog")
                self.results["steps_during_fill"] = fill["steps"]
                self.results["fill_wire"] = self.wire_in() - before
                self.results["fill_kernel"] = self.notebook.python("ours_sent.totals()")
        self.results["first_frame"] = first

    def measure(self, key: str, action: str, t: int) -> dict[str, float]:
        """One input's latency."""
        drive = VARIANTS[key][2]
        try:
            return self.probed.call(
                "measure", self.cells[key], drive, action, t, TIMEOUT_MS, QUIET_MS
            )
        except Exception as error:
            raise RuntimeError(f"{self.scene.slug}: {key} {action} to {t}: {error}") from None

    def jump_target(self, key: str, current: int) -> int:
        """A random position away from ``current`` (for the tiled episode, a chunk far
        outside the prefetch window), leaving room for the two steps after it.

        The jump and both steps must each change the picture: the baselines set a trait
        to the new frame's PNG, and traitlets sends nothing when the value is unchanged
        (Pong repeats frames, e.g. while the ball is out of play).
        """
        if key == "uncached":
            while True:
                t = int(self.rng.integers(0, self.scene.long_positions - 8))
                if not self.touched & self.window(t, 0):
                    self.touched |= self.window(t, 0)
                    return t
        digests = self.scene.digests
        while True:
            t = int(self.rng.integers(0, self.scene.positions - 8))
            shown = [digests[current], *digests[t : t + 3]]
            if abs(t - current) > CHUNK_SIZE and all(a != b for a, b in pairwise(shown)):
                return t

    def window(self, t: int, positions: int) -> set[int]:
        """Chunks the uncached view may fetch going ``positions`` on from ``t``: the
        chunk of ``t`` and its prefetch window, with a margin."""
        return set(range(t // CHUNK_SIZE - 2, (t + positions) // CHUNK_SIZE + 8))

    def latency(self) -> None:
        """Interleaved repetitions: each variant in turn takes random jumps, each followed
        by two steps (ours: an arrow key, then a slider step)."""
        samples: dict[str, dict[str, list]] = {
            key: {"step": [], "jump": []} for key in self.variants
        }
        if not self.far:
            samples["echo_chunk"] = {"jump": []}
            samples["echo_frame"] = {"jump": []}
        current = dict.fromkeys(self.variants, 0)
        order = list(self.variants)
        for rep in range(self.plan.reps):
            for key in order[rep % len(order) :] + order[: rep % len(order)]:
                for _ in range(self.plan.jumps_per_rep):
                    if key == "echo":
                        self.echoes(samples)
                        continue
                    t = self.jump_target(key, current[key])
                    samples[key]["jump"].append(self.measure(key, "jump", t))
                    samples[key]["step"].append(self.measure(key, "step", t + 1))
                    second = "drag" if VARIANTS[key][2] == "ours" else "step"
                    samples[key]["step"].append(self.measure(key, second, t + 2))
                    current[key] = t + 2
                self.probed.heap()
            log(f"repetition {rep + 1}/{self.plan.reps} done")
        self.results["latency"] = samples
        cached = self.probed.call("attribute", self.cells["uncached"], "data-cached-chunks")
        self.results["uncached_cached_chunks"] = int(cached or 0)

    def echoes(self, samples: dict[str, dict[str, list]]) -> None:
        """One bare round trip and (near the kernel) one bringing back a chunk's bytes and
        one bringing back a frame to paint, in a random order: what went before a round
        trip can slow it, and a fixed order gave the same variant the unlucky turn each time."""
        cell, size = self.cells["echo"], int(self.scene.chunk_bytes)
        kinds = {"echo": 0} if self.far else {"echo": 0, "echo_chunk": size, "echo_frame": "frame"}
        for key in self.rng.permutation(list(kinds)):
            samples[key]["jump"].append(self.probed.call("echo", cell, kinds[key], QUIET_MS))

    def playback(self) -> None:
        """Plays ours from the start (after the fill), ours on the tiled episode from a
        position reached by a jump (prefetch only), and to_jshtml, all at the scene's fps."""
        seconds = self.plan.play_seconds
        played = {}
        for key in ("ours", "uncached"):
            cell = self.cells[key]
            self.probed.call("setFps", cell, self.scene.fps)
            t = 0 if key == "ours" else self.jump_target(key, -(10**9))
            if key == "uncached":
                self.touched |= self.window(t, int(seconds * self.scene.fps))
            self.measure(key, "jump", t)
            played[key] = self.probed.call("play", cell, "ours", seconds)
            self.probed.heap()
        if "jshtml" in self.variants:
            self.measure("jshtml", "jump", 0)
            played["jshtml"] = self.probed.call("play", self.cells["jshtml"], "jshtml", seconds)
        self.results["playback"] = played

    def save(self) -> nbformat.NotebookNode:
        self.probed.page.evaluate(
            "async () => await window.jupyterapp.commands.execute('docmanager:save')"
        )
        return nbformat.read(self.server.notebooks / self.name, as_version=4)

    def notebook_sizes(self) -> None:
        """Bytes of the saved notebook holding the setup cell and one variant's cell."""
        saved = self.save()
        self.results["notebook_bytes"] = {
            key: _notebook_bytes(saved, [0, cell]) for key, cell in self.cells.items()
        }
        self.results["widget_state_bytes"] = {
            "ours": self.notebook.python("baselines.saved_state_bytes(ours)"),
            "uncached": self.notebook.python("baselines.saved_state_bytes(uncached)"),
        }

    def memory(self) -> None:
        """Memory each variant holds in the page: the page's heap before and after its
        output is cleared (the view disposed), both after a full garbage collection."""
        held = {}
        for key, cell in self.cells.items():
            before = self.probed.heap(collect=True)
            self.probed.call("clearOutput", cell)
            time.sleep(0.5)
            held[key] = before - self.probed.heap(collect=True)
        self.results["memory_held"] = held
        self.results["peak_heap"] = self.probed.peak_heap

    def first_frame_by_length(self) -> None:
        """Time to first frame of a viewer built and displayed in one cell, from 101 to the
        tiled episode's positions, the order turned around each repetition, with the
        requests each sent; then the fills of the 1,001-position viewer with no chunks in
        its state and of the 100,000-step one (its time, requests and bytes; near only:
        the memory it then holds and the notebook's size)."""
        cells = {key: self.probed.call("addCell", source) for key, source in LENGTHS.items()}
        times: dict[str, list[float]] = {key: [] for key in cells}
        logs: dict[str, list[dict]] = {key: [] for key in cells}
        for rep in range(self.plan.ttff_reps):
            for key in list(cells)[:: 1 if rep % 2 == 0 else -1]:
                times[key].append(self.probed.call("runCell", cells[key], "ours", TIMEOUT_MS))
                logs[key].append(self.probed.call("lastRunLog"))
                self.probed.call("clearOutput", cells[key])
        self.results["ttff"] = times
        self.results["ttff_logs"] = logs
        self.fill_without_embedding()
        cell = cells["100000"]
        base = self.probed.heap(collect=True)
        before = self.wire_in()
        self.probed.call("runCell", cell, "ours", TIMEOUT_MS)
        if self.plan.wait_hundred_k_fill:
            chunks = chunk_count(HUNDRED_K)
            self.results["hundred_k_fill_ms"] = self.probed.call(
                "waitAttribute", cell, "data-cached-chunks", chunks, TIMEOUT_MS
            )
            self.results["hundred_k_fill_log"] = self.probed.call("lastRunLog")
            self.results["hundred_k_fill_bytes"] = self.wire_in() - before
        if not self.far:
            self.results["hundred_k_held"] = self.probed.heap(collect=True) - base
            self.results["hundred_k_notebook_bytes"] = _notebook_bytes(self.save(), [0, cell])
            self.results["hundred_k_state_bytes"] = self.notebook.python(
                "baselines.saved_state_bytes(big)"
            )
        self.probed.call("clearOutput", cell)
        self.jumps_during_fill(cell)

    def jumps_during_fill(self, cell: int) -> None:
        """Random jumps while the 100,000-step viewer's background fill runs, each to a
        stretch the fill has not reached (it goes nearest first from the playhead): what a
        jump waits behind the fill's requests in flight. Timed without waiting for the
        kernel to go quiet, which it does not until the fill ends."""
        self.probed.call("runCell", cell, "ours", TIMEOUT_MS)
        chunks = chunk_count(HUNDRED_K)
        samples = []
        for i in range(JUMPS_DURING_FILL):
            # Fifths of the episode's second half, far from the start and from each other.
            low = HUNDRED_K // 2 + i * HUNDRED_K // (2 * JUMPS_DURING_FILL)
            t = int(self.rng.integers(low, low + HUNDRED_K // (4 * JUMPS_DURING_FILL)))
            samples.append(self.probed.call("measure", cell, "ours", "jump", t, TIMEOUT_MS, 0))
        cached = self.probed.call("attribute", cell, "data-cached-chunks")
        self.results["jumps_during_fill"] = {
            "jumps": samples,
            "filled_after": int(cached or 0) >= chunks,  # the fill ended before the last jump
        }
        self.probed.call("clearOutput", cell)

    def fill_without_embedding(self) -> None:
        """The 1,001-position viewer with no chunks in the widget's state
        (``embed_bytes=0``): its first frame waits for a request, and its background
        fill brings the other 62 chunks."""
        cell = self.probed.call("addCell", "EpisodeViewer(rollout, embed_bytes=0)")
        self.probed.call("runCell", cell, "ours", TIMEOUT_MS)
        chunks = chunk_count(self.scene.positions)
        self.probed.call("waitAttribute", cell, "data-cached-chunks", chunks, TIMEOUT_MS)
        self.results["fill_unembedded_log"] = self.probed.call("lastRunLog")
        self.probed.call("clearOutput", cell)


def log(text: str) -> None:
    print(f"[{time.monotonic() - STARTED:6.1f} s] {text}", flush=True)


def _notebook_bytes(notebook: nbformat.NotebookNode, cells: list[int]) -> int:
    kept = nbformat.from_dict(json.loads(json.dumps(notebook)))
    kept.cells = [kept.cells[i] for i in cells]
    return len(nbformat.writes(kept).encode())


def measure_scene(server: Server, browser: Browser, scene: Scene, plan: Plan, far: bool) -> None:
    log(f"{scene.name}: {scene.positions} positions, tiled episode {scene.long_positions}")
    run = Run(server, browser, scene, plan, far)
    try:
        phases = [run.display_all, run.latency, run.playback]
        if not far:
            phases += [run.notebook_sizes, run.memory]
        if scene.slug == "pong":
            phases.append(run.first_frame_by_length)
        for phase in phases:
            log(f"{scene.slug}: {phase.__name__}")
            phase()
    finally:
        run.close()


def measure_link(
    server: Server, browser: Browser, name: str, episodes: list[Scene], plan: Plan
) -> dict[str, Any]:
    """Both scenes on the server's own port, or Pong through a far link's proxy (checked
    first: an echo and a 1 MB transfer each way through it)."""
    fresh = [replace(scene, results={}) for scene in episodes]
    kept = ("name", "slug", "fps", "positions", "frame_bytes", "chunk_bytes", "long_positions")
    measured: dict[str, Any] = {"link": None, "check": None}
    if name == LOCAL:
        for scene in fresh:
            measure_scene(server, browser, scene, plan, far=False)
    else:
        link = Link.parse(name)
        measured["link"] = asdict(link)
        measured["check"] = check(link)
        log(f"{name}: proxy check {measured['check']}")
        fresh = fresh[:1]
        with proxy(link, server.port) as port:
            measure_scene(through(server, port), browser, fresh[0], plan, far=True)
    measured["scenes"] = [{**{k: getattr(s, k) for k in kept}, "results": s.results} for s in fresh]
    return measured


def measure(plan: Plan, command: str, links: list[str]) -> dict[str, Any]:
    """Records and saves the episodes, measures them over each link in turn, and returns
    the raw measurements."""
    with tempfile.TemporaryDirectory(prefix="aw-bench-viewer-") as tmp:
        folder = Path(tmp)
        pong = saved_scene("ALE/Pong-v5", "pong", scenes.pong(plan.steps), folder, fps=60)
        big = saved_scene(
            "Synthetic 480x480", "big", scenes.render_episode(plan.steps), folder, fps=30
        )
        run: dict[str, Any] = {"command": command, "code": code_version()}
        run["load_start"] = os.getloadavg()[0]
        measured: dict[str, Any] = {}
        server = Server(folder / "jupyter")
        try:
            with chromium() as browser:
                run["chromium"] = browser.version
                for name in links:
                    log(f"link {name}")
                    began = time.monotonic()
                    measured[name] = measure_link(server, browser, name, [pong, big], plan)
                    measured[name]["minutes"] = (time.monotonic() - began) / 60
        finally:
            server.stop()
    run.update(date=today(), minutes=(time.monotonic() - STARTED) / 60)
    run["load_end"] = os.getloadavg()[0]
    raw = {"run": run, "plan": asdict(plan), "links": measured}
    if LOCAL in measured:
        raw["scenes"] = measured[LOCAL]["scenes"]
    return raw


def main() -> None:
    parser = arguments(__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a short smoke run (prints only)")
    parser.add_argument(
        "--links",
        default=",".join(LINKS),
        help=f"links to measure over (default {','.join(LINKS)})",
    )
    parser.add_argument("--raw", type=Path, help="also write the raw measurements (JSON) here")
    parser.add_argument("--from-raw", type=Path, help="only report the measurements saved here")
    args = parser.parse_args()
    if args.from_raw:
        raw = json.loads(args.from_raw.read_text())
    else:
        links = args.links.split(",")
        for name in links:
            if name != LOCAL:
                Link.parse(name)  # a misspelt link fails now, not after the local run
        raw = measure(QUICK if args.quick else FULL, command("benchmarks.viewer"), links)
    if args.raw:
        args.raw.write_text(json.dumps(raw, indent=1))
    sections = [report.markdown(raw)] if "scenes" in raw else [report.heading(raw)]
    sections.append(link_report.markdown(raw))
    quick = "--quick" in raw["run"]["command"].split()
    publish(TITLE, "\n\n".join(sections), write=not (args.no_write or quick))


if __name__ == "__main__":
    main()
