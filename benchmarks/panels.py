"""Panels in the browser: from a seek to the card painted, and playback with a slow panel.

In Chromium on a real JupyterLab (the harness of :mod:`benchmarks.viewer`), one
notebook:

- a CartPole-v1 episode (500 steps, a balancing rule) with a "Q-values" panel: a
  torch MLP (4-64-64-2, random weights) of ``step.obs``, drawn as bars;
- an ALE/Pong-v5 episode (1,000 steps) with a "saliency" overlay: the gradient of a
  small CNN's top Q-value with respect to the 210x160 frame, a noisy map like a
  real saliency map (so its compressed levels are not flattered), drawn over the frame;
- a comm echo (the floor of any kernel round trip);
- for playback, Pong tiled to an episode too long for the front end's background
  fill (frames keep coming from the kernel as it plays) in three viewers: no panel,
  a panel that sleeps 300 ms then returns bars, and one that holds the GIL for 300 ms
  (a pure-Python loop).

Seeks: a random jump (the slider) to a step no panel has seen, then two arrow-key
steps. Latency is timed in the page from the input to the card painted for that
step and marked current (bars: drawn; overlay: its levels coloured and drawn over the
frame). The kernel logs, on one clock, when each panel request had been handled,
when the user's function ran and when the card was sent, so each seek splits into
the function's own time, the rest of the kernel's and the time outside it. The
notebook runs on two servers side by side, one with agent-widget's server extension
(agent_widget_server: TCP_NODELAY on kernel websockets) and a stock one (what Nagle's
algorithm costs); their seeks are interleaved, the variants take turns within each
repetition, and so do the three playback viewers (on the first server).

    .venv/bin/python -m benchmarks.panels            # ~3 min; prints and updates RESULTS.md
    .venv/bin/python -m benchmarks.panels --quick    # smoke run; prints only
    .venv/bin/python -m benchmarks.panels --raw r.json        # also keeps the raw numbers
    .venv/bin/python -m benchmarks.panels --from-raw r.json   # re-renders them
"""

from __future__ import annotations

import contextlib
import json
import os
import platform
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from agent_widget.format import CHUNK_SIZE, chunk_count
from agent_widget.recording import record
from benchmarks import scenes
from benchmarks.browser import ProbedPage
from benchmarks.report import ms, verdict
from benchmarks.results import arguments, code_version, command, publish, today
from benchmarks.viewer import log, saved_scene
from harness.chromium import chromium
from harness.lab import Notebook, Server

TITLE = "Panels"
ROOT = Path(__file__).resolve().parent.parent
SEED = 0
FPS = 60  # Pong's own rate, as benchmarks.viewer plays it
SLOW_SECONDS = 0.3
TIMEOUT_MS = 30_000
QUIET_MS = 60  # kernel idle this long after a seek before the next one
TARGETS = {"bars": 30.0, "overlay": 50.0, "fps_drop": 0.10}
STARTED = time.monotonic()
# The server as agent-widget installs it (agent_widget_server: no Nagle on kernel websockets),
# and a stock one, as where agent-widget is in the kernel's environment only.
SERVERS = {"ours": "with agent_widget_server", "stock": "stock server"}

# Cell index -> what it shows. Cell 0 is the setup.
Q, HEAT, ECHO = 1, 2, 3
PLAYERS = {"none": 4, "sleep": 5, "busy": 6}
# Latency variant -> (cell, panel name, drawn over the frame, its KernelLog in the kernel).
LATENCY = {
    "bars": (Q, "Q-values", False, "q_log"),
    "overlay": (HEAT, "saliency", True, "heat_log"),
}


@dataclass(frozen=True)
class Plan:
    """How much to measure: the full run, or a quick smoke run."""

    latency_reps: int
    jumps_per_rep: int
    play_reps: int
    play_seconds: float


FULL = Plan(latency_reps=14, jumps_per_rep=2, play_reps=4, play_seconds=6)
QUICK = Plan(latency_reps=2, jumps_per_rep=1, play_reps=1, play_seconds=3)


# --- In the kernel -----------------------------------------------------------------


def q_network() -> nn.Module:
    """CartPole's Q-network: 4 inputs, two hidden layers of 64, 2 actions (random weights)."""
    torch.manual_seed(SEED)
    net = nn.Sequential(nn.Linear(4, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 2))
    return net.eval()


class GradientSaliency:
    """|d max Q / d pixel| of a small CNN over a 210x160 RGB frame (random weights): a
    map as noisy as a real saliency map, for the overlay's data to be of realistic size."""

    def __init__(self) -> None:
        torch.manual_seed(SEED)
        self.net = nn.Sequential(
            nn.Conv2d(3, 16, 8, stride=4), nn.ReLU(),
            nn.Conv2d(16, 32, 4, stride=2), nn.ReLU(),
            nn.Flatten(), nn.Linear(32 * 24 * 18, 6),
        ).eval()  # fmt: skip

    def __call__(self, frame: np.ndarray) -> np.ndarray:
        x = torch.as_tensor(frame, dtype=torch.float32).permute(2, 0, 1)[None] / 255.0
        x.requires_grad_(True)
        self.net(x).max().backward()
        assert x.grad is not None
        return x.grad[0].abs().amax(dim=0).numpy()


def bars_after(seconds: float, hold_gil: bool) -> Callable[[Any], np.ndarray]:
    """A panel taking ``seconds`` per call (sleeping, or spinning in Python holding the
    GIL) and returning six bars."""

    def slow(step: Any) -> np.ndarray:
        end = time.perf_counter() + seconds
        if hold_gil:
            while time.perf_counter() < end:
                pass
        else:
            time.sleep(seconds)
        return np.arange(6.0) + step.t % 7

    return slow


class KernelLog:
    """What a one-panel viewer's kernel side did, in ms of one clock (``perf_counter``):
    when each panel request had been handled, when the user's function ran for each
    step, and when each card was sent (its kind and buffer bytes). Reads and clears
    with :meth:`take`."""

    def __init__(self, viewer: Any) -> None:
        self.asked: dict[int, float] = {}
        self.calls: dict[int, list[float]] = {}
        self.sent: dict[int, list[Any]] = {}
        self.skipped = 0
        viewer.on_msg(self._asked)  # after the viewer's own handler: the request is queued
        send = viewer.send

        def logged(content: dict, buffers: list | None = None) -> None:
            if content.get("type") == "panel":
                if content.get("kind") == "skipped":
                    self.skipped += 1
                else:
                    size = sum(len(b) for b in buffers or [])
                    self.sent[content["step"]] = [_now(), content["kind"], size]
            send(content, buffers)

        viewer.send = logged

    def _asked(self, _widget: object, content: Any, _buffers: object) -> None:
        if isinstance(content, dict) and content.get("type") == "panel":
            self.asked[content["step"]] = _now()

    def timed(self, fn: Callable[[Any], Any]) -> Callable[[Any], Any]:
        """``fn`` as a panel whose calls are logged."""

        def panel(step: Any) -> Any:
            start = _now()
            try:
                return fn(step)
            finally:
                self.calls[step.t] = [start, _now()]

        return panel

    def take(self) -> dict[str, Any]:
        taken = {"asked": self.asked, "calls": self.calls, "sent": self.sent}
        taken["skipped"] = self.skipped
        self.asked, self.calls, self.sent, self.skipped = {}, {}, {}, 0
        return taken


def _now() -> float:
    return time.perf_counter() * 1000


def cells(cartpole: Path, pong: Path, long_positions: int) -> list[str]:
    """The notebook: setup, then one displayed widget per cell (indices as above), the
    panels written as a user would, each wrapped by its viewer's KernelLog."""
    setup = f"""import sys, time
sys.path.insert(0, {str(ROOT)!r})
import numpy as np
import torch
from agent_widget.episodes import load
from agent_widget.viewer import EpisodeViewer
from benchmarks import baselines
from benchmarks.panels import GradientSaliency, KernelLog, bars_after, q_network
from harness.long_episodes import repeated
cartpole, pong = load({str(cartpole)!r}), load({str(pong)!r})
long_pong = repeated(pong, {long_positions})
q_net, saliency_map = q_network(), GradientSaliency()
with torch.no_grad():  # torch's first calls are slow: not the panels' concern
    q_net(torch.zeros(4))
saliency_map(np.zeros((210, 160, 3), np.uint8))"""
    q_cell = """q_view = EpisodeViewer(cartpole)
q_log = KernelLog(q_view)

@q_view.panel("Q-values")
@q_log.timed
def q_values(step):
    with torch.no_grad():
        return q_net(torch.as_tensor(step.obs, dtype=torch.float32)).numpy()

q_view"""
    heat_cell = """heat_view = EpisodeViewer(pong)
heat_log = KernelLog(heat_view)

@heat_view.panel("saliency", overlay=True)
@heat_log.timed
def saliency(step):
    return saliency_map(step.obs)

heat_view"""
    players = [f"none_view = EpisodeViewer(long_pong, fps={FPS})\nnone_view"]
    for key, hold in (("sleep", False), ("busy", True)):
        players.append(
            f"""{key}_view = EpisodeViewer(long_pong, fps={FPS})
{key}_log = KernelLog({key}_view)
{key}_view.add_panel("slow", {key}_log.timed(bars_after({SLOW_SECONDS}, hold_gil={hold})))
{key}_view"""
        )
    return [setup, q_cell, heat_cell, "baselines.Echo()", *players]


# --- In the page -------------------------------------------------------------------

# Installed before JupyterLab loads: when each panel card's message came off the
# websocket, by "<panel name>/<step>" (the first arrival), on the page's clock.
ARRIVALS = r"""(() => {
  const arrived = (window.__panelArrivals = new Map());
  const decoder = new TextDecoder();
  const pattern = /"type": ?"panel", ?"name": ?"((?:[^"\\]|\\.)*)", ?"step": ?(\d+)/;
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", (event) => {
        const now = performance.now();
        const data = event.data;
        if (typeof data !== "string" && !(data instanceof ArrayBuffer)) return;
        const start = data.slice(0, 8192);
        const head = typeof start === "string" ? start : decoder.decode(start);
        const match = pattern.exec(head);
        if (match === null) return;
        const key = `${JSON.parse(`"${match[1]}"`)}/${match[2]}`;
        if (!arrived.has(key)) arrived.set(key, now);
      });
    }
  };
})();"""

PAGE = r"""() => {
  const cellNode = (i) => window.jupyterapp.shell.currentWidget.content.widgets[i].node;
  const view = (i) => cellNode(i).querySelector(".agent-widget");
  const kernel = () => window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  const frame = () => new Promise((resolve) => requestAnimationFrame(resolve));
  const card = (root, name) => root.querySelector(`div.aw-card[data-name="${name}"]`);
  // Card `name` shows step t, marked current, drawn: bars at once; an overlay once its
  // levels are coloured and drawn over the frame.
  const cardDone = (root, name, t, overlay) => {
    const c = card(root, name);
    if (c === null || c.dataset.step !== String(t) || c.dataset.current !== "true") return false;
    return overlay ? c.dataset.painted === String(t) : c.dataset.kind === "bars";
  };

  async function quiet(ms) {
    let since = performance.now();
    while (performance.now() - since < ms) {
      await sleep(5);
      if (kernel().status !== "idle") since = performance.now();
    }
  }

  /** ms from `start` to each of `conditions` holding, checked at each DOM change under `root`. */
  function when(root, conditions, timeout, what, start = performance.now()) {
    const times = {};
    return new Promise((resolve, reject) => {
      const check = () => {
        for (const [key, holds] of Object.entries(conditions)) {
          if (times[key] === undefined && holds()) times[key] = performance.now() - start;
        }
        if (Object.keys(times).length < Object.keys(conditions).length) return;
        observer.disconnect();
        clearTimeout(timer);
        resolve(times);
      };
      const observer = new MutationObserver(check);
      observer.observe(root, { subtree: true, attributes: true, childList: true });
      const timer = setTimeout(() => {
        observer.disconnect();
        reject(new Error(`${what}: only ${JSON.stringify(times)} after ${timeout} ms`));
      }, timeout);
    });
  }

  window.__panels = {
    /**
     * A seek in cell `cell` ("jump": the slider to t; "step": ArrowRight) and ms from
     * the input to the frame painted and to card `name` (if any) painted for t.
     */
    async seek(cell, action, t, name, overlay, timeout, quietMs) {
      const root = view(cell);
      root.scrollIntoView({ block: "nearest" });
      await frame();
      const conditions = { frame: () => root.dataset.paintedStep === String(t) };
      if (name !== null) conditions.card = () => cardDone(root, name, t, overlay);
      const start = performance.now();
      const done = when(root, conditions, timeout, `cell ${cell} ${action} to ${t}`, start);
      if (action === "jump") {
        const slider = root.querySelector("input.aw-slider");
        slider.value = String(t);
        slider.dispatchEvent(new Event("input", { bubbles: true }));
      } else {
        const key = { key: "ArrowRight", bubbles: true, cancelable: true };
        root.dispatchEvent(new KeyboardEvent("keydown", key));
      }
      const times = await done;
      const arrival = window.__panelArrivals.get(`${name}/${t}`);
      if (name !== null) times.arrived = arrival === undefined ? null : arrival - start;
      await quiet(quietMs);
      return times;
    },

    /** Resolves once card `name` of cell `cell` shows step t as current. */
    async waitCard(cell, name, t, timeout) {
      const root = view(cell);
      if (cardDone(root, name, t, false)) return;
      const conditions = { card: () => cardDone(root, name, t, false) };
      await when(root, conditions, timeout, `card ${name} at ${t}`);
    },

    /**
     * Watches card `name` of cell `cell` until `unwatch()`: each result it shows, and
     * whether it is ever marked current while showing another step than the view's
     * (checked after every DOM change and at every animation frame).
     */
    watch(cell, name) {
      const root = view(cell);
      const slider = root.querySelector("input.aw-slider");
      const c = card(root, name);
      const seen = { updates: 0, wrong: 0, wrongExamples: [], frameBehind: 0 };
      Object.assign(seen, { frames: 0, current: 0, lags: [] });
      let shown = `${c.dataset.step}/${c.dataset.version}`;
      const check = (atFrame) => {
        const step = c.dataset.step;
        const isCurrent = c.dataset.current === "true";
        const now = `${step}/${c.dataset.version}`;
        if (now !== shown && step !== undefined) seen.updates++;
        shown = now;
        if (isCurrent && step !== slider.value) {
          seen.wrong++;
          if (seen.wrongExamples.length < 5) seen.wrongExamples.push([step, slider.value]);
        }
        if (isCurrent && step !== root.dataset.paintedStep) seen.frameBehind++;
        if (!atFrame) return;
        seen.frames++;
        if (isCurrent) seen.current++;
        if (step !== undefined) seen.lags.push(Number(slider.value) - Number(step));
      };
      const observer = new MutationObserver(() => check(false));
      const all = { subtree: true, attributes: true, childList: true, characterData: true };
      observer.observe(root, all);
      let watching = true;
      const tick = () => {
        if (!watching) return;
        check(true);
        requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
      this.unwatch = () => {
        watching = false;
        observer.disconnect();
        return seen;
      };
    },
  };
}"""


class Run:
    """The notebook in its page, and the measurements taken on it."""

    def __init__(self, server: Server, probed: ProbedPage, plan: Plan, paths: dict) -> None:
        self.probed, self.plan = probed, plan
        self.rng = np.random.default_rng(SEED)
        probed.context.add_init_script(script=ARRIVALS)
        self.notebook = Notebook(
            server,
            probed.page,
            "panels.ipynb",
            cells(paths["cartpole"], paths["pong"], paths["long_positions"]),
        )
        self.positions = {Q: paths["cartpole_positions"], HEAT: paths["pong_positions"]}
        self.long_positions = paths["long_positions"]
        self.seen: dict[int, set[int]] = {Q: {0}, HEAT: {0}}  # shown first: cards of step 0
        self.played: set[int] = set()  # chunks of the long episode some player has fetched
        self.samples: dict[str, list[dict[str, Any]]] = {key: [] for key in LATENCY}
        self.echoes: list[float] = []
        probed.page.evaluate(PAGE)

    def page(self, method: str, *args: Any) -> Any:
        return self.probed.page.evaluate(
            "([method, args]) => window.__panels[method](...args)", [method, list(args)]
        )

    def wait_fills(self) -> None:
        """The two short episodes' frames all in the page: seeks then time panels only."""
        for cell in (Q, HEAT):
            chunks = chunk_count(self.positions[cell])
            try:
                self.probed.call("waitAttribute", cell, "data-cached-chunks", chunks, 120_000)
            except Exception:
                cached = self.probed.call("attribute", cell, "data-cached-chunks")
                raise RuntimeError(
                    f"cell {cell}: the background fill stopped at {cached} of {chunks} chunks"
                ) from None

    def fresh(self, cell: int) -> int:
        """A step whose panel was never asked for, nor the two after it."""
        while True:
            t = int(self.rng.integers(0, self.positions[cell] - 3))
            if not self.seen[cell] & {t, t + 1, t + 2}:
                self.seen[cell] |= {t, t + 1, t + 2}
                return t

    def latency_rep(self, rep: int) -> None:
        """One repetition: each panel in turn takes random jumps, each followed by two
        arrow-key steps; and the echo."""
        order = [*LATENCY, "echo"]
        for key in order[rep % len(order) :] + order[: rep % len(order)]:
            if key == "echo":
                for _ in range(self.plan.jumps_per_rep):
                    self.echoes.append(self.probed.call("echo", ECHO, 0, QUIET_MS)["ms"])
                continue
            cell, name, overlay, _log = LATENCY[key]
            for _ in range(self.plan.jumps_per_rep):
                t = self.fresh(cell)
                for seek, at in (("jump", t), ("step", t + 1), ("step", t + 2)):
                    times = self.page("seek", cell, seek, at, name, overlay, TIMEOUT_MS, QUIET_MS)
                    self.samples[key].append({"seek": seek, "t": at, **times})

    def latency(self) -> dict[str, Any]:
        """The seeks so far, each with its kernel log matched up by step."""
        for key, (*_, kernel_log) in LATENCY.items():
            kernel = self.notebook.python(f"{kernel_log}.take()")
            for row in self.samples[key]:
                row.update(split(kernel, row))
        return {"samples": self.samples, "echo": self.echoes}

    def start_at(self) -> int:
        """A playback start on the long episode whose chunks no player has fetched."""
        span = int(self.plan.play_seconds * FPS) + 8 * CHUNK_SIZE  # played, prefetched, margin
        while True:
            t = int(self.rng.integers(0, self.long_positions - span))
            chunks = set(range(t // CHUNK_SIZE - 2, (t + span) // CHUNK_SIZE + 1))
            if not self.played & chunks:
                self.played |= chunks
                return t

    def playback(self) -> dict[str, list[dict[str, Any]]]:
        """Each repetition, the three players in turn play the same fresh stretch of the
        long episode; the slow panels' cards are watched and their kernel logs read."""
        plays: dict[str, list[dict[str, Any]]] = {key: [] for key in PLAYERS}
        order = list(PLAYERS)
        for rep in range(self.plan.play_reps):
            start = self.start_at()
            for key in order[rep % len(order) :] + order[: rep % len(order)]:
                plays[key].append(self.play(key, start))
            log(f"playback: repetition {rep + 1}/{self.plan.play_reps} done")
        return plays

    def play(self, key: str, start: int) -> dict[str, Any]:
        cell = PLAYERS[key]
        slow = key != "none"
        self.page("seek", cell, "jump", start, None, False, TIMEOUT_MS, QUIET_MS)
        if slow:  # the user looks at a step, its card up to date, and presses Play
            self.page("waitCard", cell, "slow", start, TIMEOUT_MS)
            self.notebook.execute(f"{key}_log.take()")  # from here on
            self.page("watch", cell, "slow")
        else:
            time.sleep(SLOW_SECONDS)
        result = self.probed.call("play", cell, "ours", self.plan.play_seconds)
        if slow:
            result["card"] = self.page("unwatch")
            time.sleep(SLOW_SECONDS + 0.2)  # the last call returns and is answered
            kernel = self.notebook.python(f"{key}_log.take()")
            result["kernel"] = {
                "calls": len(kernel["calls"]),
                "cards": len(kernel["sent"]),
                "skipped": kernel["skipped"],
            }
        return result


def split(kernel: dict[str, Any], row: dict[str, Any]) -> dict[str, float]:
    """A seek's card latency split: from the request handled to the user's function
    called, the function, from its return to the card sent (the card made: levels,
    compressed), the rest until the page's websocket handler saw the card's message (transit
    both ways, waiting for the main thread), and from there to the card painted."""
    key = str(row["t"])
    (start, end), sent, asked = kernel["calls"][key], kernel["sent"][key], kernel["asked"][key]
    return {
        "queued": start - asked,
        "fn": end - start,
        "made": sent[0] - end,
        "until_handled": row["arrived"] - (sent[0] - asked),
        "page": row["card"] - row["arrived"],
        "bytes": sent[2],
    }


def record_episodes(folder: Path) -> dict[str, Any]:
    import gymnasium as gym

    env = gym.make("CartPole-v1", render_mode="rgb_array")
    cartpole = record(env, lambda obs: int(3 * obs[2] + obs[3] > 0), seed=SEED, max_steps=500)
    env.close()
    pong = saved_scene("ALE/Pong-v5", "pong", scenes.pong(1000), folder, fps=FPS)
    return {
        "cartpole": cartpole.save(folder / "cartpole.rollout"),
        "cartpole_positions": cartpole.num_positions,
        "pong": pong.path,
        "pong_positions": pong.positions,
        "long_positions": pong.long_positions,
    }


def measure(plan: Plan, command: str) -> dict[str, Any]:
    """Records the episodes, runs the notebook on both servers, and returns the raw
    measurements: seeks interleaved across the servers, playback on ours."""
    run_info: dict[str, Any] = {"command": command, "code": code_version()}
    run_info["load_start"] = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="aw-bench-panels-") as tmp:
        folder = Path(tmp)
        paths = record_episodes(folder)
        log("episodes recorded")
        with contextlib.ExitStack() as stack:
            browser = stack.enter_context(chromium())
            run_info["chromium"] = browser.version
            runs = {}
            for key in SERVERS:
                server = Server(folder / key, stock=key == "stock")
                stack.callback(server.stop)
                probed = ProbedPage(browser)
                stack.callback(probed.close)
                runs[key] = Run(server, probed, plan, paths)
                stack.callback(runs[key].notebook.close)
            for run in runs.values():
                run.wait_fills()
            log("notebooks open, short episodes in the pages")
            order = list(runs.values())
            for rep in range(plan.latency_reps):
                for run in order[rep % 2 :] + order[: rep % 2]:
                    run.latency_rep(rep)
                log(f"latency: repetition {rep + 1}/{plan.latency_reps} done")
            latency = {key: run.latency() for key, run in runs.items()}
            playback = runs["ours"].playback()
    run_info.update(date=today(), load_end=os.getloadavg()[0])
    run_info["minutes"] = (time.monotonic() - STARTED) / 60
    episodes = {k: v for k, v in paths.items() if k.endswith("positions")}
    return {
        "run": run_info,
        "plan": asdict(plan),
        "episodes": episodes,
        "latency": latency,
        "playback": playback,
    }


# --- The report --------------------------------------------------------------------


def values(rows: list[dict[str, Any]], field: str) -> list[float]:
    return [row[field] for row in rows]


def med(xs: list[float]) -> float:
    return float(np.median(xs)) if xs else float("nan")


LABELS = {
    "bars": "Q-value bars (CartPole, MLP 4-64-64-2)",
    "overlay": "saliency overlay (Pong, 210x160 map)",
}
SEEKS = {"step": "arrow key", "jump": "random jump"}


def latency_table(latency: dict[str, Any]) -> str:
    lines = [
        "| server | panel | seek | n | seek to card painted: median / p95 (ms) "
        "| same, minus the user's function | user's function (kernel) "
        "| request handled to function called | function returned to card sent "
        "| the rest until the page handled the card's message | from there to card painted "
        "| frame painted | card payload |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for server, server_label in SERVERS.items():
        samples = latency[server]["samples"]
        for key, label in LABELS.items():
            for seek, seek_label in SEEKS.items():
                rows = [row for row in samples[key] if row["seek"] == seek]
                minus = [row["card"] - row["fn"] for row in rows]
                columns = [ms(values(rows, "card")), ms(minus)]
                columns += [ms(values(rows, field)) for field in ("fn", "queued", "made")]
                columns += [ms(values(rows, field)) for field in ("until_handled", "page", "frame")]
                columns.append(f"{med(values(rows, 'bytes')) / 1024:.1f} KB")
                lines.append(
                    f"| {server_label} | {label} | {seek_label} | {len(rows)} | "
                    + " | ".join(columns)
                    + " |"
                )
        echo = latency[server]["echo"]
        lines.append(
            f"| {server_label} | comm echo, no payload (a round trip's floor) | — "
            f"| {len(echo)} | {ms(echo)} |" + " |" * 8
        )
    return "\n".join(lines)


PLAY_LABELS = {
    "none": "no panel",
    "sleep": f"{SLOW_SECONDS * 1e3:.0f} ms panel (time.sleep)",
    "busy": f"{SLOW_SECONDS * 1e3:.0f} ms panel holding the GIL (Python loop)",
}


def playback_table(playback: dict[str, list[dict[str, Any]]], seconds: float) -> str:
    lines = [
        "| panel attached | fps: median (each play) | frames dropped | longest gap between "
        "frames: median / worst (ms) | panel calls / cards shown / skipped answers (per play) "
        "| card current (of animation frames) | card behind the view (median steps) "
        "| card marked current at another step than the view's / than the frame painted |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for key, label in PLAY_LABELS.items():
        plays = playback[key]
        fps = [p["fps"] for p in plays]
        gaps = [p["maxGapMs"] for p in plays]
        each = ", ".join(f"{x:.1f}" for x in fps)
        row = (
            f"| {label} | {med(fps):.1f} ({each}) | {sum(p['dropped'] for p in plays)} "
            f"| {med(gaps):.0f} / {max(gaps):.0f}"
        )
        if key == "none":
            lines.append(row + " | — | — | — | — |")
            continue
        kernel = [p["kernel"] for p in plays]
        cards = [p["card"] for p in plays]
        counts = " / ".join(
            f"{med([k[field] for k in kernel]):.0f}" for field in ("calls", "cards")
        )
        counts += f" / {med([k['skipped'] for k in kernel]):.0f}"
        shown = med([c["updates"] for c in cards])
        current = sum(c["current"] for c in cards) / max(sum(c["frames"] for c in cards), 1)
        lags = [lag for c in cards for lag in c["lags"]]
        lines.append(
            f"{row} | {counts} (browser: {shown:.0f} updates, "
            f"{shown / seconds:.1f}/s) | {100 * current:.0f}% | {med(lags):.0f} "
            f"| {sum(c['wrong'] for c in cards)} / {sum(c['frameBehind'] for c in cards)} |"
        )
    return "\n".join(lines)


def targets(raw: dict[str, Any]) -> str:
    lines = []
    for key, what, target, with_fn in (
        ("bars", "Q-value bar card painted", TARGETS["bars"], True),
        (
            "overlay",
            "210x160 overlay painted, minus the user's function",
            TARGETS["overlay"],
            False,
        ),
    ):
        medians = {}
        for server in SERVERS:
            samples = raw["latency"][server]["samples"][key]
            for seek in SEEKS:
                rows = [row for row in samples if row["seek"] == seek]
                medians[server, seek] = med(
                    [row["card"] - (0 if with_fn else row["fn"]) for row in rows]
                )
        fn = med(values(raw["latency"]["ours"]["samples"][key], "fn"))
        ok = max(medians["ours", seek] for seek in SEEKS) < target
        lines.append(
            f"- seek to {what}, median under {target:.0f} ms: arrow key "
            f"{medians['ours', 'step']:.1f} ms, random jump {medians['ours', 'jump']:.1f} ms"
            + ("" if with_fn else f" (the function itself: {fn:.1f} ms)")
            + f": {verdict(ok)} (on a stock server: "
            f"{medians['stock', 'step']:.1f} and {medians['stock', 'jump']:.1f} ms)"
        )
    play = raw["playback"]
    none = med([p["fps"] for p in play["none"]])
    for key in ("sleep", "busy"):
        plays = play[key]
        fps = med([p["fps"] for p in plays])
        ratios = [p["fps"] / n["fps"] for p, n in zip(plays, play["none"], strict=True)]
        wrong = sum(p["card"]["wrong"] for p in plays)
        examples = [e for p in plays for e in p["card"]["wrongExamples"]]
        drop = 1 - fps / none
        ok = drop <= TARGETS["fps_drop"] and wrong == 0
        lines.append(
            f"- {PLAY_LABELS[key]}: playback fps lowered by at most "
            f"{TARGETS['fps_drop']:.0%}, never a wrong step "
            f"marked current: {fps:.1f} vs {none:.1f} fps ({100 * drop:+.1f}% lower; paired "
            f"per repetition: median {100 * (1 - med(ratios)):+.1f}%), {wrong} wrong"
            + (f" (card step, view step: {examples})" if examples else "")
            + f": {verdict(ok)}"
        )
    return "\n".join(lines)


def markdown(raw: dict[str, Any]) -> str:
    """The section, from the raw measurements of one run."""
    run, plan, episodes = raw["run"], raw["plan"], raw["episodes"]
    seeks = plan["latency_reps"] * plan["jumps_per_rep"]
    head = (
        f"`{run['command']}` ({run['date']}, code {run['code']}; the {os.cpu_count()}-core "
        f"{platform.machine()} machine, shared with other jobs: load average "
        f"{run['load_start']:.1f} at the start, {run['load_end']:.1f} at the end; headless "
        f"Debian Chromium {run['chromium']}, JupyterLab; torch {torch.__version__}; "
        f"{plan['latency_reps']} interleaved repetitions of {seeks // plan['latency_reps']} "
        f"random jumps, each followed by two arrow-key steps, per panel and server; "
        f"{plan['play_reps']} interleaved repetitions of {plan['play_seconds']:.0f} s "
        f"of playback per player; the whole run took {run['minutes']:.1f} min)."
    )
    method = (
        "Seek latency is timed in the page from the input (the slider moved, or an "
        "ArrowRight key) to the card painted for that step and marked current: bars "
        "drawn on their canvas, the overlay's levels coloured and drawn over the frame (the "
        "card's `data-step`, `data-current` and, for the overlay, `data-painted`). Every "
        "seek goes to a step no panel had been asked for (no cache hit, in the page or "
        "the kernel), after the episode's frames were all in the page. The kernel logs "
        "on one clock when each panel request had been handled (an extra `on_msg` "
        "callback, after the viewer's), the user's function's start and end, and when "
        "the card went to `send`; from the function's return to `send` the result is "
        "made into a card (for the overlay: 8-bit levels, zlib-compressed). The page notes when "
        'its websocket handler saw the card\'s message; "the rest until" then is the '
        "time from the input minus the kernel's span from request handled to card sent: "
        "the request and the card in transit (front end, server, ZMQ) and the message "
        "waiting for the page's main thread; after it, JupyterLab and the widget handle "
        "the message and draw. The next seek follows once the kernel has been idle for "
        f"{QUIET_MS} ms.\n\n"
        "Two JupyterLab servers run side by side, their seeks interleaved: one with "
        "agent-widget's server extension (`agent_widget_server`, which the wheel enables: "
        "TCP_NODELAY on kernel websockets), and a stock one. jupyter_server leaves Nagle's "
        "algorithm on, so a message written while an earlier one is unacknowledged waits "
        "for the browser's delayed ACK (~40 ms on Linux); a panel's card always follows "
        'the kernel\'s "busy" status message for its request. The Q-network is '
        "4-64-64-2 with random weights on CartPole's 4-d observation; the saliency map "
        "is the gradient of a 2-conv CNN's top output with respect to the 210x160 frame, "
        "as noisy as a real one (its compressed size is in the last column).\n\n"
        f"Playback: Pong tiled to {episodes['long_positions']:,} positions, too long for "
        "the front end's background fill, so frames come from the kernel as it plays (the "
        f"prefetch window only); played at {FPS} fps from a jump to a stretch no viewer "
        "had fetched (the same stretch for the three players within a repetition), after "
        "the slow card was up to date. fps and dropped frames count paints after the first "
        "second (`benchmarks/probes.js` `play`); the card was checked after every DOM "
        "change and at every animation frame: whether it showed a result marked current "
        "for another step than the view's (the slider's value) or than the frame painted, "
        "and how far behind the view its result was. Panel calls and cards are counted in "
        "the kernel from Play until the call running at the end returned; the browser's "
        "updates during the play only."
    )
    return "\n\n".join(
        [
            head,
            method,
            "### From a seek to the card painted",
            latency_table(raw["latency"]),
            f"### Playback at {FPS} fps with a slow panel",
            playback_table(raw["playback"], plan["play_seconds"]),
            "### Targets",
            targets(raw),
        ]
    )


def main() -> None:
    parser = arguments(__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a short smoke run (prints only)")
    parser.add_argument("--raw", type=Path, help="also write the raw measurements (JSON) here")
    parser.add_argument("--from-raw", type=Path, help="only report the measurements saved here")
    args = parser.parse_args()
    if args.from_raw:
        raw = json.loads(args.from_raw.read_text())
    else:
        raw = measure(QUICK if args.quick else FULL, command("benchmarks.panels"))
    if args.raw:
        args.raw.write_text(json.dumps(raw, indent=1))
    text = markdown(raw)
    quick = "--quick" in raw["run"]["command"].split()
    publish(TITLE, text, write=not (args.no_write or quick))


if __name__ == "__main__":
    main()
