/**
 * What the timeline and the comparison chart paint per pixel column: reward bars from
 * zero, lines through each column's min..max, gridlines, axis edges, end marks; the
 * timeline's colours and the bands its axes span (pure `timelineLayout`, tested).
 *
 * Every function maps values to device pixels through a `YOf`, so each series is drawn
 * on its own axis (js/shared/timeline-axes.ts): the return on the left one, the rewards
 * on the right, each extra on its band's.
 */
import type { Band } from "./chart-frame.ts";
import type { Bins, TimelineColumns } from "./columns.ts";
import type { ValueAxis } from "./axis.ts";
import { bandY } from "./chart-frame.ts";
import { gridColor, type Palette } from "./theme.ts";

/** Maps a value to a device-pixel y. */
export type YOf = (value: number) => number;

/** The device-pixel y of values on `axis` over `band` (CSS pixels) at `ratio`. */
export function yOnAxis(band: Band, axis: Pick<ValueAxis, "lo" | "hi" | "log">, ratio: number): YOf {
  return (value) => bandY(band, axis, value) * ratio;
}

/** CSS pixels above and below an axis's band: room for the end labels, the end marks and a band's name. */
export const INSET = 7;
/** The heights (CSS pixels) of the timeline's main band (return, rewards) and of each extra's band. */
const MAIN_HEIGHT = 64;
const BAND_HEIGHT = 44;

/** A band of the strip and the group of extras drawn in it. */
export interface ExtraBand {
  group: string;
  band: Band;
}

export interface TimelineLayout {
  /** The strip's CSS height. */
  height: number;
  /** Where the return and reward axes run. */
  main: Band;
  /** A band under the main one per group of extras, in order. */
  bands: ExtraBand[];
}

/** The timeline's bands: the main one, and one under it for each group of extras (timeline-axes.ts extraGroups). */
export function timelineLayout(groups: readonly string[]): TimelineLayout {
  const main = { top: INSET, height: MAIN_HEIGHT - 2 * INSET };
  const bands = groups.map((group, i) => ({ group, band: { top: MAIN_HEIGHT + i * BAND_HEIGHT + INSET, height: BAND_HEIGHT - 2 * INSET } }));
  return { height: MAIN_HEIGHT + groups.length * BAND_HEIGHT, main, bands };
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

/** How opaque a run of reward bars is filled: a constant reward is a quiet band under the lines. */
export const BAND_ALPHA = 0.16;

/** The widest run of reward bars (CSS pixels) drawn solid: a reward alone, or a few together. */
const SPIKE_PX = 4;

/**
 * Reward bars from `base` (zero's y; a log axis's bottom): each column up to its highest
 * reward when that is above zero (green) and down to its lowest when below (red). A run
 * of such columns wider than SPIKE_PX is a faint band with its edge drawn solid
 * (CartPole's reward of 1 every step: a quiet band topped by a line at 1, the return
 * readable over it); a narrower one (Pong's rare +1 or -1) solid bars, at least a pixel
 * tall.
 */
export function drawBars(c: CanvasRenderingContext2D, bins: Bins, y: YOf, colors: SeriesColors, ratio = 1, base = y(0)): void {
  const edge = Math.max(1, Math.round(1.5 * ratio));
  const bar = (x: number, value: number, solid: boolean) => {
    const end = y(value);
    if (!Number.isFinite(end)) return;
    const top = Math.min(end, base);
    const height = Math.max(1, Math.abs(base - end));
    if (solid) return c.fillRect(x, top, 1, height);
    c.globalAlpha *= BAND_ALPHA;
    c.fillRect(x, top, 1, height);
    c.globalAlpha /= BAND_ALPHA;
    c.fillRect(x, end > base ? end - edge : end, 1, edge);
  };
  const sides = [
    { values: bins.max, color: colors.reward, has: (v: number) => v > 0 },
    { values: bins.min, color: colors.penalty, has: (v: number) => v < 0 },
  ];
  for (const { values, color, has } of sides) {
    c.fillStyle = color;
    for (let x = 0; x < values.length; x++) {
      if (!has(values[x])) continue;
      const start = x;
      while (x + 1 < values.length && has(values[x + 1])) x++;
      const solid = x + 1 - start <= SPIKE_PX * ratio;
      for (let i = start; i <= x; i++) bar(i, values[i], solid);
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
    // NaN: no value (or, on a log axis, none above zero); the line goes on past it.
    const [lo, hi] = [y(bins.min[x]), y(bins.max[x])];
    if (!Number.isFinite(hi)) continue;
    const from = Number.isFinite(lo) ? lo : hi;
    if (started) c.lineTo(x + 0.5, from);
    else c.moveTo(x + 0.5, from);
    c.lineTo(x + 0.5, hi);
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

/**
 * A downward triangle at the top where the episode ended: filled if terminated, hollow
 * if truncated; one per run of marked columns, at its middle, so that a step many
 * columns wide (Connect Four's last move) has one mark, not a row of them.
 */
export function drawEndMarks(c: CanvasRenderingContext2D, columns: TimelineColumns, ratio: number, color: string): void {
  const size = MARK_PX * ratio;
  const width = columns.terminated.length;
  const triangle = (x: number) => {
    const centre = Math.min(Math.max(x, size / 2), width - size / 2);
    c.beginPath();
    c.moveTo(centre - size / 2, 0);
    c.lineTo(centre + size / 2, 0);
    c.lineTo(centre, size);
    c.closePath();
  };
  c.fillStyle = color;
  c.strokeStyle = color;
  c.lineWidth = ratio;
  for (const x of markRuns(columns.terminated)) {
    triangle(x);
    c.fill();
  }
  const truncatedOnly = columns.truncated.map((mark, x) => (mark && !columns.terminated[x] ? 1 : 0));
  for (const x of markRuns(truncatedOnly)) {
    triangle(x);
    c.stroke();
  }
}

/** The middle (a pixel x) of each run of set columns of `marks`. */
export function markRuns(marks: Uint8Array): number[] {
  const middles: number[] = [];
  for (let x = 0; x < marks.length; x++) {
    if (!marks[x]) continue;
    const start = x;
    while (x + 1 < marks.length && marks[x + 1]) x++;
    middles.push((start + x + 1) / 2);
  }
  return middles;
}
