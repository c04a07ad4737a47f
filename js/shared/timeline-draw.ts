/**
 * What the timeline and the comparison chart paint per pixel column: reward bars from
 * zero, lines through each column's min..max, gridlines, axis edges, end marks; the
 * timeline's colours and the bands its axes span (pure `timelineLayout`, tested).
 *
 * Every function maps values to device pixels through a `YOf`, so each series is drawn
 * on its own axis: the return on the left one, the rewards on the right, rates on 0-1.
 */
import type { Band } from "./chart-frame.ts";
import type { Bins, TimelineColumns } from "./columns.ts";
import type { ValueAxis } from "./axis.ts";
import { bandY } from "./chart-frame.ts";
import { gridColor, type Palette } from "./theme.ts";

/** Maps a value to a device-pixel y. */
export type YOf = (value: number) => number;

/** The device-pixel y of values on `axis` over `band` (CSS pixels) at `ratio`. */
export function yOnAxis(band: Band, axis: Pick<ValueAxis, "lo" | "hi">, ratio: number): YOf {
  return (value) => bandY(band, axis, value) * ratio;
}

/** CSS pixels above and below an axis's band: room for the end labels and the end marks. */
export const INSET = 7;
/** The heights (CSS pixels) of the timeline's main band (return, rewards, extras) and of its rates' band. */
const MAIN_HEIGHT = 64;
const RATES_HEIGHT = 40;

export interface TimelineLayout {
  /** The strip's CSS height. */
  height: number;
  /** Where the return and reward axes run. */
  main: Band;
  /** Where the 0-1 axis of rates runs, under the main band; undefined without rates. */
  rates: Band | undefined;
}

/** The timeline's bands: the main one, and one for rates under it when there are any. */
export function timelineLayout(hasRates: boolean): TimelineLayout {
  const main = { top: INSET, height: MAIN_HEIGHT - 2 * INSET };
  if (!hasRates) return { height: MAIN_HEIGHT, main, rates: undefined };
  return { height: MAIN_HEIGHT + RATES_HEIGHT, main, rates: { top: MAIN_HEIGHT + INSET, height: RATES_HEIGHT - 2 * INSET } };
}

/** The timeline's colours, each with a lighter variant that keeps its contrast on a dark theme. */
export interface SeriesColors {
  reward: string;
  penalty: string;
  return: string;
  nonFinite: string;
  extras: readonly string[];
}

const LIGHT: SeriesColors = {
  reward: "#4c9a2a",
  penalty: "#c0392b",
  return: "#1f5fbf",
  nonFinite: "#d81b60",
  // Eight: a continuous action's dimensions (up to 8, agent_widget/viewer/_episode.py) each its own.
  extras: ["#8e44ad", "#16a085", "#d35400", "#7f8c8d", "#b7950b", "#6d4c41", "#0097a7", "#827717"],
};

const DARK: SeriesColors = {
  reward: "#7cc35a",
  penalty: "#ff7b6b",
  return: "#7ab4ff",
  nonFinite: "#ff6fa5",
  extras: ["#c59be0", "#4fd1b5", "#ffa868", "#c0c6c9", "#f1d36b", "#c8a08a", "#5fd3e0", "#c5d86d"],
};

/** The timeline's colours for a theme. */
export function seriesColors(palette: Palette): SeriesColors {
  return palette.dark ? DARK : LIGHT;
}

/** The lowest min and highest max of `bins` ({lo: Infinity, hi: -Infinity} when all are NaN). */
export function range(bins: Bins): { lo: number; hi: number } {
  let lo = Number.POSITIVE_INFINITY;
  let hi = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < bins.min.length; i++) {
    if (bins.min[i] < lo) lo = bins.min[i];
    if (bins.max[i] > hi) hi = bins.max[i];
  }
  return { lo, hi };
}

/**
 * The range each extra is drawn on: its own, or, for the components `name[i]` of a
 * vector extra (a continuous action's means), the range of all of them, so that the
 * lines of one quantity compare.
 */
export function extraRanges(extras: ReadonlyMap<string, Bins>): Map<string, { lo: number; hi: number }> {
  // The components of one name share a range: a vector extra's `name[0]`, `name[1]`, or
  // a multi-agent episode's `return[player_0]`, `return[player_1]`.
  const group = (name: string) => name.replace(/\[[^\]]*\]$/, "");
  const shared = new Map<string, { lo: number; hi: number }>();
  for (const [name, bins] of extras) {
    const { lo, hi } = range(bins);
    const known = shared.get(group(name));
    shared.set(group(name), known ? { lo: Math.min(known.lo, lo), hi: Math.max(known.hi, hi) } : { lo, hi });
  }
  return new Map([...extras.keys()].map((name) => [name, shared.get(group(name))!]));
}

/**
 * Reward bars: each column from zero to its highest reward when that is above zero
 * (green) and from zero to its lowest when below (red), at least a pixel, so a
 * constant reward of 1 fills its axis up to 1, and Pong's -1 reaches down to -1.
 * A column of zero rewards draws nothing.
 */
export function drawBars(c: CanvasRenderingContext2D, bins: Bins, y: YOf, colors: SeriesColors): void {
  const zero = y(0);
  for (let x = 0; x < bins.min.length; x++) {
    const mn = bins.min[x];
    const mx = bins.max[x];
    if (Number.isNaN(mn) || (mn === 0 && mx === 0)) continue;
    if (mx > 0) {
      c.fillStyle = colors.reward;
      c.fillRect(x, y(mx), 1, Math.max(1, zero - y(mx)));
    }
    if (mn < 0) {
      c.fillStyle = colors.penalty;
      c.fillRect(x, zero, 1, Math.max(1, y(mn) - zero));
    }
  }
}

/** The colour of a halo that keeps a line readable over bars, in a theme. */
export function haloColor(palette: Palette): string {
  return palette.dark ? "rgba(0, 0, 0, 0.7)" : "rgba(255, 255, 255, 0.85)";
}

/**
 * A line through each column's min..max; with a `halo` colour, over a wider stroke of
 * it first, so that the line reads over a block of bars (CartPole's constant reward).
 */
export function drawLine(c: CanvasRenderingContext2D, bins: Bins, y: YOf, color: string, lineWidth: number, halo?: string): void {
  if (halo !== undefined) drawLine(c, bins, y, halo, lineWidth * 3);
  c.strokeStyle = color;
  c.lineWidth = lineWidth;
  c.beginPath();
  let started = false;
  for (let x = 0; x < bins.min.length; x++) {
    if (Number.isNaN(bins.min[x])) continue;
    if (started) c.lineTo(x + 0.5, y(bins.min[x]));
    else c.moveTo(x + 0.5, y(bins.min[x]));
    c.lineTo(x + 0.5, y(bins.max[x]));
    started = true;
  }
  c.stroke();
}

/** Faint gridlines: across the strip at each `ys`, down it at each `xs` (device pixels). */
export function drawGrid(c: CanvasRenderingContext2D, ys: readonly number[], xs: readonly number[], ratio: number, palette: Palette): void {
  const { width, height } = c.canvas;
  const thick = Math.max(1, Math.round(ratio));
  c.fillStyle = gridColor(palette);
  for (const y of ys) c.fillRect(0, Math.round(y - thick / 2), width, thick);
  for (const x of xs) c.fillRect(Math.round(x - thick / 2), 0, thick, height);
}

/** An axis's edge: a short line in its series' colour along the band at the left or right edge, naming the series it measures. */
export function drawAxisEdge(c: CanvasRenderingContext2D, band: Band, side: "left" | "right", color: string, ratio: number): void {
  const thick = Math.max(2, Math.round(2 * ratio));
  c.fillStyle = color;
  const x = side === "left" ? 0 : c.canvas.width - thick;
  c.fillRect(x, Math.round(band.top * ratio), thick, Math.round(band.height * ratio));
}

const DIVERGENCE = { light: "#e91e63", dark: "#ff6fa5" };

/** The colour marking the first step where the actions differ, in a theme. */
export function divergenceColor(palette: Palette): string {
  return palette.dark ? DIVERGENCE.dark : DIVERGENCE.light;
}

/**
 * The divergence mark: a dashed vertical line at device pixel `x`, dashed so that it
 * reads apart from the solid cursor (drawn over it, so the playhead never hides it).
 */
export function drawDivergence(c: CanvasRenderingContext2D, x: number, ratio: number, palette: Palette): void {
  c.fillStyle = divergenceColor(palette);
  const left = Math.round(x - ratio);
  for (let y = 0; y < c.canvas.height; y += 6 * ratio) c.fillRect(left, y, Math.max(2, Math.round(2 * ratio)), 3 * ratio);
}

const MARK_PX = 6;

/** A downward triangle at the top of each column where the episode ended: filled if terminated, hollow if truncated. */
export function drawEndMarks(c: CanvasRenderingContext2D, columns: TimelineColumns, ratio: number, color: string): void {
  const size = MARK_PX * ratio;
  const width = columns.terminated.length;
  const triangle = (x: number) => {
    const centre = Math.min(Math.max(x + 0.5, size / 2), width - size / 2);
    c.beginPath();
    c.moveTo(centre - size / 2, 0);
    c.lineTo(centre + size / 2, 0);
    c.lineTo(centre, size);
    c.closePath();
  };
  c.fillStyle = color;
  c.strokeStyle = color;
  c.lineWidth = ratio;
  columns.terminated.forEach((mark, x) => {
    if (!mark) return;
    triangle(x);
    c.fill();
  });
  columns.truncated.forEach((mark, x) => {
    if (!mark || columns.terminated[x]) return;
    triangle(x);
    c.stroke();
  });
}
