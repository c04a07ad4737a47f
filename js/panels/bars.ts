/**
 * A bar chart of a panel's values: one horizontal bar per value, its label on
 * the left and its value on the right, the taken action's bar highlighted and
 * the greedy one (when the result names it) marked beside its label: a triangle
 * pointing at its row, and the label in bold (not an outline of the row: one across
 * the bars' area read as a bar at the axis maximum, 0.426 looked like 30), on a value
 * axis of nice ticks (gridlines behind the bars, labels under them) whose values all print with one
 * number of decimals (0.0360 beside 0.0454, not 0.036).
 * Horizontal rows keep long action names ("UPRIGHTFIRE") readable at any count.
 * A continuous actor's card (one bar per action dimension, its mean) adds a whisker
 * per bar (one standard deviation either side) and the action taken as a mark.
 *
 * `layoutBars` is pure (tested); `drawBars` paints a layout on a canvas.
 */
import { tickLabels, ticksWithin, valueAxis } from "../shared/axis.ts";
import { commonDecimals, formatFixed } from "../shared/numbers.ts";
import { gridColor, type Palette } from "../shared/theme.ts";

export const ROW_HEIGHT = 18;
export const BAR_COLOR = "#90a4ae";
export const HIGHLIGHT_COLOR = "#e65100";
const LABEL_WIDTH = 0.3;
const VALUE_WIDTH = 0.18;
/** The greedy row's mark: a triangle this wide, this far left of the bars' area; labels end left of it. */
export const MARK_WIDTH = 6;
export const MARK_GAP = 3;
const LABEL_GAP = MARK_WIDTH + MARK_GAP + 3;

export interface BarRow {
  label: string;
  value: number;
  /** The value as shown ("nan" for a missing one). */
  text: string;
  highlight: boolean;
  greedy: boolean;
  /** The bar, in canvas pixels: from the zero line to the value. */
  x: number;
  width: number;
  y: number;
  height: number;
  /** The whisker's ends (x), where the card gives a range for this bar. */
  whisker: [number, number] | null;
  /** Where the mark (the value taken) is (x), where the card gives one. */
  mark: number | null;
}

/** A tick of the value axis: its value, its label and where it is, in CSS pixels from the left. */
export interface BarTick {
  value: number;
  label: string;
  x: number;
}

export interface BarLayout {
  rows: BarRow[];
  ticks: BarTick[];
  /** Where zero is, in canvas pixels. */
  zeroX: number;
  /** Left and right edges of the bars' area. */
  left: number;
  right: number;
  width: number;
  height: number;
}

export interface BarOptions {
  /** The bar to highlight (the action taken), if any. */
  highlight?: number | null;
  /** The bar whose label is marked (the action the agent prefers), if any. */
  greedy?: number | null;
  /** A value axis fixed across steps; values outside it are cut at its ends. */
  scale?: [number, number] | null;
  /** A (low, high) whisker per bar: a Gaussian actor's mean +- one standard deviation. */
  ranges?: readonly (readonly [number, number])[] | null;
  /** A value marked on each bar: the continuous action taken. */
  marks?: readonly number[] | null;
}

/**
 * The value axis a bar chart spans by itself: the given scale, else the nice ticks
 * around the values and zero (NaN and infinities left out).
 */
export function barExtent(values: Float64Array, scale: BarOptions["scale"] = null, extra: readonly number[] = []): [number, number] {
  if (scale) return [scale[0], scale[1]];
  const finite = [...values, ...extra].filter(Number.isFinite);
  const axis = valueAxis(Math.min(0, ...finite), Math.max(0, ...finite));
  return [axis.lo, axis.hi];
}

/** The text of each value, all finite ones with the decimals the card needs (commonDecimals). */
function valueTexts(values: Float64Array): string[] {
  const decimals = commonDecimals([...values]);
  return [...values].map((v) => (Number.isNaN(v) ? "nan" : formatFixed(v, decimals)));
}

/** The whiskers' ends and the marks: the axis spans them too. */
export function drawnBeside(options: BarOptions): number[] {
  return [...(options.ranges ?? []).flat(), ...(options.marks ?? [])];
}

function finitePair(pair: readonly [number, number] | undefined, xOf: (v: number) => number): [number, number] | null {
  return pair && Number.isFinite(pair[0]) && Number.isFinite(pair[1]) ? [xOf(pair[0]), xOf(pair[1])] : null;
}

/**
 * Rows of `ROW_HEIGHT` px on a canvas `width` px wide. The axis spans nice ticks around
 * the values and zero (or the given scale), so bars of positive values grow right from
 * zero and negative ones left.
 */
export function layoutBars(values: Float64Array, labels: readonly string[], width: number, options: BarOptions = {}): BarLayout {
  const left = Math.round(width * LABEL_WIDTH);
  const right = Math.round(width * (1 - VALUE_WIDTH));
  const [low, high] = barExtent(values, options.scale, drawnBeside(options));
  const span = high - low || 1;
  const clamp = (x: number) => Math.max(left, Math.min(right, x));
  const xOf = (value: number) => clamp(left + ((value - low) / span) * (right - left));
  const zeroX = xOf(0);
  const texts = valueTexts(values);
  const ticks = ticksWithin(low, high, right - left >= 200 ? 5 : 3);
  const tickText = tickLabels(ticks);
  const rows = [...values].map((value, i): BarRow => {
    const end = Number.isFinite(value) ? xOf(value) : zeroX;
    return {
      label: labels[i] ?? String(i),
      value,
      text: texts[i],
      highlight: i === options.highlight,
      greedy: i === options.greedy,
      x: Math.min(zeroX, end),
      width: Math.abs(end - zeroX),
      y: i * ROW_HEIGHT + 2,
      height: ROW_HEIGHT - 4,
      whisker: finitePair(options.ranges?.[i], xOf),
      mark: Number.isFinite(options.marks?.[i]) ? xOf(options.marks![i]) : null,
    };
  });
  const axis = ticks.map((value, i) => ({ value, label: tickText[i], x: xOf(value) }));
  return { rows, ticks: axis, zeroX, left, right, width, height: values.length * ROW_HEIGHT };
}

/**
 * Paints `layout` (in CSS pixels) on `canvas` at `ratio` device pixels per CSS pixel,
 * text and zero line in the theme's text colour, gridlines faint at the ticks; the
 * canvas's pixel size is the layout's times `ratio`. The ticks' labels are the caller's
 * (DOM text under the canvas, js/panels/bars-view.ts).
 */
export function drawBars(canvas: HTMLCanvasElement, layout: BarLayout, palette: Palette, ratio = 1): void {
  const textColor = palette.text;
  canvas.width = Math.max(1, Math.round(layout.width * ratio));
  canvas.height = Math.max(1, Math.round(layout.height * ratio));
  canvas.style.height = `${layout.height}px`;
  const c = canvas.getContext("2d")!;
  c.setTransform(1, 0, 0, 1, 0, 0);
  c.clearRect(0, 0, canvas.width, canvas.height);
  c.setTransform(ratio, 0, 0, ratio, 0, 0);
  c.font = "11px sans-serif";
  c.textBaseline = "middle";
  c.fillStyle = gridColor(palette);
  for (const tick of layout.ticks) c.fillRect(Math.round(tick.x), 0, 1, layout.height);
  for (const row of layout.rows) {
    c.fillStyle = row.highlight ? HIGHLIGHT_COLOR : BAR_COLOR;
    if (Number.isFinite(row.value)) c.fillRect(Math.round(row.x), row.y, Math.max(1, Math.round(row.width)), row.height);
    drawWhiskerAndMark(c, row, textColor);
    c.fillStyle = textColor;
    if (row.greedy) drawGreedyMark(c, layout.left, row);
    const middle = row.y + row.height / 2;
    c.font = row.greedy ? "bold 11px sans-serif" : "11px sans-serif";
    c.textAlign = "right";
    c.fillText(row.label, layout.left - LABEL_GAP, middle, layout.left - LABEL_GAP - 2);
    c.font = "11px sans-serif";
    c.textAlign = "left";
    c.fillText(row.text, layout.right + 4, middle, layout.width - layout.right - 4);
  }
  c.fillStyle = textColor;
  c.fillRect(Math.round(layout.zeroX), 0, 1, layout.height);
}

/** The greedy row's mark: a triangle between its label and the bars' area, pointing at its bar. */
function drawGreedyMark(c: CanvasRenderingContext2D, left: number, row: BarRow): void {
  const [tip, middle, half] = [left - MARK_GAP, row.y + row.height / 2, MARK_WIDTH / 2 + 1];
  c.beginPath();
  c.moveTo(tip, middle);
  c.lineTo(tip - MARK_WIDTH, middle - half);
  c.lineTo(tip - MARK_WIDTH, middle + half);
  c.closePath();
  c.fill();
}

/** A whisker (a line with end caps, in the text colour) and a mark (a diamond, in the highlight colour). */
function drawWhiskerAndMark(c: CanvasRenderingContext2D, row: BarRow, textColor: string): void {
  const middle = row.y + row.height / 2;
  if (row.whisker) {
    const [x0, x1] = row.whisker;
    c.fillStyle = textColor;
    c.fillRect(Math.round(Math.min(x0, x1)), Math.round(middle) - 1, Math.max(1, Math.round(Math.abs(x1 - x0))), 2);
    for (const x of row.whisker) c.fillRect(Math.round(x) - 1, row.y + 2, 2, row.height - 4);
  }
  if (row.mark !== null) {
    const half = row.height / 2;
    c.fillStyle = HIGHLIGHT_COLOR;
    c.beginPath();
    c.moveTo(row.mark, middle - half);
    c.lineTo(row.mark + half * 0.7, middle);
    c.lineTo(row.mark, middle + half);
    c.lineTo(row.mark - half * 0.7, middle);
    c.closePath();
    c.fill();
  }
}
