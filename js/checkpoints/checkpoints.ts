/**
 * The anywidget entry point of CheckpointViewer: the evaluation returns over training
 * (one line per seed, compare/chart.ts's chart, its cursor on the checkpoint shown), a
 * training-step control and a seed chooser, the first step where the checkpoint acts
 * differently from the one before (a button going there), and the episode of the
 * checkpoint shown: an EpisodeViewer the kernel swaps on each change, drawn with the
 * viewer's own render function (js/shared/children.ts says why), so frames, timeline
 * and panels are the viewer's. Every string is written with textContent.
 */
import { drawSwatch, ReturnsChart } from "../compare/chart.ts";
import { type ChildView, ChildTrait, mountChild } from "../shared/children.ts";
import { button, el, input } from "../shared/dom.ts";
import { ModelListeners } from "../shared/listeners.ts";
import { onAppearanceChange, readPalette } from "../shared/theme.ts";
import type { Model } from "../shared/types.ts";
import viewer from "../viewer/widget.ts";
import { integers, returnLines, seedLabel, stepLabel, trainingStepLabels } from "./runs.ts";

class CheckpointView {
  private readonly root: HTMLDivElement;
  private readonly title: HTMLDivElement;
  private readonly chart: ReturnsChart;
  private readonly legend: HTMLDivElement;
  private readonly slider: HTMLInputElement;
  private readonly label: HTMLSpanElement;
  private readonly seeds: HTMLSelectElement;
  private readonly jump: HTMLButtonElement;
  private readonly message: HTMLDivElement;
  private readonly slot: HTMLDivElement;
  private readonly listeners: ModelListeners;
  private readonly stopWatchingTheme: () => void;
  private episode: ChildView | undefined;
  private episodeModel: Model | undefined;
  /** Bumped on each change of the episode, so a slow model lookup never shows a stale one. */
  private readonly episodeChild: ChildTrait;
  private disposed = false;

  constructor(
    private readonly model: Model,
    parent: HTMLElement,
  ) {
    this.episodeChild = new ChildTrait(model, "episode");
    this.root = parent.appendChild(el("div", "aw-checkpoints"));
    this.title = this.root.appendChild(el("div", "aw-title"));
    // Its positions are the checkpoints, labelled with their training steps.
    this.chart = new ReturnsChart(this.root, (i) => this.choose(i), {
      titles: { x: "training step", y: "evaluation return" },
      stepLabels: (ticks) => trainingStepLabels(this.steps, ticks),
      heading: (i) => stepLabel(this.steps, i),
      points: true,
    });
    this.chart.element.setAttribute("role", "img");
    this.chart.element.title = "evaluation return of each seed over training; cursor: the checkpoint shown (click to choose one)";
    this.legend = this.root.appendChild(el("div", "aw-legend"));
    const bar = this.root.appendChild(el("div", "aw-toolbar aw-checkpoint-controls"));
    const back = bar.appendChild(button("aw-checkpoint-back", "◀", "The checkpoint before"));
    this.slider = bar.appendChild(input("aw-checkpoint-slider", "range"));
    this.slider.min = "0";
    this.slider.step = "1";
    this.slider.setAttribute("aria-label", "Checkpoint (training step)");
    const next = bar.appendChild(button("aw-checkpoint-next", "▶", "The checkpoint after"));
    this.label = bar.appendChild(el("span", "aw-checkpoint-label"));
    this.seeds = bar.appendChild(el("select", "aw-seed"));
    this.seeds.setAttribute("aria-label", "Seed of the episode shown");
    this.jump = bar.appendChild(button("aw-jump-divergence", "", "Go to the first step where this checkpoint acts differently from the one before"));
    this.message = this.root.appendChild(el("div", "aw-message"));
    this.message.setAttribute("role", "status");
    this.slot = this.root.appendChild(el("div", "aw-checkpoint-episode"));

    back.addEventListener("click", () => this.choose(this.index - 1));
    next.addEventListener("click", () => this.choose(this.index + 1));
    this.slider.addEventListener("input", () => this.choose(Number(this.slider.value)));
    this.seeds.addEventListener("change", () => this.save("seed", Number(this.seeds.value)));
    this.jump.addEventListener("click", () => this.goToDivergence());
    this.stopWatchingTheme = onAppearanceChange(() => this.colorLegend());

    this.listeners = new ModelListeners(model);
    for (const name of ["training_steps", "returns", "seeds"]) this.listeners.on(`change:${name}`, () => this.showRun());
    this.listeners.on("change:checkpoint", () => this.showCheckpoint());
    this.listeners.on("change:seed", () => this.showSeed());
    this.listeners.on("change:divergence", () => this.showDivergence());
    this.listeners.on("change:message", () => (this.message.textContent = String(model.get("message") ?? "")));
    this.listeners.on("change:title", () => (this.title.textContent = String(model.get("title") ?? "")));
    this.listeners.on("change:episode", () => void this.showEpisode());
    this.title.textContent = String(model.get("title") ?? "");
    this.message.textContent = String(model.get("message") ?? "");
    this.showRun();
    this.showDivergence();
    void this.showEpisode();
  }

  dispose(): void {
    this.disposed = true;
    this.listeners.dispose();
    this.stopWatchingTheme();
    this.chart.dispose();
    this.episode?.remove();
    this.root.remove();
  }

  private get steps(): number[] {
    return integers(this.model.get("training_steps"));
  }

  private get index(): number {
    return Number(this.model.get("checkpoint")) || 0;
  }

  private save(name: string, value: number): void {
    this.model.set(name, value);
    this.model.save_changes();
  }

  /** Checkpoint `i` (clamped) asked of the kernel, which swaps the episode. */
  private choose(i: number): void {
    const last = this.steps.length - 1;
    if (last < 0) return;
    const index = Math.min(Math.max(Math.round(i), 0), last);
    if (index !== this.index) this.save("checkpoint", index);
  }

  /** The chart, the slider's range, the seeds and the legend, from the run's traits. */
  private showRun(): void {
    const steps = this.steps;
    this.slider.max = String(Math.max(steps.length - 1, 0));
    this.slider.disabled = steps.length < 2;
    const seeds = integers(this.model.get("seeds"));
    this.chart.setData(returnLines(this.model.get("returns"), steps.length), seeds.map((seed) => `seed ${seed}`), steps.length, null);
    this.seeds.textContent = "";
    for (const seed of seeds) {
      const option = this.seeds.appendChild(el("option", ""));
      option.value = String(seed);
      option.textContent = `seed ${seed}`;
    }
    this.chart.element.setAttribute("aria-label", `Evaluation return over ${steps.length} checkpoints, one line per seed`);
    this.showCheckpoint();
    this.showSeed();
  }

  private showCheckpoint(): void {
    const steps = this.steps;
    const index = Math.min(this.index, Math.max(steps.length - 1, 0));
    this.slider.value = String(index);
    this.slider.setAttribute("aria-valuetext", stepLabel(steps, index));
    this.label.textContent = stepLabel(steps, index);
    this.chart.setCursor(index);
    this.showLegend(index);
  }

  private showSeed(): void {
    this.seeds.value = String(Number(this.model.get("seed")) || 0);
  }

  /** Each seed's swatch and its return at the checkpoint shown. */
  private showLegend(index: number): void {
    const seeds = integers(this.model.get("seeds"));
    const lines = returnLines(this.model.get("returns"), this.steps.length);
    this.legend.textContent = "";
    seeds.forEach((seed, i) => {
      const swatch = el("canvas", "aw-swatch");
      swatch.setAttribute("role", "img");
      swatch.setAttribute("aria-label", `Line of seed ${seed} in the returns chart`);
      const item = this.chart.toggles.button(i, swatch, seedLabel(seed, lines[i]?.[index]));
      this.legend.appendChild(item).classList.add("aw-legend-item");
    });
    this.colorLegend();
  }

  private colorLegend(): void {
    const palette = readPalette(this.root);
    this.legend.querySelectorAll<HTMLCanvasElement>(".aw-swatch").forEach((swatch, i) => drawSwatch(swatch, i, palette));
  }

  private get divergence(): number | null {
    const t = this.model.get("divergence");
    return typeof t === "number" ? t : null;
  }

  private showDivergence(): void {
    const t = this.divergence;
    this.jump.hidden = t === null;
    this.jump.textContent = t === null ? "" : `Acts differently from the checkpoint before at t = ${t}: go there`;
    if (t === null) delete this.root.dataset.divergence;
    else this.root.dataset.divergence = String(t);
  }

  /** The shown episode to the divergence step, as its own slider would move it. */
  private goToDivergence(): void {
    const t = this.divergence;
    if (t === null || this.episodeModel === undefined) return;
    this.episodeModel.set("step", t);
    this.episodeModel.save_changes();
  }

  private async showEpisode(): Promise<void> {
    const child = await this.episodeChild.latest();
    if (this.disposed || child === undefined) return;
    const previous = this.episode;
    this.episodeModel = child ?? undefined;
    this.episode = child === null ? undefined : mountChild(child, viewer.render);
    // The new episode goes in before the old one leaves: the page keeps its height.
    if (this.episode !== undefined) this.slot.appendChild(this.episode.el);
    previous?.remove();
  }
}

function render({ model, el }: { model: Model; el: HTMLElement }): () => void {
  const view = new CheckpointView(model, el);
  return () => view.dispose();
}

export default { render };
