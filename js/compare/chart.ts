/**
 * The comparison's shared timeline: each episode's return as a line in its own
 * colour, all on one scale so that they compare, the cursor, and the first step
 * where the actions differ marked. Clicking or dragging seeks.
 */
import type { Palette } from "../shared/theme.ts";
import { binMinMax, cursorX, drawLine, Strip } from "../shared/timeline.ts";

const HEIGHT = 72;
/** Each episode's colour (Tableau's ten), and lighter variants that keep their contrast on a dark theme. */
export const PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf"];
export const DARK_PALETTE = ["#5fa8e8", "#ffa04d", "#5fd35f", "#ff6b6b", "#c0a0e8", "#c99a86", "#f7a1d8", "#4fdbe8"];
const DIVERGENCE = { light: "#e91e63", dark: "#ff6fa5" };

/** Episode `i`'s colour in a theme. */
export function lineColor(i: number, palette: Palette): string {
  const colors = palette.dark ? DARK_PALETTE : PALETTE;
  return colors[i % colors.length];
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

export class ReturnsChart {
  private readonly strip: Strip;
  private lines: Float64Array[] = [];
  private length = 0;
  private divergence: number | null = null;

  constructor(parent: HTMLElement, onSeek: (t: number) => void) {
    // The cursor in the theme's text colour: visible on light and dark alike.
    const cursor = (palette: Palette) => palette.text;
    this.strip = new Strip(parent, "aw-compare-chart", HEIGHT, cursor, (c, width, height, ratio, palette) => {
      const scale = sharedRange(this.lines);
      this.lines.forEach((values, i) => {
        const bins = binMinMax(values, this.length, width);
        drawLine(c, bins, height, lineColor(i, palette), 1.5 * ratio, scale);
      });
    }, onSeek, (c, width, height, ratio, palette) => {
      // Over the cursor, so it still shows with the playhead on the divergence step;
      // dashed, so it reads apart from the solid cursor.
      if (this.divergence === null) return;
      c.fillStyle = palette.dark ? DIVERGENCE.dark : DIVERGENCE.light;
      const x = Math.round(cursorX(this.divergence, width, this.length) - ratio);
      for (let y = 0; y < height; y += 6 * ratio) c.fillRect(x, y, Math.max(2, Math.round(2 * ratio)), 3 * ratio);
    });
    this.strip.element.title = "return of each episode; dashed: the first step where their actions differ";
  }

  get element(): HTMLCanvasElement {
    return this.strip.element;
  }

  /** `lines[i]` is episode i's return at each of the `length` shared positions. */
  setData(lines: Float64Array[], length: number, divergence: number | null): void {
    this.lines = lines;
    this.length = length;
    this.divergence = divergence;
    this.strip.setLength(length);
  }

  setCursor(t: number): void {
    this.strip.setCursor(t);
  }

  dispose(): void {
    this.strip.dispose();
  }
}
