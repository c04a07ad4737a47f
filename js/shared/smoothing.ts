/**
 * Smoothing of training curves as TensorBoard does it: an exponential moving average
 * with a weight from 0 (none) to 0.99, debiased so that the first points are not pulled
 * towards zero. The timeline draws the raw series faint and the smoothed one bold.
 *
 * Example:
 *   ema(Float64Array.from([1, 0, 1, 0]), 0.6);   // [1, 0.375, 0.6939, 0.375]
 */
import type { Bins, TimelineColumns } from "./columns.ts";
import type { Series } from "./series.ts";

/** The most a weight can be: 1 would never move. */
export const MAX_WEIGHT = 0.99;

/** `values` smoothed with `weight` (clamped to 0 .. 0.99); NaN and infinite values are kept out and stay NaN. */
export function ema(values: Float64Array, weight: number): Float64Array {
  const w = Math.max(0, Math.min(MAX_WEIGHT, weight));
  const out = new Float64Array(values.length).fill(Number.NaN);
  let last = 0;
  let seen = 0;
  for (let i = 0; i < values.length; i++) {
    if (!Number.isFinite(values[i])) continue;
    last = last * w + (1 - w) * values[i];
    seen += 1;
    out[i] = last / (1 - w ** seen);
  }
  return out;
}

/**
 * Smoothed columns of an already binned series (a long episode's summary): the average
 * of the middles of the columns, each column then one value.
 */
export function emaOfBins(bins: Bins, weight: number): Bins {
  const middles = bins.min.map((mn, i) => (mn + bins.max[i]) / 2);
  const smoothed = ema(middles, weight);
  return { min: smoothed, max: smoothed };
}

/** `series` with its rewards and extras smoothed by `weight` (itself when 0). */
export function smoothSeries(series: Series, weight: number): Series {
  if (weight <= 0) return series;
  const extras = new Map([...series.extras].map(([name, values]) => [name, ema(values, weight)]));
  return { ...series, rewards: ema(series.rewards, weight), extras };
}

/** A summary's rewards and extras smoothed by `weight` (itself when 0). */
export function smoothColumns(columns: TimelineColumns, weight: number): TimelineColumns {
  if (weight <= 0) return columns;
  const extras = new Map([...columns.extras].map(([name, bins]) => [name, emaOfBins(bins, weight)]));
  return { ...columns, rewards: emaOfBins(columns.rewards, weight), extras };
}
