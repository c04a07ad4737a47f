"""TensorBoard's Agent tab against the seed's approach and ``add_video``'s GIF.

One 1,000-step ALE/Pong-v5 episode (seeded random policy, 210x160) three ways, each
in a fresh browser context (an empty cache) of headless Chromium:

- **the Agent tab**: the episode's ``.rollout`` under a real ``tensorboard`` process's
  logdir; its row's button clicked in the tab, to frame 0 painted on the viewer's
  canvas; then the viewer's background fill, to every chunk in the page;
- **base64 PNGs in JSON** (the seed's approach): every frame a PNG, base64, in one JSON
  file, served with a page that fetches it and paints frame 0 by a plain
  ``python -m http.server`` process (TensorBoard serves its plugins' files the same
  way: whole, uncompressed);
- **``add_video``'s GIF**: ``SummaryWriter.add_video`` (moviepy < 2; moviepy 2 makes it
  write nothing) into the same logdir, fetched from TensorBoard's images plugin as its
  dashboard does, to the ``<img>`` decoded (a GIF shows once it is loaded whole).

Time runs from the click (or the fetch) to the first frame painted. Bytes are every
response's bytes on the wire in that window (Chromium's count: headers and bodies),
and for the whole episode. CPU is the serving process's (user + system) over the same
windows. Then time to first frame in the tab by length: 100 and 100,000 steps tiled from
the Pong episode's chunks (harness.long_episodes), against the notebook's
``EpisodeViewer`` on the same two episodes in a real JupyterLab (benchmarks.viewer's
cells), lengths and sides taking turns.

    .venv/bin/python -m benchmarks.tensorboard           # ~6 min; prints and updates RESULTS.md
    .venv/bin/python -m benchmarks.tensorboard --quick   # smoke run; prints only
"""

from __future__ import annotations

import base64
import io
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from collections.abc import Callable
from contextlib import ExitStack
from functools import partial
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np
import psutil
from PIL import Image
from playwright.sync_api import Browser, BrowserContext, Page

from agent_widget.episodes import Rollout, load
from agent_widget.format import chunk_count
from benchmarks import scenes
from benchmarks.results import arguments, code_version, command, machine, publish, today
from benchmarks.viewer import LENGTHS, QUICK, Run, saved_scene
from harness.chromium import chromium
from harness.lab import Server
from harness.long_episodes import repeated
from harness.process import ServerProcess, free_port
from harness.tensorboard import TensorBoard

TITLE = "In TensorBoard: the Agent tab"
TIMEOUT_MS = 120_000
EPISODES = {"pong": 1001, "short": 101, "long": 100_001}  # run folder -> positions
# Chromium's network emulation (latency ms, bits/s each way), or None: loopback as it is.
LINKS: dict[str, tuple[float, float] | None] = {"loopback": None, "40 ms, 20 Mbit/s": (40, 20e6)}
STARTED = time.monotonic()
MAX_RATIO = 1.5  # issue #55: first frame of 100,000 steps within 1.5x of 100 steps

# In the tab's iframe: click an episode's button, resolve at its frame 0 painted.
OPEN_JS = """async ([path, timeout]) => {
  const t0 = performance.now();
  document.querySelector(`tr[data-path="${path}"] button.aw-tb-open`).click();
  while (document.querySelector('.agent-widget')?.dataset.paintedStep !== '0') {
    if (performance.now() - t0 > timeout) throw new Error(`${path}: no frame painted`);
    await new Promise((r) => requestAnimationFrame(r));
  }
  return performance.now() - t0;
}"""
FILLED_JS = """async ([chunks, timeout]) => {
  const t0 = performance.now();
  while (Number(document.querySelector('.agent-widget').dataset.cachedChunks) < chunks) {
    if (performance.now() - t0 > timeout) throw new Error('the fill did not finish');
    await new Promise((r) => setTimeout(r, 20));
  }
}"""
# The seed's page: fetch the JSON, paint frame 0's PNG on a canvas.
BASE64_HTML = """<!doctype html><canvas id="c"></canvas><script>
window.first = async () => {
  const t0 = performance.now();
  const frames = (await (await fetch('pong.json')).json()).frames;
  const img = new Image();
  img.src = 'data:image/png;base64,' + frames[0];
  await img.decode();
  const c = document.getElementById('c');
  c.width = img.width; c.height = img.height;
  c.getContext('2d').drawImage(img, 0, 0);
  return performance.now() - t0;
};
</script>"""
GIF_JS = """async (url) => {
  const t0 = performance.now();
  const img = new Image();
  document.body.append(img);
  img.src = url;
  await img.decode();
  return performance.now() - t0;
}"""


class Wire:
    """Bytes on the wire into a page (every frame of it), as Chromium counts them."""

    def __init__(
        self, context: BrowserContext, page: Page, link: tuple[float, float] | None
    ) -> None:
        self.bytes = 0
        cdp = context.new_cdp_session(page)
        cdp.on("Network.loadingFinished", self._finished)
        cdp.send("Network.enable")
        if link is not None:
            latency, bits = link
            rate = {"downloadThroughput": bits / 8, "uploadThroughput": bits / 8}
            cdp.send(
                "Network.emulateNetworkConditions", {"offline": False, "latency": latency, **rate}
            )

    def _finished(self, event: dict[str, Any]) -> None:
        self.bytes += int(event["encodedDataLength"])


class Cpu:
    """A serving process's CPU time (user + system, ms), children included."""

    def __init__(self, pid: int) -> None:
        self.process = psutil.Process(pid)

    def ms(self) -> float:
        times = self.process.cpu_times()
        return 1000 * (times.user + times.system + times.children_user + times.children_system)


class StaticServer(ServerProcess):
    """``python -m http.server`` serving ``folder`` on loopback."""

    def __init__(self, folder: Path) -> None:
        self.port, self.log = free_port(), folder.parent / "http-server.log"
        self.url = f"http://127.0.0.1:{self.port}/"
        with open(self.log, "wb") as log:
            argv = [sys.executable, "-m", "http.server", str(self.port), "-b", "127.0.0.1"]
            self.process = subprocess.Popen(argv, cwd=folder, stdout=log, stderr=log)
        for _ in range(300):
            try:
                urllib.request.urlopen(self.url, timeout=2).close()
                return
            except OSError:
                time.sleep(0.1)  # deliberate: the pause between two looks
        raise RuntimeError(self.log_tail())


def write_logdir(logdir: Path, rollout: Rollout) -> list[np.ndarray]:
    """The three episodes the tab shows, and add_video's GIF of the Pong one; its frames."""
    from torch.utils.tensorboard import SummaryWriter

    for run, positions in EPISODES.items():
        episode = rollout if positions == rollout.num_steps + 1 else repeated(rollout, positions)
        (logdir / run).mkdir(parents=True)
        episode.save(logdir / run / "episode.rollout")
    frames = list(load(logdir / "pong" / "episode.rollout").frames)
    writer = SummaryWriter(str(logdir / "gif"))
    video = np.stack(frames).transpose(0, 3, 1, 2)[None]  # (N, T, C, H, W)
    writer.add_video("pong", video, global_step=0, fps=60)
    writer.close()
    return frames


def write_base64(folder: Path, frames: list[np.ndarray]) -> int:
    """The seed's JSON of base64 PNGs and its page; the JSON's size."""
    encoded = []
    for frame in frames:
        buffer = io.BytesIO()
        Image.fromarray(frame).save(buffer, format="PNG")
        encoded.append(base64.b64encode(buffer.getvalue()).decode("ascii"))
    (folder / "index.html").write_text(BASE64_HTML)
    body = json.dumps({"frames": encoded}).encode()
    (folder / "pong.json").write_bytes(body)
    return len(body)


def gif_url(tensorboard: TensorBoard) -> str:
    """The GIF's URL, asked of TensorBoard's images plugin as its dashboard asks."""
    query = urllib.parse.urlencode({"run": "gif", "tag": "pong", "sample": 0})
    with urllib.request.urlopen(f"{tensorboard.url}data/plugin/images/images?{query}") as reply:
        entries = json.load(reply)
    if not entries:
        raise RuntimeError("add_video wrote no image: is moviepy 2 installed?")
    return f"{tensorboard.url}data/plugin/images/individualImage?{entries[-1]['query']}"


class Side:
    """One measured page in a fresh context: its wire, the server's CPU and a clock."""

    def __init__(self, browser: Browser, url: str, cpu: Cpu, link: str = "loopback") -> None:
        self.context = browser.new_context(viewport={"width": 1400, "height": 1100})
        self.page = self.context.new_page()
        self.wire, self.cpu = Wire(self.context, self.page, LINKS[link]), cpu
        self.page.goto(url)

    def window(self, run: Callable[[], float]) -> dict[str, float]:
        """``run``'s time (ms, as the page measured it), bytes in and server CPU."""
        bytes_before, cpu_before = self.wire.bytes, self.cpu.ms()
        ms = run()
        self.page.evaluate("0")  # a round trip: the network events before it are counted
        return {
            "ms": ms,
            "bytes": self.wire.bytes - bytes_before,
            "cpu": self.cpu.ms() - cpu_before,
        }

    def close(self) -> None:
        self.context.close()


def tab_frame(side: Side, rows: int) -> Any:
    frame = side.page.locator("iframe").element_handle(timeout=TIMEOUT_MS).content_frame()
    frame.wait_for_function(
        "(rows) => document.querySelectorAll('table.aw-tb-table tbody tr').length === rows",
        arg=rows,
        timeout=TIMEOUT_MS,
    )
    return frame


def measure_tab(
    browser: Browser, tensorboard: TensorBoard, cpu: Cpu, run: str, link: str = "loopback"
) -> dict:
    """The tab opened afresh, ``run``'s episode clicked; for Pong, its fill too."""
    side = Side(browser, f"{tensorboard.url}#agent", cpu, link)
    try:
        frame = tab_frame(side, len(EPISODES))
        path = f"{run}/episode.rollout"
        first = side.window(lambda: frame.evaluate(OPEN_JS, [path, TIMEOUT_MS]))
        if run != "pong":
            return first
        chunks = chunk_count(EPISODES["pong"])
        rest = side.window(lambda: frame.evaluate(FILLED_JS, [chunks, TIMEOUT_MS]) or 0.0)
        return {
            **first,
            "all_bytes": first["bytes"] + rest["bytes"],
            "all_cpu": first["cpu"] + rest["cpu"],
        }
    finally:
        side.close()


def measure_base64(browser: Browser, server: StaticServer, cpu: Cpu, link: str) -> dict:
    side = Side(browser, server.url, cpu, link)
    try:
        return side.window(lambda: side.page.evaluate("() => window.first()"))
    finally:
        side.close()


def measure_gif(browser: Browser, tensorboard: TensorBoard, cpu: Cpu, url: str, link: str) -> dict:
    side = Side(browser, f"{tensorboard.url}data/plugins_listing", cpu, link)  # its origin
    try:
        return side.window(lambda: side.page.evaluate(GIF_JS, url))
    finally:
        side.close()


def notebook_lengths(run: Run, reps: int) -> dict[str, list[float]]:
    """benchmarks.viewer's cells for 100 and 100,000 steps, run in turn, ``reps`` times."""
    cells = {key: run.probed.call("addCell", LENGTHS[key]) for key in ("100", "100000")}
    times: dict[str, list[float]] = {key: [] for key in cells}
    for rep in range(reps):
        for key in list(cells)[:: 1 if rep % 2 == 0 else -1]:
            times[key].append(run.probed.call("runCell", cells[key], "ours", TIMEOUT_MS))
            run.probed.call("clearOutput", cells[key])
    return times


def measure(quick: bool) -> dict[str, Any]:
    import moviepy

    if int(moviepy.__version__.split(".")[0]) >= 2:
        raise SystemExit(f"moviepy {moviepy.__version__}: add_video needs moviepy<2")
    reps = 2 if quick else 7
    load_start = os.getloadavg()[0]
    results: dict[str, Any] = {"moviepy": moviepy.__version__}
    with tempfile.TemporaryDirectory(prefix="aw-bench-tensorboard-") as tmp, ExitStack() as stack:
        folder = Path(tmp)
        rollout = scenes.pong(1000)
        frames = write_logdir(folder / "runs", rollout)
        (folder / "static").mkdir()
        results["json_bytes"] = write_base64(folder / "static", frames)
        results["rollout_bytes"] = (folder / "runs/pong/episode.rollout").stat().st_size
        results["gif_bytes"] = sum(p.stat().st_size for p in (folder / "runs/gif").iterdir())
        tensorboard = TensorBoard(folder / "runs", folder)
        stack.callback(tensorboard.stop)
        static = StaticServer(folder / "static")
        stack.callback(static.stop)
        browser = stack.enter_context(chromium())
        tb_cpu, static_cpu, gif = (
            Cpu(tensorboard.process.pid),
            Cpu(static.process.pid),
            gif_url(tensorboard),
        )
        sides: dict[str, Callable[[], dict]] = {}
        for link in LINKS:
            sides |= {
                f"tab {link}": partial(measure_tab, browser, tensorboard, tb_cpu, "pong", link),
                f"base64 {link}": partial(measure_base64, browser, static, static_cpu, link),
                f"gif {link}": partial(measure_gif, browser, tensorboard, tb_cpu, gif, link),
            }
        sides |= {
            "tab 100": partial(measure_tab, browser, tensorboard, tb_cpu, "short"),
            "tab 100000": partial(measure_tab, browser, tensorboard, tb_cpu, "long"),
        }
        # Each file's first open after TensorBoard started reads it: timed apart, once.
        results["cold"] = {key: sides[key]() for key in ("tab loopback", "tab 100", "tab 100000")}
        samples: dict[str, list[dict]] = {key: [] for key in sides}
        for rep in range(reps):
            order = list(sides)[rep % len(sides) :] + list(sides)[: rep % len(sides)]
            for key in order:
                samples[key].append(sides[key]())
            print(f"repetition {rep + 1}/{reps}", flush=True)
        results["samples"] = samples
        scene = saved_scene("ALE/Pong-v5", "pong", rollout, folder, fps=60)
        lab = Server(folder / "lab")
        stack.callback(lab.stop)
        run = Run(lab, browser, scene, QUICK, far=False)
        stack.callback(run.close)
        results["notebook"] = notebook_lengths(run, reps)
    results.update(
        command=command("benchmarks.tensorboard"),
        code=code_version(),
        date=today(),
        machine=machine(load_start),
        minutes=(time.monotonic() - STARTED) / 60,
    )
    return results


def median(samples: list[dict], key: str) -> float:
    return statistics.median(sample[key] for sample in samples)


def markdown(raw: dict[str, Any]) -> str:
    samples = raw["samples"]
    n = len(samples["tab 100"])
    head = (
        f"`{raw['command']}` ({raw['date']}, code {raw['code']}; {raw['machine']}; headless "
        f"Debian Chromium, TensorBoard {metadata.version('tensorboard')}, "
        f"moviepy {raw['moviepy']}; "
        f"{n} repetitions per side, sides in rotated order, each in a fresh browser context; "
        f"medians; the run took {raw['minutes']:.1f} min).\n\n"
        + "\n\n".join(__doc__.split("\n\n")[1:3])
        + " The far link is Chromium's network emulation. CPU is counted in the kernel's "
        "10 ms ticks."
    )
    sections = [head]
    for link in LINKS:
        sections += link_table(raw, link)
    sections.append(
        f"Files: the `.rollout` {raw['rollout_bytes'] / KIB:.0f} KiB (observations included), "
        f"the JSON {raw['json_bytes'] / KIB:.0f} KiB, the event file holding the GIF "
        f"{raw['gif_bytes'] / KIB:.0f} KiB."
    )
    short, long, nb = samples["tab 100"], samples["tab 100000"], raw["notebook"]
    tab_ratio = median(long, "ms") / median(short, "ms")
    nb_ratio = statistics.median(nb["100000"]) / statistics.median(nb["100"])
    lengths = [
        "| first frame by length (loopback) | 100 steps | 100,000 steps | 100,000 / 100 |",
        "|---|---:|---:|---:|",
        f"| the Agent tab | {median(short, 'ms'):.0f} ms | {median(long, 'ms'):.0f} ms | "
        f"{tab_ratio:.2f}x |",
        f"| the notebook's `EpisodeViewer` | {statistics.median(nb['100']):.0f} ms | "
        f"{statistics.median(nb['100000']):.0f} ms | {nb_ratio:.2f}x |",
        f"| bytes to first frame, the tab | {median(short, 'bytes') / KIB:.1f} KiB | "
        f"{median(long, 'bytes') / KIB:.1f} KiB | "
        f"{median(long, 'bytes') / median(short, 'bytes'):.2f}x |",
        f"| TensorBoard's CPU, the tab | {median(short, 'cpu'):.0f} ms | "
        f"{median(long, 'cpu'):.0f} ms | |",
    ]
    sections.append("\n".join(lengths))
    met = tab_ratio <= MAX_RATIO and tab_ratio <= nb_ratio
    sections.append(
        f"Issue #55 asks for the tab's 100,000 / 100 ratio within {MAX_RATIO}x and no worse "
        f"than the notebook's: {'met' if met else 'not met'} in this run."
    )
    cold = raw["cold"]
    sections.append(
        "Not in the medians: each file's first open after TensorBoard started, which reads "
        f"it: {cold['tab 100']['ms']:.0f} ms to the first frame for 100 steps, "
        f"{cold['tab 100000']['ms']:.0f} ms for 100,000, {cold['tab loopback']['ms']:.0f} ms "
        "for the 1,000-step Pong episode (the notebook's kernel holds its episodes in memory)."
    )
    return "\n\n".join(sections)


KIB = 1024


def link_table(raw: dict[str, Any], link: str) -> list[str]:
    """The three sides over ``link``: a table, and the ratios to the tab."""
    tab, b64, gif = (raw["samples"][f"{side} {link}"] for side in ("tab", "base64", "gif"))
    rows = [
        f"| one 1,000-step Pong episode, {link} | first frame | bytes to first frame | "
        "server CPU to first frame | bytes, whole episode | server CPU, whole episode |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for name, side, whole in [
        ("the Agent tab", tab, "all_"),
        ("base64 PNGs in JSON", b64, ""),
        ("`add_video`'s GIF", gif, ""),
    ]:
        rows.append(
            f"| {name} | {median(side, 'ms'):.0f} ms | {median(side, 'bytes') / KIB:.0f} KiB | "
            f"{median(side, 'cpu'):.0f} ms | {median(side, whole + 'bytes') / KIB:.0f} KiB | "
            f"{median(side, whole + 'cpu'):.0f} ms |"
        )
    ratios = ", ".join(
        f"{name} takes {median(side, 'ms') / median(tab, 'ms'):.1f}x the tab's time to first "
        f"frame and {median(side, 'bytes') / median(tab, 'bytes'):.0f}x its bytes "
        f"({median(side, 'bytes') / median(tab, 'all_bytes'):.1f}x the whole episode's)"
        for name, side in [("base64 in JSON", b64), ("the GIF", gif)]
    )
    return ["\n".join(rows), f"Over {link}: {ratios}."]


def main() -> None:
    parser = arguments(__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a short smoke run (prints only)")
    parser.add_argument("--raw", help="also keep the raw numbers in this JSON file")
    args = parser.parse_args()
    raw = measure(args.quick)
    if args.raw:
        Path(args.raw).write_text(json.dumps(raw))
    publish(TITLE, markdown(raw), write=not (args.no_write or args.quick))


if __name__ == "__main__":
    main()
