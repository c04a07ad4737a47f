/**
 * What the timeline's hover (js/shared/hover.ts) lists at a position: each shown series'
 * value there, in the legend's order, with its smoothed value where the curves are
 * smoothed. From the exact series of an episode: the reward of action t, the return
 * before position t (the line's value at t), each extra's value of step t. From a long
 * episode's summary: the column's lowest and highest values.
 *
 * Example:
 *   valuesAt([{ key: "reward", name: "reward", color, values: rewards }], 12);
 *   // [{ name: "reward", color, value: rewards[12] }]
 */
import type { Bins } from "./columns.ts";
import type { HoverValue } from "./hover.ts";

/** A series the hover reads, keyed as its legend entry toggles it. */
export interface HoverSeries {
  key: string;
  name: string;
  color: string;
  /** One value per position (exact), or per pixel column (a summary's bins). */
  values: ArrayLike<number> | Bins;
  smoothed?: ArrayLike<number> | Bins;
}

const isBins = (values: ArrayLike<number> | Bins): values is Bins => "min" in values;

/** `values` at index `i`: a number, or a column's range (undefined past the end). */
function at(values: ArrayLike<number> | Bins, i: number): Pick<HoverValue, "value" | "range"> {
  if (!isBins(values)) return { value: i >= 0 && i < values.length ? values[i] : undefined };
  if (i < 0 || i >= values.min.length || Number.isNaN(values.min[i])) return { value: undefined };
  return { value: values.max[i], range: [values.min[i], values.max[i]] };
}

/** Each of `series` at index `i` (a position, or a column of a summary). */
export function valuesAt(series: readonly HoverSeries[], i: number): HoverValue[] {
  return series.map(({ name, color, values, smoothed }) => ({
    name,
    color,
    ...at(values, i),
    ...(smoothed === undefined ? {} : { smoothed: at(smoothed, i).value }),
  }));
}
