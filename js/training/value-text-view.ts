/**
 * The text over and beside a value map: the cells' letters on a canvas
 * laid over the frame, at the frame's shown size times the device pixel ratio, and the
 * colour bar beside it, its ends written as DOM text in the theme's colours on the
 * page's own background. Both follow the painted position (its scale's ends), the
 * frame's shown size, the theme and the pixel ratio.
 *
 * They are placed in a child viewer's stage (the timeline's, the played episode's),
 * where overlays go (js/viewer/widget.css `.aw-stage`), and read its frame canvas and
 * painted step, the same attributes tests read; nothing is written over a frame that
 * is not a value map (a placeholder message).
 */
import { el } from "../shared/dom.ts";
import { onAppearanceChange } from "../shared/theme.ts";
import { type CellLabel, frameSize, type Grid, placeLabels, scaleText } from "./value-text.ts";

/** Colours of the letters, as the kernel's: black with a white halo, readable on every colour of the scale. */
const INK = "#000";
const HALO = "#fff";

export class ValueMapText {
  private readonly labelsCanvas: HTMLCanvasElement;
  private readonly bar: HTMLDivElement;
  private readonly ramp: HTMLCanvasElement;
  private readonly high: HTMLSpanElement;
  private readonly low: HTMLSpanElement;
  private readonly mutations: MutationObserver;
  private readonly resizes: ResizeObserver;
  private readonly stopWatching: () => void;
  private grid: Grid | undefined;
  private labels: CellLabel[] = [];
  private scaleOf: (position: number) => [number, number] | undefined = () => undefined;

  constructor(
    private readonly viewerRoot: HTMLElement,
    private readonly stage: HTMLElement,
    private readonly frame: HTMLCanvasElement,
  ) {
    this.labelsCanvas = stage.appendChild(el("canvas", "aw-overlay aw-cell-labels"));
    // Part of the frame's picture, which the frame canvas names for screen readers.
    this.labelsCanvas.setAttribute("aria-hidden", "true");
    this.bar = stage.appendChild(el("div", "aw-colour-bar"));
    this.bar.setAttribute("role", "img");
    this.bar.hidden = true; // until a position's ends are known
    this.ramp = this.bar.appendChild(el("canvas", "aw-colour-ramp"));
    this.ramp.setAttribute("aria-hidden", "true"); // the bar (role img) names the scale
    const ends = this.bar.appendChild(el("div", "aw-colour-ends"));
    this.high = ends.appendChild(el("span", "aw-scale-high"));
    this.low = ends.appendChild(el("span", "aw-scale-low"));
    stage.classList.add("aw-with-colour-bar");
    this.mutations = new MutationObserver(() => this.draw());
    this.mutations.observe(viewerRoot, { attributes: true, attributeFilter: ["data-painted-step"] });
    this.mutations.observe(frame, { attributes: true, attributeFilter: ["width", "height", "data-shows", "style"] });
    this.resizes = new ResizeObserver(() => this.draw());
    this.resizes.observe(this.labelsCanvas);
    this.stopWatching = onAppearanceChange(() => this.draw());
    this.draw();
  }

  /** The colour table (256 RGB colours, low to high), drawn into the bar once. */
  setLut(lut: Uint8Array): void {
    const levels = Math.floor(lut.length / 3);
    this.ramp.width = 1;
    this.ramp.height = Math.max(1, levels);
    const pixels = new ImageData(1, this.ramp.height);
    for (let i = 0; i < levels; i++) {
      const row = levels - 1 - i; // high at the top
      pixels.data.set([lut[3 * i], lut[3 * i + 1], lut[3 * i + 2], 255], 4 * row);
    }
    this.ramp.getContext("2d")?.putImageData(pixels, 0, 0);
  }

  /** What to write: the grid's letters, and the colour scale's ends (low, high) of a position. */
  set(grid: Grid | undefined, labels: CellLabel[], scaleOf: (position: number) => [number, number] | undefined): void {
    this.grid = grid;
    this.labels = labels;
    this.scaleOf = scaleOf;
    this.draw();
  }

  dispose(): void {
    this.mutations.disconnect();
    this.resizes.disconnect();
    this.stopWatching();
    this.labelsCanvas.remove();
    this.bar.remove();
    this.stage.classList.remove("aw-with-colour-bar");
  }

  /** The position whose value map the frame canvas shows, or undefined (none, or a message). */
  private shownPosition(): number | undefined {
    const step = Number(this.viewerRoot.dataset.paintedStep ?? -1);
    const grid = this.grid;
    if (grid === undefined || !(step >= 0) || this.frame.dataset.shows !== "frame") return undefined;
    const size = frameSize(grid);
    return this.frame.width === size.width && this.frame.height === size.height ? step : undefined;
  }

  private draw(): void {
    const step = this.shownPosition();
    this.drawLabels(step !== undefined);
    if (step === undefined) {
      this.bar.hidden = true;
      return;
    }
    // A new position's ends come at most 0.1 s after it (agent_widget/gridworld/_training.py
    // SCALES_INTERVAL): meanwhile the bar keeps the last ones (data-position says whose).
    const scale = this.scaleOf(step);
    if (scale === undefined) return;
    this.bar.hidden = false;
    const [low, high] = scale;
    this.high.textContent = scaleText(high);
    this.low.textContent = scaleText(low);
    this.bar.dataset.position = String(step);
    this.bar.setAttribute("aria-label", `colour scale of the values: ${scaleText(low)} (bottom) to ${scaleText(high)} (top)`);
  }

  /** The cells' letters at the canvas's shown size times the pixel ratio (cleared when `shown` is false). */
  private drawLabels(shown: boolean): void {
    const canvas = this.labelsCanvas;
    const box = canvas.getBoundingClientRect();
    const ratio = window.devicePixelRatio || 1;
    const width = Math.round(box.width * ratio);
    const height = Math.round(box.height * ratio);
    if (canvas.width !== width || canvas.height !== height) {
      canvas.width = width;
      canvas.height = height;
    }
    const context = canvas.getContext("2d");
    if (context === null) return;
    context.setTransform(1, 0, 0, 1, 0, 0);
    context.clearRect(0, 0, width, height);
    const drawn = shown && this.grid !== undefined && box.width > 0;
    canvas.dataset.labels = String(drawn ? this.labels.length : 0); // how many are written, for tests
    if (!drawn || this.grid === undefined) return;
    // CSS pixels from here on: the canvas may be a fraction of a pixel off the ratio.
    context.setTransform(width / box.width, 0, 0, height / box.height, 0, 0);
    context.lineJoin = "round";
    for (const label of placeLabels(this.grid, this.labels, box.width)) {
      context.font = `600 ${label.size}px sans-serif`;
      context.textAlign = label.align;
      context.textBaseline = label.baseline;
      context.lineWidth = Math.max(2, label.size / 5);
      context.strokeStyle = HALO;
      context.strokeText(label.text, label.x, label.y);
      context.fillStyle = INK;
      context.fillText(label.text, label.x, label.y);
    }
  }
}
