/**
 * The returns chart of a comparison (each episode's return by step) and of a
 * checkpoint viewer (each seed's evaluation return by checkpoint): each line in its own
 * colour and dash, all on one value axis of nice ticks so that they compare, a step
 * axis under it, axis titles, faint gridlines, the cursor, and the first step where the
 * actions differ marked. The axes' labels are text beside the plot
 * (js/shared/chart-frame.ts), so neither a line nor the divergence mark ever runs
 * through them. Clicking or dragging seeks; hovering shows each line's value there
 * (js/shared/hover.ts); a legend entry made by `toggles` hides its line.
 *
 * Lines that overlap (two agents that both score 0) stay apart: each draws with its
 * own dash pattern over the ones before, so the earlier line shows through the gaps.
 * A few positions (checkpoints) are drawn as points joined by straight lines.
 */
import { stepTicks, tickLabels, valueAxis, type ValueAxis } from "../shared/axis.ts";
import { ChartFrame, valueLabels } from "../shared/chart-frame.ts";
import { binMinMax } from "../shared/columns.ts";
import { el } from "../shared/dom.ts";
import { Hover, type HoverValue } from "../shared/hover.ts";
import { SeriesToggles } from "../shared/legend-toggle.ts";
import { cursorX, positionAt, Strip } from "../shared/strip.ts";
import { type Palette, readPalette } from "../shared/theme.ts";
import { drawDivergence, drawGrid, drawLine, INSET, type YOf, yOnAxis } from "../shared/timeline-draw.ts";

const HEIGHT = 72;
/** Each episode's colour (Tableau's ten), and lighter variants that keep their contrast on a dark theme. */
export const PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf"];
export const DARK_PALETTE = ["#5fa8e8", "#ffa04d", "#5fd35f", "#ff6b6b", "#c0a0e8", "#c99a86", "#f7a1d8", "#4fdbe8"];
/** Each episode's dash pattern (CSS px): solid, dashed, dotted, dash-dot, then again. */
export const DASHES: readonly (readonly number[])[] = [[], [7, 4], [2, 3], [9, 3, 2, 3]];
/** Where the value axis runs, CSS pixels from the plot's top. */
const CHART_BAND = { top: INSET, height: HEIGHT - 2 * INSET };

/** Episode `i`'s colour in a theme. */
export function lineColor(i: number, palette: Palette): string {
  const colors = palette.dark ? DARK_PALETTE : PALETTE;
  return colors[i % colors.length];
}

/** Episode `i`'s dash pattern at `ratio` device pixels per CSS pixel. */
export function lineDash(i: number, ratio: number): number[] {
  return DASHES[i % DASHES.length].map((d) => d * ratio);
}

/** The lowest and highest value over all lines, NaN skipped ({lo: Infinity, ...} when none). */
export function sharedRange(lines: readonly Float64Array[]): { lo: number; hi: number } {
  let lo = Number.POSITIVE_INFINITY;
  let hi = Number.NEGATIVE_INFINITY;
  for (const values of lines) {
    for (const v of values) {
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
  }
  return { lo, hi };
}

/** A legend swatch: a short stretch of episode `i`'s line, drawn on `canvas` (CSS `width` x `height`). */
export function drawSwatch(canvas: HTMLCanvasElement, i: number, palette: Palette, width = 24, height = 8): void {
  const ratio = window.devicePixelRatio || 1;
  canvas.width = Math.round(width * ratio);
  canvas.height = Math.round(height * ratio);
  canvas.style.width = `${width}px`;
  canvas.style.height = `${height}px`;
  const c = canvas.getContext("2d")!;
  c.strokeStyle = lineColor(i, palette);
  c.lineWidth = 2 * ratio;
  c.setLineDash(lineDash(i, ratio));
  c.beginPath();
  c.moveTo(0, canvas.height / 2);
  c.lineTo(canvas.width, canvas.height / 2);
  c.stroke();
}

/** The points' radius, CSS pixels. */
const POINT_RADIUS = 3;

/**
 * `values` as points at their positions' centres joined by straight lines (a NaN, a
 * position not evaluated, breaks the line), each point a dot.
 */
export function drawPoints(c: CanvasRenderingContext2D, values: Float64Array, width: number, y: YOf, color: string, ratio: number): void {
  const x = (i: number) => cursorX(i, width, values.length);
  c.strokeStyle = color;
  c.lineWidth = 1.5 * ratio;
  c.beginPath();
  values.forEach((v, i) => {
    if (Number.isNaN(v)) return;
    if (i > 0 && !Number.isNaN(values[i - 1])) c.lineTo(x(i), y(v));
    else c.moveTo(x(i), y(v));
  });
  c.stroke();
  c.fillStyle = color;
  values.forEach((v, i) => {
    if (Number.isNaN(v)) return;
    c.beginPath();
    c.arc(x(i), y(v), POINT_RADIUS * ratio, 0, 2 * Math.PI);
    c.fill();
  });
}

export interface ReturnsChartOptions {
  /** The axes' titles: under the step axis (`x`), above the value axis (`y`). */
  titles: { x: string; y: string };
  /** The step axis's labels, from its ticks' positions (default: the positions). */
  stepLabels?: (ticks: number[]) => string[];
  /** What the hover box calls a position (default "step 12"). */
  heading?: (t: number) => string;
  /** Points at the positions joined by straight lines, for a few positions (checkpoints). */
  points?: boolean;
}

export class ReturnsChart {
  /** Which lines are shown: a legend entry made by `toggles.button(i, ...)` hides line i. */
  readonly toggles: SeriesToggles<number>;
  private readonly frame: ChartFrame;
  private readonly strip: Strip;
  private readonly hover: Hover;
  private lines: Float64Array[] = [];
  private names: string[] = [];
  private length = 0;
  private divergence: number | null = null;
  private axis: ValueAxis = valueAxis(0, 1, 3);
  private readonly stepLabels: (ticks: number[]) => string[];

  constructor(parent: HTMLElement, onSeek: (t: number) => void, options: ReturnsChartOptions) {
    this.stepLabels = options.stepLabels ?? tickLabels;
    const yTitle = parent.appendChild(el("div", "aw-axis-title aw-axis-title-y"));
    yTitle.textContent = options.titles.y;
    this.frame = new ChartFrame(parent, "aw-compare-chart-frame");
    const xTitle = parent.appendChild(el("div", "aw-axis-title aw-axis-title-x"));
    xTitle.textContent = options.titles.x;
    const cursor = (palette: Palette) => palette.playhead; // every widget's (base.css)
    this.strip = new Strip(this.frame.plot, "aw-compare-chart", HEIGHT, cursor, (c, width, _height, ratio, palette) => {
      this.drawGridAndSteps(c, width, ratio, palette);
      const y = yOnAxis(CHART_BAND, this.axis, ratio);
      this.lines.forEach((values, i) => {
        if (!this.toggles.isShown(i)) return;
        c.setLineDash(lineDash(i, ratio));
        if (options.points) drawPoints(c, values.subarray(0, this.length), width, y, lineColor(i, palette), ratio);
        else drawLine(c, binMinMax(values, this.length, width), y, lineColor(i, palette), 1.5 * ratio);
      });
      c.setLineDash([]);
    }, onSeek, (c, width, _height, ratio, palette) => {
      // Over the cursor; the axes' labels sit outside the plot.
      if (this.divergence !== null) drawDivergence(c, cursorX(this.divergence, width, this.length), ratio, palette);
    });
    this.strip.element.title = "return of each episode (legend below); dashed mark: the first step where their actions differ";
    const heading = options.heading ?? ((t: number) => `step ${t}`);
    this.hover = new Hover(this.frame, {
      positionAt: (x, width) => (this.length > 0 ? positionAt(x, width, this.length) : null),
      xOf: (t, width) => cursorX(t, width, this.length),
      heading,
      values: (t) => this.valuesAt(t),
    });
    this.toggles = new SeriesToggles(() => {
      this.strip.redraw();
      this.hover.refresh();
    });
  }

  get element(): HTMLCanvasElement {
    return this.strip.element;
  }

  /** `lines[i]` is line i's value (`names[i]`'s) at each of the `length` shared positions. */
  setData(lines: Float64Array[], names: string[], length: number, divergence: number | null): void {
    this.lines = lines;
    this.names = names;
    this.length = length;
    this.divergence = divergence;
    const { lo, hi } = sharedRange(lines);
    this.axis = valueAxis(lo, hi, 3);
    this.frame.setValues("left", valueLabels(this.axis, CHART_BAND));
    this.strip.setLength(length);
    this.hover.refresh();
  }

  setCursor(t: number): void {
    this.strip.setCursor(t);
  }

  dispose(): void {
    this.hover.dispose();
    this.strip.dispose();
  }

  /** Each shown line's value at position `t` (none where it has ended or was not evaluated). */
  private valuesAt(t: number): HoverValue[] {
    const palette = readPalette(this.strip.element);
    return this.lines.flatMap((values, i) => {
      if (!this.toggles.isShown(i)) return [];
      const value = values[t];
      return [{ name: this.names[i] ?? String(i), color: lineColor(i, palette), value: Number.isNaN(value) ? undefined : value }];
    });
  }

  /** Faint gridlines at the value ticks and at nice steps, and the steps' labels under the plot. */
  private drawGridAndSteps(c: CanvasRenderingContext2D, width: number, ratio: number, palette: Palette): void {
    const ticks = stepTicks(0, this.length, width / ratio);
    const xs = ticks.map((t) => cursorX(t, width, Math.max(1, this.length)));
    drawGrid(c, this.axis.ticks.map(yOnAxis(CHART_BAND, this.axis, ratio)), xs, ratio, palette);
    const labels = this.stepLabels(ticks);
    this.frame.setSteps(ticks.map((_, i) => ({ label: labels[i], x: xs[i] / width })));
  }
}
