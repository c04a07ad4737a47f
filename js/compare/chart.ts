/**
 * The comparison's shared timeline: each episode's return as a line in its own
 * colour and dash, all on one value axis of nice ticks so that they compare, a step
 * axis under it, faint gridlines, the cursor, and the first step where the actions
 * differ marked. The axes' labels are text beside the plot (js/shared/chart-frame.ts),
 * so neither a line nor the divergence mark ever runs through them. Clicking or
 * dragging seeks.
 *
 * Lines that overlap (two agents that both score 0) stay apart: each draws with its
 * own dash pattern over the ones before, so the earlier line shows through the gaps.
 */
import { stepTicks, tickLabels, valueAxis, type ValueAxis } from "../shared/axis.ts";
import { ChartFrame, valueLabels } from "../shared/chart-frame.ts";
import { binMinMax } from "../shared/columns.ts";
import { cursorX, Strip } from "../shared/strip.ts";
import type { Palette } from "../shared/theme.ts";
import { drawDivergence, drawGrid, drawLine, INSET, yOnAxis } from "../shared/timeline-draw.ts";

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

export class ReturnsChart {
  private readonly frame: ChartFrame;
  private readonly strip: Strip;
  private lines: Float64Array[] = [];
  private length = 0;
  private divergence: number | null = null;
  private axis: ValueAxis = valueAxis(0, 1, 3);

  constructor(
    parent: HTMLElement,
    onSeek: (t: number) => void,
    /** The step axis's labels, from its ticks' positions (default: the positions). */
    private readonly stepLabels: (ticks: number[]) => string[] = tickLabels,
  ) {
    this.frame = new ChartFrame(parent, "aw-compare-chart-frame");
    const cursor = (palette: Palette) => palette.playhead; // every widget's (base.css)
    this.strip = new Strip(this.frame.plot, "aw-compare-chart", HEIGHT, cursor, (c, width, _height, ratio, palette) => {
      this.drawGridAndSteps(c, width, ratio, palette);
      const y = yOnAxis(CHART_BAND, this.axis, ratio);
      this.lines.forEach((values, i) => {
        c.setLineDash(lineDash(i, ratio));
        drawLine(c, binMinMax(values, this.length, width), y, lineColor(i, palette), 1.5 * ratio);
      });
      c.setLineDash([]);
    }, onSeek, (c, width, _height, ratio, palette) => {
      // Over the cursor; the axes' labels sit outside the plot.
      if (this.divergence !== null) drawDivergence(c, cursorX(this.divergence, width, this.length), ratio, palette);
    });
    this.strip.element.title = "return of each episode (legend below); dashed mark: the first step where their actions differ";
  }

  get element(): HTMLCanvasElement {
    return this.strip.element;
  }

  /** `lines[i]` is episode i's return at each of the `length` shared positions. */
  setData(lines: Float64Array[], length: number, divergence: number | null): void {
    this.lines = lines;
    this.length = length;
    this.divergence = divergence;
    const { lo, hi } = sharedRange(lines);
    this.axis = valueAxis(lo, hi, 3);
    this.frame.setValues("left", valueLabels(this.axis, CHART_BAND));
    this.strip.setLength(length);
  }

  setCursor(t: number): void {
    this.strip.setCursor(t);
  }

  dispose(): void {
    this.strip.dispose();
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
