/**
 * The anywidget entry point of CompareViewer: the child EpisodeViewers in a grid,
 * driven by one shared slider, playback and returns chart.
 *
 * Each child is its own EpisodeViewer model, drawn by the viewer's render function
 * (js/shared/children.ts says why not through the host's views), so frames, readout
 * and panels work exactly as in a single viewer. The comparison moves the
 * children by setting their model's `step` in the browser only, never saving it:
 * no kernel round trip per frame, and no kernel echo that could move a child back.
 * The children's own controls are hidden and their keys handled here.
 */
import { type ChildView, childModel, mountChild } from "../shared/children.ts";
import viewer from "../viewer/widget.ts";
import { Alignment, endLabel, gridColumns, minCellWidth, toInt32 } from "./layout.ts";
import { drawSwatch, lineColor, ReturnsChart } from "./chart.ts";
import { Controls, keyAction } from "../shared/controls.ts";
import { formatFixed, seriesDecimals } from "../shared/numbers.ts";
import { button, el } from "../shared/dom.ts";
import { ModelListeners } from "../shared/listeners.ts";
import { Player } from "../shared/player.ts";
import { parseSeries, type Series } from "../shared/series.ts";
import { SharedScales } from "../shared/shared-scales.ts";
import { onAppearanceChange, readPalette } from "../shared/theme.ts";
import { Throttle } from "../shared/throttle.ts";
import type { Model } from "../shared/types.ts";
import { parseState, WhatIfBar } from "./what-if.ts";

const SAVE_INTERVAL_MS = 50;
const SAVE_INTERVAL_PLAYING_MS = 250;

interface Child {
  model: Model;
  view: ChildView;
  /** The child's cell, edged in its line's colour. */
  cell: HTMLDivElement;
  series: Series;
  length: number;
  ended: HTMLDivElement;
}

type Origin = "user" | "model" | "player";

class CompareView {
  private readonly root: HTMLDivElement;
  private readonly title: HTMLDivElement;
  private readonly grid: HTMLDivElement;
  private readonly status: HTMLDivElement;
  private readonly controls: Controls;
  private readonly chart: ReturnsChart;
  private readonly legend: HTMLDivElement;
  private readonly jump: HTMLButtonElement;
  private readonly whatIf: WhatIfBar;
  private readonly player: Player;
  private readonly saveStep: Throttle;
  private readonly resizeObserver: ResizeObserver;
  private readonly stopWatchingTheme: () => void;
  /** The value axis cards of one panel share across the columns (the `shared_scales` trait). */
  private readonly scales: SharedScales;
  private readonly listeners: ModelListeners;
  private children: Child[] = [];
  private alignment = new Alignment([], []);
  private step = -1;
  private disposed = false;
  /** Bumped by each attachChildren call, so an older one that resolves late draws nothing. */
  private attachVersion = 0;

  constructor(
    private readonly model: Model,
    parent: HTMLElement,
  ) {
    this.root = parent.appendChild(el("div", "aw-compare"));
    this.root.tabIndex = 0;
    this.root.dataset.lmSuppressShortcuts = "true";
    this.root.dataset.pSuppressShortcuts = "true";
    this.title = this.root.appendChild(el("div", "aw-title"));
    this.grid = this.root.appendChild(el("div", "aw-compare-grid"));
    this.grid.textContent = "loading…";
    this.scales = new SharedScales(Boolean(model.get("shared_scales")));
    this.scales.provide(this.grid);
    const shared = this.root.appendChild(el("div", "aw-shared"));
    this.controls = new Controls(shared, this.root, {
      seek: (t) => this.userGo(t),
      stepBy: (delta) => this.userGo(this.step + delta),
      togglePlay: () => this.togglePlay(),
      setFps: (fps) => this.saveTrait("fps", fps),
      setLoop: (loop) => this.saveTrait("loop", loop),
    });
    this.chart = new ReturnsChart(shared, (t) => this.userGo(t), { titles: { x: "step", y: "return" } });
    this.chart.element.setAttribute("role", "img");
    const footer = shared.appendChild(el("div", "aw-compare-footer"));
    this.legend = footer.appendChild(el("div", "aw-legend"));
    this.jump = footer.appendChild(button("aw-jump-divergence", "", "Go to the first step where the actions differ"));
    this.jump.addEventListener("click", () => {
      const t = this.divergence;
      if (t !== null) this.userGo(t);
    });
    this.whatIf = new WhatIfBar(shared, model);
    this.status = this.root.appendChild(el("div", "aw-status"));
    // Keys pressed inside a child view drive the comparison, not that child alone.
    this.root.addEventListener("keydown", this.onChildKey, { capture: true });

    this.player = new Player({
      ready: () => this.childrenPainted(),
      show: (t) => this.go(t, "player"),
      ended: () => this.pause(),
    });
    this.saveStep = new Throttle(
      () => {
        model.set("step", this.step);
        model.save_changes();
      },
      () => (this.player.playing ? SAVE_INTERVAL_PLAYING_MS : SAVE_INTERVAL_MS),
    );
    this.resizeObserver = new ResizeObserver(() => this.layout());
    this.resizeObserver.observe(this.root);
    this.stopWatchingTheme = onAppearanceChange(() => this.colorLegend());

    this.listeners = new ModelListeners(model);
    this.listeners.on("change:step", () => this.go(Number(model.get("step")) || 0, "model"));
    this.listeners.on("change:fps", () => this.onPlayback());
    this.listeners.on("change:loop", () => this.onPlayback());
    this.listeners.on("change:columns", () => this.layout());
    this.listeners.on("change:title", () => this.onTitle());
    this.listeners.on("change:shared_scales", () => this.scales.setEnabled(Boolean(model.get("shared_scales"))));
    this.listeners.on("change:what_if", () => this.whatIf.show(parseState(model.get("what_if"))));
    // A what-if's branch adds a viewer: the grid is laid out again with every child.
    this.listeners.on("change:viewers", () => this.attachChildren().catch((error: Error) => this.report(error)));
    this.whatIf.show(parseState(model.get("what_if")));
    this.onTitle();
    this.onPlayback();
    this.controls.setLength(this.length);
    this.controls.setPlaying(false);
    this.attachChildren().catch((error: Error) => this.report(error));
  }

  dispose(): void {
    this.disposed = true;
    this.player.pause();
    this.saveStep.flush();
    this.controls.dispose();
    this.chart.dispose();
    this.resizeObserver.disconnect();
    this.stopWatchingTheme();
    this.root.removeEventListener("keydown", this.onChildKey, { capture: true });
    this.listeners.dispose();
    for (const child of this.children) child.view.remove();
    this.root.remove();
  }

  private get length(): number {
    return Math.max(0, Math.floor(Number(this.model.get("length")) || 0));
  }

  private get divergence(): number | null {
    const t = this.model.get("divergence");
    return typeof t === "number" ? t : null;
  }

  /** Draws each child viewer in a cell of the grid, then shows the step. */
  private async attachChildren(): Promise<void> {
    const version = ++this.attachVersion;
    const refs = this.model.get("viewers") as string[];
    const models = await Promise.all(refs.map((ref) => childModel(this.model, ref)));
    // A newer call (the viewers changed again meanwhile) draws the grid instead.
    if (this.disposed || version !== this.attachVersion) return;
    for (const child of this.children) child.view.remove();
    this.controls.setLength(this.length);
    this.step = -1; // shown again below, every child at its position
    this.grid.textContent = "";
    const views = models.map((child) => mountChild(child, viewer.render));
    this.children = models.map((model, i) => {
      const cell = this.grid.appendChild(el("div", "aw-cell"));
      cell.appendChild(views[i].el);
      const ended = cell.appendChild(el("div", "aw-ended"));
      const length = Math.max(0, Math.floor(Number(model.get("length")) || 0));
      return { model, view: views[i], cell, series: parseSeries(model.get("series"), length), length, ended };
    });
    const maps = (this.model.get("positions") as unknown[]).map(toInt32);
    this.alignment = new Alignment(
      maps,
      this.children.map((c) => c.length),
    );
    this.showLegend();
    this.chart.setData(
      this.children.map((c, i) => this.alignment.aligned(i, c.series.returns, this.length)),
      this.labels,
      this.length,
      this.divergence,
    );
    this.jump.hidden = this.divergence === null;
    this.jump.textContent = `Jump to divergence (t = ${this.divergence})`;
    this.layout();
    this.go(Number(this.model.get("step")) || 0, "model");
  }

  /** Each episode's label, as the legend and the hover name it. */
  private get labels(): string[] {
    const labels = (this.model.get("labels") as string[] | undefined) ?? [];
    return this.children.map((_, i) => labels[i] ?? String(i));
  }

  private showLegend(): void {
    const labels = this.labels;
    this.legend.textContent = "";
    this.children.forEach((child, i) => {
      const label = labels[i];
      const swatch = el("canvas", "aw-swatch");
      swatch.setAttribute("role", "img");
      swatch.setAttribute("aria-label", `Line of ${label} in the returns chart`);
      const total = child.series.returns[child.series.returns.length - 1] ?? 0;
      const text = `${label}: return ${formatFixed(total, seriesDecimals(child.series.returns))}`; // as its readout
      this.legend.appendChild(this.chart.toggles.button(i, swatch, text)).classList.add("aw-legend-item");
    });
    this.chart.element.setAttribute("aria-label", `Returns of ${labels.join(", ")} by step (click to go to a step)`);
    this.colorLegend();
  }

  /**
   * Each swatch a stretch of its line, colour and dash, in the current theme, and each
   * cell edged in that colour: one colour per run in the chart, the legend and the grid.
   */
  private colorLegend(): void {
    const palette = readPalette(this.root);
    this.legend.querySelectorAll<HTMLCanvasElement>(".aw-swatch").forEach((swatch, i) => drawSwatch(swatch, i, palette));
    this.children.forEach((child, i) => child.cell.style.setProperty("--aw-run-color", lineColor(i, palette)));
  }

  private layout(): void {
    const fixed = Math.max(0, Math.floor(Number(this.model.get("columns")) || 0));
    const width = this.root.clientWidth;
    const columns = gridColumns(this.children.length, width, minCellWidth(width), fixed);
    this.grid.style.gridTemplateColumns = `repeat(${columns}, minmax(0, 1fr))`;
  }

  private userGo(t: number): void {
    if (this.player.playing) this.pause();
    this.go(t, "user");
  }

  /** Shows shared position `t`: every child at its aligned position, ended ones labelled. */
  private go(t: number, origin: Origin): void {
    const length = this.length;
    if (length === 0 || this.children.length === 0) return;
    t = Math.max(0, Math.min(length - 1, Math.round(Number.isFinite(t) ? t : 0)));
    if (t === this.step && origin !== "player") return;
    this.step = t;
    if (origin === "model" && this.player.playing) this.startPlayback();
    this.controls.setStep(t);
    this.whatIf.setStep(t, this.takenAt(t));
    this.chart.setCursor(t);
    this.children.forEach((child, i) => {
      const position = this.alignment.at(i, t);
      child.model.set("step", position);
      child.ended.textContent = endLabel(child.series, position, child.length);
    });
    this.root.dataset.step = String(t);
    if (origin !== "model") this.saveStep.call();
  }

  /**
   * The action the first episode (the one `what_if()` branches) took at shared step
   * `t`, from its series; null past its last action or where its series holds no
   * actions (a summarized long episode).
   */
  private takenAt(t: number): number | null {
    const first = this.children[0];
    if (first === undefined) return null;
    const actions = first.series.actions;
    const position = this.alignment.at(0, t);
    return actions !== undefined && position < actions.length ? actions[position] : null;
  }

  /** Whether every child has painted the position it was last sent to (playback waits for it). */
  private childrenPainted(): boolean {
    return this.children.every((child) => {
      const root = child.view.el.querySelector<HTMLElement>(".agent-widget");
      return root === null || root.dataset.paintedStep === String(child.model.get("step"));
    });
  }

  private togglePlay(): void {
    if (this.player.playing) {
      this.pause();
      return;
    }
    if (!this.loop && this.step >= this.length - 1) this.go(0, "user");
    this.startPlayback();
  }

  private get loop(): boolean {
    return Boolean(this.model.get("loop"));
  }

  private startPlayback(): void {
    if (this.length === 0) return;
    const fps = Number(this.model.get("fps")) || 30;
    this.player.play(this.step, { fps, length: this.length, loop: this.loop });
    this.controls.setPlaying(true);
  }

  private pause(): void {
    this.player.pause();
    this.controls.setPlaying(false);
    this.root.dataset.droppedFrames = String(this.player.droppedFrames);
  }

  private onPlayback(): void {
    this.controls.setFps(Number(this.model.get("fps")) || 30);
    this.controls.setLoop(this.loop);
    if (this.player.playing) this.startPlayback();
  }

  private saveTrait(name: string, value: unknown): void {
    this.model.set(name, value);
    this.model.save_changes();
  }

  private onTitle(): void {
    const title = String(this.model.get("title") ?? "");
    this.title.textContent = title;
    this.title.hidden = title === "";
  }

  /** A step key pressed inside a child view goes to the shared controls instead of that child. */
  private readonly onChildKey = (event: KeyboardEvent): void => {
    const target = event.target as HTMLElement;
    if (!this.grid.contains(target) || target.tagName === "INPUT") return;
    if (keyAction(event.key, event.shiftKey) === null) return;
    event.stopPropagation();
    event.preventDefault();
    const { key, shiftKey, altKey, ctrlKey, metaKey } = event;
    this.root.dispatchEvent(new KeyboardEvent("keydown", { key, shiftKey, altKey, ctrlKey, metaKey, bubbles: true }));
  };

  private report(error: Error): void {
    console.warn("agent-widget compare:", error);
    this.status.textContent = `Could not show the comparison: ${error.message}`;
  }
}

function render({ model, el }: { model: Model; el: HTMLElement }): () => void {
  const view = new CompareView(model, el);
  return () => view.dispose();
}

export default { render };
