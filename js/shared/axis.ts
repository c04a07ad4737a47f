/**
 * Chart axes as people expect them (TensorBoard, matplotlib): ticks at "nice" numbers,
 * 1, 2, 2.5 or 5 times a power of ten (matplotlib's MaxNLocator's), so that 0, 50, 100, 150 label a return rather than
 * 0, 37.5, 75, 112.5; a value axis of 3 to 5 ticks whose ends are ticks (the data fits
 * inside), integer ticks for steps that follow a zoom, and one number of decimals for
 * every label of an axis (0.0, 0.5, 1.0, never 0, 0.5, 1).
 *
 * Pure functions: the charts (timeline, comparison chart, bar cards) draw gridlines at
 * `ValueAxis.ticks` and put the labels beside them (js/shared/chart-frame.ts).
 *
 * Example:
 *   const axis = valueAxis(-3, 22);        // {lo: -10, hi: 30, ticks: [-10, 0, 10, 20, 30], ...}
 *   axis.labels;                           // ["-10", "0", "10", "20", "30"]
 *   stepTicks(0, 500, 800);                // [0, 100, 200, 300, 400]
 */
import { commonDecimals } from "./numbers.ts";

/** A value axis: its ends (both ticks), the ticks from low to high and their labels. */
export interface ValueAxis {
  lo: number;
  hi: number;
  ticks: number[];
  labels: string[];
}

/** The nice numbers between two ticks, per power of ten: 2.5 keeps -0.25 .. 0.75 to 5 ticks. */
const NICE = [1, 2, 2.5, 5];

/** The smallest nice step (1, 2, 2.5 or 5 x 10^k) at least `rough`. */
export function niceStep(rough: number): number {
  if (!(rough > 0) || !Number.isFinite(rough)) return 1;
  const power = 10 ** Math.floor(Math.log10(rough));
  for (const nice of [...NICE, 10]) {
    // A hair of tolerance: 0.3 / 3 is 0.09999999999999999, which is a step of 0.1.
    if (nice * power >= rough * (1 - 1e-9)) return nice * power;
  }
  return 10 * power;
}

/** The nice step after `step` (1 -> 2 -> 2.5 -> 5 -> 10). */
function nextStep(step: number): number {
  return niceStep(step * 1.01);
}

/** `x` without the float noise of a multiple of a step (0.30000000000000004 -> 0.3). */
function clean(x: number): number {
  return Number.parseFloat(x.toPrecision(12));
}

/** Ticks from `lo` to `hi` every `step`, both ends multiples of it. */
function ticksOf(lo: number, hi: number, step: number): number[] {
  const first = Math.floor(lo / step + 1e-9);
  const last = Math.ceil(hi / step - 1e-9);
  return Array.from({ length: last - first + 1 }, (_, i) => clean((first + i) * step) + 0);
}

/**
 * A value axis over `lo .. hi`: at most `most` ticks (3 to 5), the first nice step
 * that gives no more, its ends the ticks around the data. A constant series gets an
 * axis from zero to it (so a constant reward of 1 reads as a bar from 0 to 1), and a
 * constant zero, or no data, 0 to 1.
 */
export function valueAxis(lo: number, hi: number, most = 5): ValueAxis {
  if (!Number.isFinite(lo) || !Number.isFinite(hi) || lo > hi) return rateAxis();
  if (lo === hi) [lo, hi] = lo > 0 ? [0, lo] : lo < 0 ? [lo, 0] : [0, 1];
  const limit = Math.max(3, Math.min(5, most));
  let step = niceStep((hi - lo) / (limit - 1));
  let ticks = ticksOf(lo, hi, step);
  while (ticks.length > limit) {
    step = nextStep(step);
    ticks = ticksOf(lo, hi, step);
  }
  return axisOf(ticks);
}

/**
 * Nice ticks inside a fixed `lo .. hi` (a scale the user gave, or one several charts
 * share): its own axis's ticks when they end at its ends, else the multiples of the
 * finest nice step that gives at most `most` of them; the two ends themselves when no
 * more than one nice tick fits.
 */
export function ticksWithin(lo: number, hi: number, most = 5): number[] {
  if (!(hi > lo)) return [lo];
  const own = valueAxis(lo, hi, most);
  if (own.lo === lo && own.hi === hi) return own.ticks;
  const slack = (hi - lo) * 1e-9;
  for (let step = niceStep((hi - lo) / (4 * most)); ; step = nextStep(step)) {
    const inside = ticksOf(lo, hi, step).filter((t) => t >= lo - slack && t <= hi + slack);
    if (inside.length <= most) return inside.length >= 2 ? inside : [lo, hi];
  }
}

/** A rate's axis: 0 to 1 whatever its values, so that 0.03 reads as nearly never. */
export function rateAxis(): ValueAxis {
  return axisOf([0, 0.5, 1]);
}

function axisOf(ticks: number[]): ValueAxis {
  return { lo: ticks[0], hi: ticks[ticks.length - 1], ticks, labels: tickLabels(ticks) };
}

/** The fraction of the way up an axis `value` sits at (0 at `lo`, 1 at `hi`). */
export function fractionOf(axis: Pick<ValueAxis, "lo" | "hi">, value: number): number {
  return (value - axis.lo) / (axis.hi - axis.lo || 1);
}

/**
 * Labels for ticks, all with one number of decimals (commonDecimals: as many as the
 * finest tick needs); multiples of a thousand from 10,000 on shortened (20k, 1.5M), as
 * a step axis of a long episode would be too wide to read otherwise (millions from 1M);
 * zero is 0 there, as a plot's origin reads.
 */
export function tickLabels(ticks: readonly number[]): string[] {
  const largest = Math.max(0, ...ticks.map(Math.abs));
  for (const [unit, suffix, from] of [
    [1e6, "M", 1e6],
    [1e3, "k", 1e4],
  ] as const) {
    if (largest >= from && ticks.every((t) => Number.isInteger(t / (unit / 10)))) {
      const scaled = ticks.map((t) => clean(t / unit));
      const decimals = commonDecimals(scaled);
      return scaled.map((t) => (t === 0 ? "0" : `${t.toFixed(decimals)}${suffix}`));
    }
  }
  const decimals = commonDecimals(ticks);
  return ticks.map((t) => (t === 0 ? 0 : t).toFixed(decimals));
}

/**
 * Integer ticks for positions `from .. to - 1` across `pixels` CSS pixels: a nice step
 * (at least 1) that keeps labels `spacing` pixels apart or more, every multiple of it
 * in the range.
 */
export function stepTicks(from: number, to: number, pixels: number, spacing = 70): number[] {
  const span = Math.max(1, to - from);
  const most = Math.max(2, Math.floor(pixels / spacing));
  let step = Math.max(1, niceStep(span / most));
  while (!Number.isInteger(step)) step = nextStep(step); // positions are whole: 25, never 2.5
  const ticks: number[] = [];
  for (let t = Math.ceil(from / step) * step; t < to; t += step) ticks.push(t);
  return ticks;
}
