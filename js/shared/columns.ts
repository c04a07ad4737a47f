/**
 * The timeline's data per pixel column: the min and max of each series over the
 * positions a column covers, and whether a termination, a truncation or a non-finite
 * reward falls in it. Computed here from the exact series of a short episode, or read
 * from the kernel's summary of a long one (the `summary` trait,
 * agent_widget/viewer/_summary.py: 2,048 columns, whatever the length) and rebinned to
 * the drawn width. Column c of `columns` over `domain` positions starts at position
 * floor(c * domain / columns), on both sides, so the two draw alike.
 */
import { inflateBounded } from "./inflate.ts";
import { bytesOf, nonFiniteSteps, readSeries, type Series } from "./series.ts";

export interface Bins {
  min: Float64Array;
  max: Float64Array;
}

export interface TimelineColumns {
  rewards: Bins;
  returns: Bins;
  /** The scalar extras, by name. */
  extras: Map<string, Bins>;
  /** 1 where the column holds such a step, else 0. */
  terminated: Uint8Array;
  truncated: Uint8Array;
  nonFinite: Uint8Array;
}

const first = (c: number, domain: number, columns: number): number => Math.floor((c * domain) / columns);

/**
 * Min and max of `values` per column, for a strip of `columns` pixels over
 * `domain` positions (value i sits at position i). NaN and infinite values are
 * left out; columns with no value left are NaN.
 */
export function binMinMax(values: Float64Array, domain: number, columns: number): Bins {
  const min = new Float64Array(columns).fill(Number.NaN);
  const max = new Float64Array(columns).fill(Number.NaN);
  for (let c = 0; c < columns; c++) {
    const start = first(c, domain, columns);
    // At least one position per column, so a short series still fills the strip.
    const end = Math.min(values.length, Math.max(start + 1, first(c + 1, domain, columns)));
    let lo = Number.POSITIVE_INFINITY;
    let hi = Number.NEGATIVE_INFINITY;
    for (let i = start; i < end; i++) {
      const value = values[i];
      if (!Number.isFinite(value)) continue;
      if (value < lo) lo = value;
      if (value > hi) hi = value;
    }
    if (lo <= hi) {
      min[c] = lo;
      max[c] = hi;
    }
  }
  return { min, max };
}

/** 1 in each column holding one of `steps` (positions of a strip over `domain`). */
export function markColumns(steps: Iterable<number>, domain: number, columns: number): Uint8Array {
  const marks = new Uint8Array(columns);
  for (const t of steps) {
    // The columns whose range holds t: one, or several when columns outnumber positions.
    const last = Math.ceil(((t + 1) * columns) / domain) - 1;
    for (let c = Math.min(last, Math.ceil((t * columns) / domain)); c <= last; c++) {
      if (c >= 0 && c < columns) marks[c] = 1;
    }
  }
  return marks;
}

/** The steps where `flags` is set. */
function setSteps(flags: Float64Array): number[] {
  const steps: number[] = [];
  for (let t = 0; t < flags.length; t++) if (flags[t] !== 0) steps.push(t);
  return steps;
}

/** The columns of positions `from .. to - 1` (all by default) of exact series, for a strip `columns` wide. */
export function columnsOfSeries(series: Series, length: number, columns: number, from = 0, to = length): TimelineColumns {
  const span = to - from;
  const bins = (values: Float64Array) => binMinMax(values.subarray(from, Math.min(to, values.length)), span, columns);
  const marks = (steps: number[]) => markColumns(steps.filter((t) => t >= from && t < to).map((t) => t - from), span, columns);
  const extras = new Map<string, Bins>();
  for (const [name, values] of series.extras) extras.set(name, bins(values));
  return {
    rewards: bins(series.rewards),
    returns: bins(series.returns),
    extras,
    terminated: marks(setSteps(series.terminated)),
    truncated: marks(setSteps(series.truncated)),
    nonFinite: marks(nonFiniteSteps(series.rewards)),
  };
}

/** Whether the `summary` trait holds a summary (a long episode's), without reading it. */
export function hasSummary(raw: unknown): boolean {
  return typeof raw === "object" && raw !== null && "rewards.min" in raw;
}

/** Reads the `summary` trait; undefined when it is empty (the series came whole) or unreadable. */
export function parseSummary(raw: unknown): TimelineColumns | undefined {
  const dict = (raw ?? {}) as Record<string, unknown>;
  if (!hasSummary(dict)) return undefined;
  // Each value is one number a column, at most 8 bytes: that bounds what it may inflate to.
  const read = (value: unknown): Float64Array => {
    const bytes = bytesOf(value);
    if (bytes === undefined) return new Float64Array(0);
    return readSeries(inflateBounded(bytes, 4 + 8 * 65_536));
  };
  try {
    const bins = (name: string): Bins => ({ min: read(dict[`${name}.min`]), max: read(dict[`${name}.max`]) });
    const flags = (name: string) => Uint8Array.from(read(dict[name]));
    const extras = new Map<string, Bins>();
    for (const key of Object.keys(dict)) {
      if (key.startsWith("extra:") && key.endsWith(".min")) {
        const name = key.slice(0, -".min".length);
        extras.set(name.slice("extra:".length), bins(name));
      }
    }
    const columns: TimelineColumns = {
      rewards: bins("rewards"),
      returns: bins("returns"),
      extras,
      terminated: flags("terminated"),
      truncated: flags("truncated"),
      nonFinite: flags("nonfinite"),
    };
    const count = columns.returns.min.length;
    const all = [columns.rewards, columns.returns, ...extras.values()].flatMap((b) => [b.min, b.max]);
    const sized = [...all, columns.terminated, columns.truncated, columns.nonFinite].every((a) => a.length === count);
    if (!sized) throw new Error("its series have different numbers of columns");
    return columns;
  } catch (error) {
    console.warn("agent-widget: the timeline's summary cannot be read:", error);
    return undefined;
  }
}

/** Every series of `source` made anew: `bins` for the min/max pairs, `marks` for the flags. */
function mapColumns(source: TimelineColumns, bins: (b: Bins) => Bins, marks: (m: Uint8Array) => Uint8Array): TimelineColumns {
  const extras = new Map<string, Bins>();
  for (const [name, b] of source.extras) extras.set(name, bins(b));
  return {
    rewards: bins(source.rewards),
    returns: bins(source.returns),
    extras,
    terminated: marks(source.terminated),
    truncated: marks(source.truncated),
    nonFinite: marks(source.nonFinite),
  };
}

/** The columns of `source` (a summary over `length` positions) that cover positions `from .. to - 1`. */
export function sliceColumns(source: TimelineColumns, length: number, from: number, to: number): TimelineColumns {
  const count = source.returns.min.length;
  const a = Math.min(count - 1, Math.floor((from * count) / length));
  const b = Math.max(a + 1, Math.ceil((to * count) / length));
  return mapColumns(source, (bins) => ({ min: bins.min.subarray(a, b), max: bins.max.subarray(a, b) }), (m) => m.subarray(a, b));
}

/** How many positions a column of `source` (a summary over `length` positions) covers. */
export function positionsPerColumn(source: TimelineColumns, length: number): number {
  return length / Math.max(1, source.returns.min.length);
}

/** `source` (any number of columns) as `columns` columns: min of mins, max of maxes, any mark. */
export function rebin(source: TimelineColumns, columns: number): TimelineColumns {
  const count = source.returns.min.length;
  if (count === columns) return source;
  const ranges = Array.from({ length: columns }, (_, c) => {
    const start = first(c, count, columns);
    return [start, Math.max(start + 1, first(c + 1, count, columns))];
  });
  const bins = (b: Bins): Bins => {
    const min = new Float64Array(columns).fill(Number.NaN);
    const max = new Float64Array(columns).fill(Number.NaN);
    ranges.forEach(([start, end], c) => {
      for (let i = start; i < Math.min(end, count); i++) {
        // NaN (a column with no finite value) is left out, as binMinMax leaves it out.
        if (b.min[i] < min[c] || Number.isNaN(min[c])) min[c] = b.min[i];
        if (b.max[i] > max[c] || Number.isNaN(max[c])) max[c] = b.max[i];
      }
    });
    return { min, max };
  };
  const marks = (m: Uint8Array): Uint8Array => {
    const out = new Uint8Array(columns);
    ranges.forEach(([start, end], c) => {
      for (let i = start; i < Math.min(end, count); i++) out[c] |= m[i];
    });
    return out;
  };
  return mapColumns(source, bins, marks);
}
