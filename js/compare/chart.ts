/**
 * The comparison's shared timeline: each episode's return as a line in its own
 * colour and dash, all on one scale so that they compare, labelled with that scale's
 * ends, the cursor, and the first step where the actions differ marked. Clicking or
 * dragging seeks.
 *
 * Lines that overlap (two agents that both score 0) stay apart: each draws with its
 * own dash pattern over the ones before, so the earlier line shows through the gaps.
 */
import { formatNumber } from "../shared/numbers.ts";
import type { Palette } from "../shared/theme.ts";
import { binMinMax, cursorX, drawLine, Strip } from "../shared/timeline.ts";

const HEIGHT = 72;
/** Each episode's colour (Tableau's ten), and lighter variants that keep their contrast on a dark theme. */
export const PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf"];
export const DARK_PALETTE = ["#5fa8e8", "#ffa04d", "#5fd35f", "#ff6b6b", "#c0a0e8", "#c99a86", "#f7a1d8", "#4fdbe8"];
/** Each episode's dash pattern (CSS px): solid, dashed, dotted, dash-dot, then again. */
export const DASHES: readonly (readonly number[])[] = [[], [7, 4], [2, 3], [9, 3, 2, 3]];
const DIVERGENCE = { light: "#e91e63", dark: "#ff6fa5" };
const LABEL_FONT_PX = 10;

/** Episode `i`'s colour in a theme. */
export function lineColor(i: number, palette: Palette): string {
  const colors = palette.dark ? DARK_PALETTE : PALETTE;
  return colors[i % colors.length];
}

/** The colour marking the first step where the actions differ, in a theme. */
export function divergenceColor(palette: Palette): string {
  return palette.dark ? DIVERGENCE.dark : DIVERGENCE.light;
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
  private readonly strip: Strip;
  private lines: Float64Array[] = [];
  private length = 0;
  private divergence: number | null = null;
  private scale = { lo: Number.POSITIVE_INFINITY, hi: Number.NEGATIVE_INFINITY };

  constructor(parent: HTMLElement, onSeek: (t: number) => void) {
    // The cursor in the theme's text colour: visible on light and dark alike.
    const cursor = (palette: Palette) => palette.text;
    this.strip = new Strip(parent, "aw-compare-chart", HEIGHT, cursor, (c, width, height, ratio, palette) => {
      this.lines.forEach((values, i) => {
        const bins = binMinMax(values, this.length, width);
        c.setLineDash(lineDash(i, ratio));
        drawLine(c, bins, height, lineColor(i, palette), 1.5 * ratio, this.scale);
      });
      c.setLineDash([]);
    }, onSeek, (c, width, height, ratio, palette) => {
      // The scale's labels, then the divergence mark, over the cursor: the playhead
      // hides neither (the mark dashed, so it reads apart from the solid cursor).
      this.drawScale(c, height, ratio, palette);
      if (this.divergence === null) return;
      c.fillStyle = divergenceColor(palette);
      const x = Math.round(cursorX(this.divergence, width, this.length) - ratio);
      for (let y = 0; y < height; y += 6 * ratio) c.fillRect(x, y, Math.max(2, Math.round(2 * ratio)), 3 * ratio);
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
    this.scale = sharedRange(lines);
    this.strip.setLength(length);
  }

  setCursor(t: number): void {
    this.strip.setCursor(t);
  }

  dispose(): void {
    this.strip.dispose();
  }

  /**
   * The scale's ends at the top and bottom left, in the theme's text colour, on a
   * cleared box (the chart's own background shows) so that no line or cursor runs
   * through them.
   * The boxes are noted on the canvas (`data-labels`: x,y,w,h in canvas pixels), for tests.
   */
  private drawScale(c: CanvasRenderingContext2D, height: number, ratio: number, palette: Palette): void {
    const scale = this.scale;
    if (!Number.isFinite(scale.lo)) return;
    c.font = `${LABEL_FONT_PX * ratio}px sans-serif`;
    c.textAlign = "left";
    const pad = Math.round(2 * ratio);
    const boxHeight = Math.round((LABEL_FONT_PX + 3) * ratio);
    const ends: [string, number][] = [[formatNumber(scale.hi), 0]];
    if (scale.hi !== scale.lo) ends.push([formatNumber(scale.lo), height - boxHeight]);
    const boxes = ends.map(([text, top]) => {
      const box = [0, top, Math.ceil(c.measureText(text).width) + 2 * pad, boxHeight];
      c.clearRect(box[0], box[1], box[2], box[3]);
      c.fillStyle = palette.text;
      c.textBaseline = "middle";
      c.fillText(text, pad, top + boxHeight / 2);
      return box.join(",");
    });
    this.strip.element.dataset.labels = boxes.join(";");
  }
}
