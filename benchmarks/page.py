"""Sharing an episode as one file: EpisodeViewer.to_html() against to_jshtml and an MP4.

Two 1,000-step episodes (1,001 frames each): ALE/Pong-v5 under a seeded random policy
(210x160, ``scenes.pong``) and the synthetic 480x480 render (``scenes.render_episode``:
``render_frames(1001)`` with actions, rewards and infos). Each is saved to a
``.rollout`` and loaded back, as users do, and then shared four ways:

- our page: ``EpisodeViewer(load(path)).to_html(file)``, no panels (frames embedded as
  base64 of the stored chunk payloads, the front end inlined, nothing fetched);
- ``FuncAnimation(...).to_jshtml()`` of the same frames (``baselines.jshtml``, 30 fps,
  every frame a base64 PNG), its HTML written to a file as is;
- an MP4 of the same frames (imageio + imageio-ffmpeg, libx264 at imageio's default
  quality 5 = CRF 25, yuv420p, 30 fps): the video a user would share;
- the ``.rollout`` itself (``Rollout.from_arrays(...).save()``, frames encoded each time).

Write time: the median of 3 runs, or of as many as fit in 30 s (at least one). In
Chromium (Debian's, headless, offline: the page must not need the network), each
HTML file is opened from ``file://`` in a fresh context 5 times, alternating the two
pages; first frame = ``performance.now()`` (counted from navigation start) when a
MutationObserver sees our root's ``data-painted-step`` set, or to_jshtml's ``<img>``
given its first frame and decoded. On one more fresh page each: 40 steps (ours: an
ArrowRight keydown on the root; to_jshtml: its "Next frame" button) and 30 jumps to
random positions (the slider's value set and an ``input`` event), each timed in the
page from the input event to the new frame painted (ours: ``data-painted-step``;
to_jshtml: its ``<img>`` re-pointed and decoded); our steps start once every chunk is
in (``data-cached-chunks``). Then playback from step 0 for 4 s: ours at 60 fps (set in
its fps box), to_jshtml at its own 33 ms interval (its Play button); frame rates
count paints after the first second. The MP4 is measured by size and write time only.

    .venv/bin/python -m benchmarks.page            # ~4 min; prints and updates RESULTS.md
"""

from __future__ import annotations

import json
import os
import platform
import re
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from playwright.sync_api import Browser, BrowserContext, Page

from agent_widget import EpisodeViewer
from agent_widget.episodes import Rollout, load
from benchmarks import baselines, scenes
from benchmarks.results import arguments, code_version, command, publish, today
from harness.chromium import chromium

TITLE = "Sharing an episode: one HTML file"
ROOT = Path(__file__).resolve().parent.parent
STATIC = ROOT / "agent_widget" / "static"
STEPS = 1_000
FPS = 30  # to_jshtml's interval and the MP4's frame rate
PLAY_FPS = 60  # our page's playback speed
MP4_QUALITY = 5  # imageio's default
CRF = int((1 - MP4_QUALITY / 10) * 51)  # what imageio hands libx264 for that quality
WRITES, WRITE_BUDGET_S = 3, 30.0
LOADS = 5
STEP_COUNT, JUMP_COUNT = 40, 30
STEP_FROM = 100  # steps start here (reached by an untimed jump)
GAP_MS = 20  # pause after each paint before the next input
PLAY_SECONDS = 4
TIMEOUT_MS = 60_000
SEED = 0
STARTED = time.monotonic()

# The bars: the targets for a page.
SIZE_FACTOR = 1.4
FIRST_FRAME_MS = 500
STEP_MS = 8

# Installed before the page's own scripts (add_init_script). Times are performance.now()
# in the page: from navigation start, and input and paint on the same clock.
PROBES = r"""
(() => {
  const aw = { first: null, blocked: [] };
  window.__aw = aw;
  document.addEventListener("securitypolicyviolation", (e) => aw.blocked.push(e.blockedURI));
  const ours = () => document.querySelector("div.agent-widget");
  const theirs = () => document.querySelector('img[id^="_anim_img"]');
  const now = () => performance.now();
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

  // The first frame: our root's painted step set, or to_jshtml's image given a frame and decoded.
  const first = new MutationObserver(() => {
    if (aw.first !== null) return;
    if (ours()?.hasAttribute("data-painted-step")) {
      aw.first = now();
      first.disconnect();
      return;
    }
    const img = theirs();
    if (img?.getAttribute("src")) {
      img.decode().then(() => {
        if (aw.first !== null) return;
        aw.first = now();
        first.disconnect();
      }, () => {});
    }
  });
  first.observe(document, { subtree: true, childList: true, attributes: true,
                            attributeFilter: ["src", "data-painted-step"] });

  // Waits are promises in the page (Playwright's wait_for_function compiles its predicate
  // with eval, which our page's policy forbids).
  const poll = (value, timeout) => new Promise((resolve, reject) => {
    const start = now();
    const check = () => {
      const found = value();
      if (found) resolve(found);
      else if (now() - start > timeout) reject(new Error(`timed out after ${timeout} ms`));
      else setTimeout(check, 5);
    };
    check();
  });
  aw.firstFrame = (timeout) => poll(() => aw.first, timeout);
  /** ms from navigation start to the HTML read (responseEnd) and parsed (domInteractive). */
  aw.timing = (timeout) => poll(() => {
    const entry = performance.getEntriesByType("navigation")[0];
    return entry?.domInteractive ? { read: entry.responseEnd, parsed: entry.domInteractive } : null;
  }, timeout);

  /** now() once `predicate()` holds: checked at once and after every change under `node`. */
  function until(node, predicate, timeout) {
    return new Promise((resolve, reject) => {
      if (predicate()) return resolve(now());
      const observer = new MutationObserver(() => {
        if (!predicate()) return;
        observer.disconnect();
        clearTimeout(timer);
        resolve(now());
      });
      observer.observe(node, { subtree: true, attributes: true });
      const timer = setTimeout(() => {
        observer.disconnect();
        reject(new Error(`timed out after ${timeout} ms`));
      }, timeout);
    });
  }

  /** now() once `img` is given a new src and has decoded it: ready to paint. */
  function nextImage(img, timeout) {
    return new Promise((resolve, reject) => {
      const observer = new MutationObserver(() => {
        observer.disconnect();
        img.decode().then(() => {
          clearTimeout(timer);
          resolve(now());
        }, reject);
      });
      observer.observe(img, { attributes: true, attributeFilter: ["src"] });
      const timer = setTimeout(() => {
        observer.disconnect();
        reject(new Error(`no new image after ${timeout} ms`));
      }, timeout);
    });
  }

  const slide = (input, t) => {
    input.value = String(t);
    input.dispatchEvent(new Event("input", { bubbles: true }));
  };
  const variants = {
    ours: {
      at: () => Number(ours().dataset.paintedStep),
      shown: (t, timeout) => until(ours(), () => ours().dataset.paintedStep === String(t), timeout),
      step: () => ours().dispatchEvent(
        new KeyboardEvent("keydown", { key: "ArrowRight", bubbles: true, cancelable: true })),
      jump: (t) => slide(ours().querySelector("input.aw-slider"), t),
      paints: () => [ours(), "data-painted-step"],
      play: () => ours().querySelector("button.aw-play").click(),
      pause: () => {
        const button = ours().querySelector("button.aw-play");
        if (button.textContent === "Pause") button.click();
      },
    },
    jshtml: {
      at: () => Number(document.querySelector("input.anim-slider").value),
      shown: (_t, timeout) => nextImage(theirs(), timeout),
      step: () => document.querySelector('button[title="Next frame"]').click(),
      jump: (t) => slide(document.querySelector("input.anim-slider"), t),
      paints: () => [theirs(), "src"],
      play: () => document.querySelector('button[title="Play"]').click(),
      pause: () => document.querySelector('button[title="Pause"]').click(),
    },
  };

  /** ms from each input to its frame painted: a step forward, or a jump to each target. */
  aw.moves = async (variant, action, targets, gapMs, timeout) => {
    const v = variants[variant];
    const times = [];
    for (const target of targets) {
      const t = target ?? v.at() + 1;
      const shown = v.shown(t, timeout);
      const start = now();
      v[action](t);
      times.push((await shown) - start);
      await sleep(gapMs);
    }
    return times;
  };

  /** Shows step `t` (untimed) and waits for it. */
  aw.go = async (variant, t, timeout) => {
    const v = variants[variant];
    if (v.at() === t) return;
    const shown = v.shown(t, timeout);
    v.jump(t);
    await shown;
  };

  /** now() once our viewer holds all `chunks` chunks. */
  aw.filled = (chunks, timeout) =>
    until(ours(), () => ours().dataset.cachedChunks === String(chunks), timeout);

  /** Plays for `seconds` from what is shown; rates count what was painted after 1 s. */
  aw.play = async (variant, fps, seconds) => {
    const v = variants[variant];
    const isOurs = variant === "ours";
    if (isOurs) {
      const box = ours().querySelector("input.aw-fps");
      box.value = String(fps);
      box.dispatchEvent(new Event("change", { bubbles: true }));
    }
    const [node, attribute] = v.paints();
    const paints = [];
    const seen = new MutationObserver((records) => records.forEach(() => paints.push(now())));
    seen.observe(node, { attributes: true, attributeFilter: [attribute] });
    const frames = [];
    let animating = true;
    const tick = (time) => {
      frames.push(time);
      if (animating) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
    const dropped = () => (isOurs ? Number(ours().dataset.droppedFrames ?? 0) : null);
    v.play();
    await sleep(1000);
    const droppedBefore = dropped();
    const from = now();
    await sleep((seconds - 1) * 1000);
    const to = now();
    const droppedAfter = dropped();
    const playButton = isOurs ? ours().querySelector("button.aw-play") : null;
    const stillPlaying = isOurs ? playButton.textContent === "Pause" : true;
    v.pause();
    animating = false;
    seen.disconnect();
    const within = (times) => times.filter((time) => time >= from && time <= to);
    const rate = (times) => (within(times).length * 1000) / (to - from);
    const inWindow = within(paints);
    const gaps = inWindow.slice(1).map((time, i) => time - inWindow[i]);
    return {
      fps: rate(paints),
      displayFps: rate(frames),
      maxGapMs: gaps.length ? Math.max(...gaps) : null,
      dropped: isOurs ? droppedAfter - droppedBefore : null,
      droppedTotal: dropped(),
      stillPlaying,
      endStep: v.at(),
    };
  };
})();
"""


@dataclass
class Shared:
    """One way of sharing an episode: its file and what the run measured on it."""

    label: str
    path: Path
    writes: list[float]
    results: dict[str, Any] = field(default_factory=dict)
    size: int = field(init=False)

    def __post_init__(self) -> None:
        self.size = self.path.stat().st_size


@dataclass
class Episode:
    """One episode as saved and loaded, and its four files."""

    name: str
    slug: str
    positions: int
    frame_bytes: int  # the stored frame payloads (the chunk parts), as in the .rollout
    chunks: int
    files: dict[str, Shared] = field(default_factory=dict)
    page_parts: dict[str, int] = field(default_factory=dict)


def log(text: str) -> None:
    print(f"[{time.monotonic() - STARTED:6.1f} s] {text}", flush=True)


def timed_writes(write: Callable[[], Path]) -> tuple[Path, list[float]]:
    """Runs ``write`` WRITES times, or as many as fit in WRITE_BUDGET_S (at least once)."""
    times: list[float] = []
    while len(times) < WRITES and sum(times) < WRITE_BUDGET_S:
        start = time.perf_counter()
        path = write()
        times.append(time.perf_counter() - start)
    return path, times


def arrays_of(rollout: Rollout) -> dict[str, Any]:
    """What ``Rollout.from_arrays`` needs to make ``rollout`` again, frames as one array."""
    assert rollout.frames is not None
    frames = np.stack([rollout.frames[t] for t in range(len(rollout.frames))])
    return {
        "frames": frames,
        "observations": rollout.observations,
        "actions": rollout.actions,
        "rewards": rollout.rewards,
        "terminated": rollout.terminated,
        "truncated": rollout.truncated,
        "infos": rollout.infos,
        "extras": rollout.extras,
        "metadata": rollout.metadata,
    }


def write_text(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def write_mp4(path: Path, frames: np.ndarray) -> Path:
    import imageio.v2 as imageio

    imageio.mimwrite(
        path, frames, fps=FPS, codec="libx264", quality=MP4_QUALITY, macro_block_size=1
    )
    return path


def stored_frame_bytes(path: Path) -> tuple[int, int]:
    """The frame payloads a .rollout stores (what a page embeds), and its chunk count."""
    frames = load(path).frames
    assert frames is not None
    total = sum(len(p.payload) for k in range(frames.num_chunks) for p in frames.chunk(k))
    return total, frames.num_chunks


def write_files(name: str, slug: str, rollout: Rollout, folder: Path) -> Episode:
    """The episode's .rollout, our page, to_jshtml's HTML and the MP4, each timed."""
    arrays = arrays_of(rollout)
    frames = arrays["frames"]
    files: dict[str, Shared] = {}

    def save() -> Path:
        return Rollout.from_arrays(**arrays).save(folder / f"{slug}.rollout")

    path, times = timed_writes(save)
    files["rollout"] = Shared(".rollout", path, times)
    log(f"{slug}: .rollout {path.stat().st_size:,} B")

    def page() -> Path:
        viewer = EpisodeViewer(load(files["rollout"].path))
        return Path(viewer.to_html(folder / f"{slug}.html", progress=False))

    path, times = timed_writes(page)
    files["page"] = Shared("our page: `viewer.to_html()`", path, times)
    log(f"{slug}: page {path.stat().st_size:,} B")

    def jshtml() -> Path:
        return write_text(folder / f"{slug}-jshtml.html", baselines.jshtml(frames, FPS).data)

    path, times = timed_writes(jshtml)
    files["jshtml"] = Shared("`FuncAnimation.to_jshtml()`", path, times)
    log(f"{slug}: to_jshtml {path.stat().st_size:,} B in {len(times)} run(s)")

    path, times = timed_writes(lambda: write_mp4(folder / f"{slug}.mp4", frames))
    files["mp4"] = Shared(f"MP4 (libx264, CRF {CRF}, {FPS} fps)", path, times)
    log(f"{slug}: mp4 {path.stat().st_size:,} B")

    frame_bytes, chunks = stored_frame_bytes(files["rollout"].path)
    episode = Episode(name, slug, len(frames), frame_bytes, chunks, files)
    episode.page_parts = page_parts(files["page"].path)
    return episode


def page_parts(path: Path) -> dict[str, int]:
    """Bytes of our page by what they carry: frame parts, chunk indexes, series, the rest."""
    text = path.read_text(encoding="utf-8")
    elements = dict(
        re.findall(r'<script type="application/json" id="([\w-]+)">(.*?)</script>', text, re.S)
    )
    head = json.loads(elements["agent-widget-data"])
    replies = [json.loads(v)["reply"] for k, v in elements.items() if "-block-" in k]
    parts = sum(len(s) for reply in replies for s in reply[:-1])
    indexes = sum(len(reply[-1]) for reply in replies)
    series = len(json.dumps(head["state"]["series"], separators=(",", ":")))
    total = len(text.encode("utf-8"))
    return {
        "parts": parts,
        "indexes": indexes,
        "series": series,
        "rest": total - parts - indexes - series,
    }


def bundle_bytes(folder: Path) -> int:
    """The page of a 1-frame, 1x1 episode: front end, stylesheet, page shell and data format."""
    viewer = EpisodeViewer(np.zeros((1, 1, 1, 3), np.uint8))
    path = viewer.to_html(folder / "one-frame.html", progress=False)
    return Path(path).stat().st_size


class Opened:
    """An HTML file opened from file:// in a fresh, offline browser context."""

    def __init__(self, browser: Browser, path: Path) -> None:
        self.context: BrowserContext = browser.new_context(
            viewport={"width": 1100, "height": 1000}, offline=True
        )
        self.context.add_init_script(PROBES)
        self.requests: list[str] = []
        self.page: Page = self.context.new_page()
        self.page.on("request", self._request)
        self.page.goto(path.as_uri(), wait_until="commit", timeout=TIMEOUT_MS)

    def _request(self, request: Any) -> None:
        if not request.url.startswith(("file:", "data:", "blob:")):
            self.requests.append(request.url)

    def call(self, method: str, *args: Any) -> Any:
        """``window.__aw[method](...args)``, awaited."""
        return self.page.evaluate(
            "([method, args]) => window.__aw[method](...args)", [method, list(args)]
        )

    def first_frame(self) -> float:
        """ms from navigation start to the first frame painted."""
        return float(self.call("firstFrame", TIMEOUT_MS))

    def timing(self) -> dict[str, float]:
        """ms from navigation start to the HTML read (``read``) and parsed (``parsed``)."""
        return dict(self.call("timing", TIMEOUT_MS))

    def all_requests(self) -> list[str]:
        """Requests the page tried: to the network, or blocked by its own policy."""
        return self.requests + list(self.page.evaluate("() => window.__aw.blocked"))

    def close(self) -> None:
        self.context.close()


def first_frames(browser: Browser, episode: Episode) -> None:
    """LOADS fresh loads of each HTML file, alternating which goes first."""
    keys = ["page", "jshtml"]
    for key in keys:
        episode.files[key].results.update(first=[], read=[], parsed=[], requests=set())
    for rep in range(LOADS):
        for key in keys[:: 1 if rep % 2 == 0 else -1]:
            shared = episode.files[key]
            opened = Opened(browser, shared.path)
            try:
                shared.results["first"].append(opened.first_frame())
                timing = opened.timing()
                shared.results["read"].append(timing["read"])
                shared.results["parsed"].append(timing["parsed"])
                shared.results["requests"].update(opened.all_requests())
            finally:
                opened.close()


def interact(browser: Browser, episode: Episode, key: str, variant: str) -> None:
    """Steps, random jumps and playback on one fresh page of ``key``'s file."""
    shared = episode.files[key]
    opened = Opened(browser, shared.path)
    try:
        opened.first_frame()
        if variant == "ours":
            shared.results["filled_ms"] = opened.call("filled", episode.chunks, TIMEOUT_MS)
        start = min(STEP_FROM, episode.positions - 1 - STEP_COUNT)
        opened.call("go", variant, start, TIMEOUT_MS)
        steps = [None] * STEP_COUNT
        shared.results["steps"] = opened.call("moves", variant, "step", steps, GAP_MS, TIMEOUT_MS)
        rng = np.random.default_rng(SEED)
        targets, at = [], start + STEP_COUNT
        while len(targets) < JUMP_COUNT:
            t = int(rng.integers(episode.positions))
            if t != at:
                targets.append(t)
                at = t
        shared.results["jumps"] = opened.call("moves", variant, "jump", targets, GAP_MS, TIMEOUT_MS)
        opened.call("go", variant, 0, TIMEOUT_MS)
        fps = PLAY_FPS if variant == "ours" else FPS
        shared.results["play"] = opened.call("play", variant, fps, PLAY_SECONDS)
        shared.results["requests"].update(opened.all_requests())
    finally:
        opened.close()


def blank_page(browser: Browser, folder: Path) -> list[float]:
    """The floor: ms to the end of parsing a blank page opened the same way."""
    path = write_text(folder / "blank.html", "<!doctype html><title>blank</title><p>blank</p>\n")
    times = []
    for _ in range(LOADS):
        opened = Opened(browser, path)
        try:
            times.append(opened.timing()["parsed"])
        finally:
            opened.close()
    return times


def measure_in_browser(browser: Browser, episode: Episode) -> None:
    log(f"{episode.slug}: first frames ({LOADS} loads each)")
    first_frames(browser, episode)
    for key, variant in (("page", "ours"), ("jshtml", "jshtml")):
        log(f"{episode.slug}: steps, jumps and playback of {key}")
        interact(browser, episode, key, variant)


# --- the report ---


def kb(n: float) -> str:
    return f"{n / 1e3:,.1f}"


def per_frame(n: float) -> str:
    return f"{n:,.0f} B" if n < 1e3 else f"{n / 1e3:,.1f} KB"


def ms(seconds: float) -> str:
    value = seconds * 1e3
    return f"{value:,.0f}" if value >= 100 else f"{value:.1f}"


def med_p95(values: list[float]) -> str:
    return f"{statistics.median(values):.1f} / {np.percentile(values, 95):.1f}"


def playback(play: dict[str, Any], ours: bool) -> str:
    if ours:
        return (
            f"{play['fps']:.1f} fps at {PLAY_FPS}, {play['droppedTotal']} dropped "
            f"({play['dropped']} after the first second)"
        )
    return f"{play['fps']:.1f} fps at its {1000 / FPS:.0f} ms interval"


def row(shared: Shared, positions: int, ours_size: int) -> str:
    r = shared.results
    writes = f"{ms(statistics.median(shared.writes))} ({len(shared.writes)})"
    cells = [
        shared.label,
        kb(shared.size),
        per_frame(shared.size / positions),
        f"{shared.size / ours_size:.2f}x",
        writes,
    ]
    if "first" in r:
        cells += [
            f"{statistics.median(r['first']):,.0f}",
            med_p95(r["steps"]),
            med_p95(r["jumps"]),
            playback(r["play"], "filled_ms" in r),
        ]
    else:
        cells += ["—"] * 4
    return "| " + " | ".join(cells) + " |"


def table(episode: Episode) -> str:
    ours = episode.files["page"].size
    lines = [
        "| file | size (KB) | per frame | size / our page's | write: median ms (runs) "
        f"| first frame: median of {LOADS} (ms) | step to paint: median / p95 (ms) "
        "| random jump to paint: median / p95 (ms) | playback |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for key in ("page", "jshtml", "mp4", "rollout"):
        lines.append(row(episode.files[key], episode.positions, ours))
    return "\n".join(lines)


def spread(values: list[float]) -> str:
    return f"{min(values):,.0f}-{max(values):,.0f}"


def timings(shared: Shared) -> str:
    r = shared.results
    return f"{statistics.median(r['read']):,.0f} / {statistics.median(r['parsed']):,.0f}"


def composition(episode: Episode, bundle: int) -> str:
    p = episode.page_parts
    page, jshtml, mp4 = (episode.files[k] for k in ("page", "jshtml", "mp4"))
    requests = {k: sorted(episode.files[k].results["requests"]) for k in ("page", "jshtml")}
    first = page.results["first"]
    return (
        f"Our page ({kb(page.size)} KB): frame payloads {kb(p['parts'])} KB as base64 "
        f"({kb(episode.frame_bytes)} KB stored in the .rollout, "
        f"{p['parts'] / episode.frame_bytes:.2f}x), chunk indexes {kb(p['indexes'])} KB "
        f"(part headers and the readout's infos), series {kb(p['series'])} KB, front end "
        f"and shell {kb(p['rest'])} KB (a 1-frame page: {kb(bundle)} KB). It is "
        f"{jshtml.size / page.size:.1f}x smaller than to_jshtml's file and "
        f"{page.size / mp4.size:.1f}x the MP4. First frame per load (ms): "
        f"{', '.join(f'{t:,.0f}' for t in first)}; to_jshtml: "
        f"{', '.join(f'{t:,.0f}' for t in jshtml.results['first'])}. The HTML read "
        "(`responseEnd`) / parsed (`domInteractive`), medians: ours "
        f"{timings(page)}, to_jshtml's {timings(jshtml)} ms. "
        "Every chunk was in "
        f"the viewer {page.results['filled_ms']:,.0f} ms after navigation start. Requests "
        f"tried: ours {len(requests['page'])}, to_jshtml {len(requests['jshtml'])}"
        + (f" ({', '.join(requests['jshtml'])})" if requests["jshtml"] else "")
        + "."
    )


def bars(episodes: list[Episode], bundle: int) -> list[tuple[str, bool, str]]:
    pong = episodes[0]
    limit = pong.frame_bytes * SIZE_FACTOR + bundle
    size = pong.files["page"].size
    verdicts = [
        (
            f"{pong.name}: the page at most the .rollout's frame bytes x {SIZE_FACTOR} plus "
            "the bundle (the page of a 1-frame episode)",
            size <= limit,
            f"{kb(size)} KB against {kb(pong.frame_bytes)} x {SIZE_FACTOR} + {kb(bundle)} = "
            f"{kb(limit)} KB ({size / limit:.2f}x the limit)",
        )
    ]
    for episode in episodes:
        r = episode.files["page"].results
        first = statistics.median(r["first"])
        step = statistics.median(r["steps"])
        play = r["play"]
        smooth = play["fps"] >= PLAY_FPS - 1 and play["droppedTotal"] == 0
        verdicts += [
            (
                f"{episode.name}: first frame under {FIRST_FRAME_MS} ms",
                first < FIRST_FRAME_MS,
                f"{first:,.0f} ms",
            ),
            (
                f"{episode.name}: step to paint under {STEP_MS} ms (median)",
                step < STEP_MS,
                f"{step:.1f} ms (p95 {np.percentile(r['steps'], 95):.1f})",
            ),
            (
                f"{episode.name}: {PLAY_FPS} fps playback, no dropped frames",
                smooth,
                f"{play['fps']:.1f} fps painted, {play['droppedTotal']} dropped "
                f"(display {play['displayFps']:.0f} Hz)",
            ),
        ]
    return verdicts


def header(run: dict[str, Any]) -> str:
    return (
        f"`{run['command']}` ({run['date']}, code {run['code']}; the shared {os.cpu_count()}-core "
        f"{platform.machine()} machine, load average {run['load'][0]:.1f} at the start, "
        f"{run['load'][1]:.1f} at the end; headless Debian Chromium {run['chromium']}, "
        f"offline; imageio {run['imageio']} with ffmpeg {run['ffmpeg']}; the whole run "
        f"took {run['minutes']:.1f} min). A blank page opened the same way is parsed "
        f"{statistics.median(run['blank']):,.0f} ms after navigation start (median of "
        f"{len(run['blank'])}): the floor under every first frame below.\n\n"
        "Each episode is saved to a .rollout and loaded back; the files share its "
        f"{STEPS + 1:,} frames. Our page: `EpisodeViewer(load(path)).to_html(file)`, no panels "
        "(its write time includes load() and the viewer). to_jshtml: "
        f"`baselines.jshtml(frames, fps={FPS}).data` written to a file (figure sized to "
        "the frame, every frame a base64 PNG). MP4: `imageio.v2.mimwrite(path, frames, "
        f"fps={FPS}, codec='libx264', quality={MP4_QUALITY}, macro_block_size=1)`, "
        f"imageio's default quality (CRF {CRF}, yuv420p: lossy, colours subsampled), measured "
        "by size and write time only. .rollout: `Rollout.from_arrays(...).save()` of the "
        f"recorded arrays (frames encoded every time). Write: median of {WRITES} runs, or of as "
        f"many as fit in {WRITE_BUDGET_S:.0f} s. First frame: from navigation start "
        "(file://, fresh context each load, the two pages alternating) to our root's "
        "`data-painted-step` set / to_jshtml's `<img>` given its first frame and decoded. "
        f"Steps ({STEP_COUNT}, from step {STEP_FROM}): ArrowRight keydown on our root / "
        f"to_jshtml's Next frame button; jumps ({JUMP_COUNT} random positions): the "
        "slider's value and an input event; both timed in the page from the input to the "
        "frame painted (our steps once every chunk is in). Playback: "
        f"{PLAY_SECONDS} s from step 0, rates over the last {PLAY_SECONDS - 1} s; ours at "
        f"{PLAY_FPS} fps set in its fps box, to_jshtml at its own interval (Play button)."
    )


def markdown(run: dict[str, Any], episodes: list[Episode], bundle: int) -> str:
    sections = [header(run)]
    for episode in episodes:
        sections.append(f"### {episode.name}\n\n{table(episode)}\n\n{composition(episode, bundle)}")
    verdicts = "\n".join(
        f"- {bar}: {value}, {'meets' if ok else 'MISSES'} the bar"
        for bar, ok, value in bars(episodes, bundle)
    )
    sections.append(f"### Targets\n\n{verdicts}")
    sections.append(notes(episodes, bundle, run["blank"]))
    return "\n\n".join(sections)


def notes(episodes: list[Episode], bundle: int, blank: list[float]) -> str:
    """What the numbers mean, in a few bullets."""
    pong, big = episodes
    p = pong.page_parts
    extra = p["indexes"] + p["series"]
    median = statistics.median

    def files(episode: Episode) -> tuple[Shared, Shared, Shared]:
        return episode.files["page"], episode.files["jshtml"], episode.files["mp4"]

    (pong_page, pong_js, pong_mp4), (big_page, big_js, big_mp4) = files(pong), files(big)

    def moves(key: str, kind: str) -> str:
        return " / ".join(f"{median(e.files[key].results[kind]):.1f}" for e in episodes)

    return "\n".join(
        [
            "- Size: our page carries the .rollout's frame payloads as base64 "
            f"({p['parts'] / pong.frame_bytes:.2f}x), so it "
            "is as small as the episode compresses: "
            f"{pong_js.size / pong_page.size:.1f}x smaller than to_jshtml's PNGs for Pong, "
            f"{big_js.size / big_page.size:.1f}x for the 480x480 render, whose frames "
            f"store in {per_frame(big.frame_bytes / big.positions)} (PNG: "
            f"{per_frame(big_js.size / big.positions)} as base64). The MP4 is "
            f"{pong_page.size / pong_mp4.size:.1f}x / {big_page.size / big_mp4.size:.0f}x "
            f"smaller than our page: lossy inter-frame video (CRF {CRF}, colours subsampled), "
            "with no exact pixels, no stepping by step and none of the episode's data.",
            f"- The Pong size bar: the x{SIZE_FACTOR} allowance covers base64 but not the "
            f"chunk indexes and series, {kb(extra)} KB "
            f"({extra / pong.frame_bytes:.2f}x the frame bytes): the readout's infos (one "
            "index a block of chunks, integer columns as differences) and the timeline's "
            f"per-step arrays, zlib'd. The bundle, {kb(bundle)} KB, is "
            f"{bundle / pong_page.size:.0%} of the Pong page.",
            "- First frame: our page's script runs as soon as it is parsed, before the "
            "episode's blocks (the block of the step shown comes first), so the first frame "
            f"does not wait for the file: ours {median(pong_page.results['first']):,.0f} ms "
            f"for {kb(pong_page.size)} KB, {median(big_page.results['first']):,.0f} ms "
            f"({spread(big_page.results['first'])} over {LOADS} loads) for "
            f"{kb(big_page.size)} KB, whose HTML was read at "
            f"{median(big_page.results['read']):,.0f} ms and parsed at "
            f"{median(big_page.results['parsed']):,.0f} ms (a blank page's: "
            f"{median(blank):,.0f} ms). to_jshtml's frames script runs once the page is "
            "parsed and makes an image of every frame first: "
            f"{median(pong_js.results['first']):,.0f} / {median(big_js.results['first']):,.0f} ms.",
            f"- Writing: to_html copies stored payloads ({ms(median(pong_page.writes))} / "
            f"{ms(median(big_page.writes))} ms), to_jshtml draws and PNG-encodes every frame "
            f"through matplotlib ({median(pong_js.writes):,.1f} / "
            f"{median(big_js.writes):,.1f} s), the MP4 encodes video "
            f"({median(pong_mp4.writes):,.1f} / {median(big_mp4.writes):,.1f} s). In the "
            f"page, steps take {moves('page', 'steps')} ms in ours against "
            f"{moves('jshtml', 'steps')} ms with to_jshtml's Next button, random jumps "
            f"{moves('page', 'jumps')} against {moves('jshtml', 'jumps')} ms (medians, Pong / "
            "480x480): to_jshtml holds every frame as a loaded image and re-points its "
            "<img>; ours decodes a frame it does not hold decoded (it keeps those around "
            "the playhead): the part's first frame inflated, then the changes up to it "
            "replayed, which costs most on the 480x480 frames.",
        ]
    )


def main(argv: list[str] | None = None) -> None:
    parser = arguments(__doc__.splitlines()[0])
    args = parser.parse_args(argv)
    import imageio
    import imageio_ffmpeg

    run: dict[str, Any] = {
        "code": code_version(),
        "date": today(),
        "command": command("benchmarks.page", argv),
    }
    load_start = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="aw-bench-page-") as tmp:
        folder = Path(tmp)
        log("recording Pong and rendering the 480x480 scene")
        recorded = [
            ("ALE/Pong-v5, 1,000 steps (210x160)", "pong", scenes.pong(STEPS)),
            ("Synthetic 480x480, 1,000 steps", "big", scenes.render_episode(STEPS)),
        ]
        episodes = [write_files(name, slug, r, folder) for name, slug, r in recorded]
        bundle = bundle_bytes(folder)
        with chromium() as browser:
            run["chromium"] = browser.version
            run["blank"] = blank_page(browser, folder)
            for episode in episodes:
                measure_in_browser(browser, episode)
    run.update(
        load=(load_start, os.getloadavg()[0]),
        minutes=(time.monotonic() - STARTED) / 60,
        imageio=imageio.__version__,
        ffmpeg=imageio_ffmpeg.get_ffmpeg_version(),
    )
    publish(TITLE, markdown(run, episodes, bundle), write=not args.no_write)


if __name__ == "__main__":
    main()
