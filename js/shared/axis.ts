/**
 * Chart axes as people expect them (TensorBoard, matplotlib): ticks at "nice" numbers,
 * 1, 2, 2.5 or 5 times a power of ten (matplotlib's MaxNLocator's), so that 0, 50, 100, 150 label a return rather than
 * 0, 37.5, 75, 112.5; a value axis fitted to its data (no more than 15% headroom: a
 * maximum of 220 tops out at 220, not 400) with 2 to 5 nice ticks inside, or a log axis
 * ticked at powers of ten; integer ticks for steps that follow a zoom, and one number of
 * decimals for every label of an axis (0.0, 0.5, 1.0, never 0, 0.5, 1).
 *
 * Pure functions: the charts (timeline, comparison chart, bar cards) draw gridlines at
 * `ValueAxis.ticks` and put the labels beside them (js/shared/chart-frame.ts).
 *
 * Example:
 *   const axis = valueAxis(-3, 22);        // {lo: -3, hi: 22, ticks: [0, 5, 10, 15, 20], ...}
 *   axis.labels;                           // ["0", "5", "10", "15", "20"]
 *   stepTicks(0, 500, 800);                // [0, 100, 200, 300, 400]
 */
import { commonDecimals } from "./numbers.ts";

/** A value axis: its ends, the ticks inside them from low to high and their labels. */
export interface ValueAxis {
  lo: number;
  hi: number;
  ticks: number[];
  labels: string[];
  /** A logarithmic axis (logAxis): values spaced by their ratio, none at or below zero. */
  log?: boolean;
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

/** The most an axis adds to its data's span (both ends together): a plot 50 px tall stays the data's. */
export const HEADROOM = 0.15;

/**
 * A value axis fitted to `lo .. hi`: at most `most` ticks (3 to 5) at the first nice step
 * that gives no more (one more rather than fewer than `fewest`); its ends the ticks around the data when they add no more than
 * HEADROOM of its span, else the data's ends rounded out to a tenth of the step (0 to
 * 220 is 0 to 220 with ticks 0, 100, 200, not 0 to 400). A constant series gets an axis
 * from zero to it (so a constant reward of 1 reads as 1 on an axis from 0), and a
 * constant zero, or no data, 0 to 1.
 */
export function valueAxis(lo: number, hi: number, most = 5, fewest = 3): ValueAxis {
  if (!Number.isFinite(lo) || !Number.isFinite(hi) || lo > hi) return rateAxis();
  if (lo === hi) [lo, hi] = lo > 0 ? [0, lo] : lo < 0 ? [lo, 0] : [0, 1];
  const limit = Math.max(3, Math.min(5, most));
  const span = hi - lo;
  const fit = (step: number): ValueAxis => {
    const ends = fittedEnds(lo, hi, step);
    const ticks = ticksOf(ends[0], ends[1], step).filter((t) => t >= ends[0] - span * 1e-9 && t <= ends[1] + span * 1e-9);
    const shown = ticks.length >= 2 ? ticks : ends;
    return { lo: ends[0], hi: ends[1], ticks: shown, labels: tickLabels(shown) };
  };
  let finer: ValueAxis | undefined;
  for (let step = niceStep(span / (4 * limit)); ; step = nextStep(step)) {
    const axis = fit(step);
    if (axis.ticks.length <= limit) {
      // Two ticks say little where there is room: one more than asked reads better (0, 100, 200, 300, not 0, 200).
      return axis.ticks.length < fewest && finer !== undefined && finer.ticks.length === limit + 1 ? finer : axis;
    }
    finer = axis;
  }
}

/** The ends of an axis over `lo .. hi` ticked every `step`: the ticks around the data, a tenth of the step around it, or the data's own. */
function fittedEnds(lo: number, hi: number, step: number): [number, number] {
  for (const unit of [step, step / 10]) {
    const ends: [number, number] = [clean(Math.floor(lo / unit + 1e-9) * unit) + 0, clean(Math.ceil(hi / unit - 1e-9) * unit) + 0];
    if (ends[1] - ends[0] <= (hi - lo) * (1 + HEADROOM) + 1e-12) return ends;
  }
  return [lo, hi];
}

/**
 * A log axis over the positive values `lo .. hi` (`lo` > 0): ticks at the powers of ten
 * inside it, or at 1, 2 and 5 times them when fewer than two fit; its ends the data's,
 * rounded out to those ticks within HEADROOM (of the span's logarithm).
 */
export function logAxis(lo: number, hi: number, most = 5): ValueAxis {
  if (!(lo > 0) || !(hi >= lo) || !Number.isFinite(hi)) return rateAxis();
  if (lo === hi) lo = hi / 10;
  const decades = Math.log10(hi / lo);
  const ticksIn = (mantissas: number[]) => {
    const ticks: number[] = [];
    for (let k = Math.floor(Math.log10(lo)); k <= Math.ceil(Math.log10(hi)); k++) {
      for (const m of mantissas) {
        const t = clean(m * 10 ** k);
        if (t >= lo * (1 - 1e-9) && t <= hi * (1 + 1e-9)) ticks.push(t);
      }
    }
    return ticks;
  };
  const limit = Math.max(3, Math.min(5, most));
  let ticks = ticksIn([1]);
  while (ticks.length > limit) ticks = ticks.filter((_, i) => i % 2 === 0);
  if (ticks.length < 2) ticks = ticksIn([1, 2, 5]).slice(0, limit);
  if (ticks.length < 2) ticks = [lo, hi];
  const out = (t: number, towards: number) => (Math.abs(Math.log10(t / towards)) <= decades * HEADROOM ? t : towards);
  const ends: [number, number] = [out(10 ** Math.floor(Math.log10(lo) + 1e-9), lo), out(10 ** Math.ceil(Math.log10(hi) - 1e-9), hi)];
  const labels = ticks.map((t) => tickLabels([t])[0]);
  return { lo: Math.min(ends[0], ticks[0]), hi: Math.max(ends[1], ticks[ticks.length - 1]), ticks, labels, log: true };
}

/**
 * Nice ticks inside a fixed `lo .. hi` (a scale the user gave, or one several charts
 * share): the multiples of the finest nice step that end at its ends and give at most
 * `most` ticks, else of the finest that gives at most `most`; the two ends themselves
 * when no more than one nice tick fits.
 */
export function ticksWithin(lo: number, hi: number, most = 5): number[] {
  if (!(hi > lo)) return [lo];
  const slack = (hi - lo) * 1e-9;
  const inside = (step: number) => ticksOf(lo, hi, step).filter((t) => t >= lo - slack && t <= hi + slack);
  const first = niceStep((hi - lo) / (4 * most));
  for (let step = first; step <= hi - lo; step = nextStep(step)) {
    const ticks = inside(step);
    const ended = Math.abs(ticks[0] - lo) <= slack && Math.abs(ticks[ticks.length - 1] - hi) <= slack;
    if (ended && ticks.length <= most) return ticks;
  }
  for (let step = first; ; step = nextStep(step)) {
    const ticks = inside(step);
    if (ticks.length <= most) return ticks.length >= 2 ? ticks : [lo, hi];
  }
}

/** A rate's axis: 0 to 1 whatever its values, so that 0.03 reads as nearly never. */
export function rateAxis(): ValueAxis {
  return axisOf([0, 0.5, 1]);
}

function axisOf(ticks: number[]): ValueAxis {
  return { lo: ticks[0], hi: ticks[ticks.length - 1], ticks, labels: tickLabels(ticks) };
}

/** The fraction of the way up an axis `value` sits at (0 at `lo`, 1 at `hi`; NaN for a value at or below zero on a log axis). */
export function fractionOf(axis: Pick<ValueAxis, "lo" | "hi" | "log">, value: number): number {
  if (axis.log) return value > 0 ? Math.log(value / axis.lo) / (Math.log(axis.hi / axis.lo) || 1) : Number.NaN;
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
