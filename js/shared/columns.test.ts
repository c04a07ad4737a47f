import { deflateSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { binMinMax, columnsOfSeries, markColumns, parseSummary, rebin, sliceColumns, type TimelineColumns } from "./columns.ts";
import { parseSeries } from "./series.ts";

const f64 = (values: number[]) => Float64Array.from(values);

/** A series value as the kernel packs it (`pack_series`), deflated as the summary holds it. */
function packed(dtype: "|i1" | "<f4" | "|u1", values: number[]): Uint8Array {
  const size = dtype === "<f4" ? 4 : 1;
  const bytes = new Uint8Array(4 + size * values.length);
  bytes.set([...`${dtype} `].map((ch) => ch.charCodeAt(0)));
  const view = new DataView(bytes.buffer);
  values.forEach((v, i) => {
    if (dtype === "<f4") view.setFloat32(4 + 4 * i, v, true);
    else if (dtype === "|i1") view.setInt8(4 + i, v);
    else view.setUint8(4 + i, v);
  });
  return new Uint8Array(deflateSync(bytes));
}

const summaryOf = (columns: number, extra?: number[]) => ({
  "rewards.min": packed("|i1", Array(columns).fill(0)),
  "rewards.max": packed("|i1", [1, ...Array(columns - 1).fill(0)]),
  "returns.min": packed("|i1", Array.from({ length: columns }, (_, c) => c)),
  "returns.max": packed("|i1", Array.from({ length: columns }, (_, c) => c + 1)),
  terminated: packed("|u1", [...Array(columns - 1).fill(0), 1]),
  truncated: packed("|u1", Array(columns).fill(0)),
  nonfinite: packed("|u1", Array(columns).fill(0)),
  ...(extra === undefined ? {} : { "extra:q.v.min": packed("<f4", extra), "extra:q.v.max": packed("<f4", extra) }),
});

describe("parseSummary", () => {
  it("reads the kernel's deflated per-column series, extras by name (dots and all)", () => {
    const columns = parseSummary(summaryOf(4, [0.5, 0.25, 1, 2]))!;
    expect([...columns.returns.max]).toEqual([1, 2, 3, 4]);
    expect([...columns.rewards.max]).toEqual([1, 0, 0, 0]);
    expect([...columns.terminated]).toEqual([0, 0, 0, 1]);
    expect([...columns.extras.keys()]).toEqual(["q.v"]);
    expect([...columns.extras.get("q.v")!.min]).toEqual([0.5, 0.25, 1, 2]);
  });

  it("is undefined when the series came whole (an empty summary)", () => {
    expect(parseSummary({})).toBeUndefined();
    expect(parseSummary(undefined)).toBeUndefined();
  });

  it("refuses series of different lengths and a value that is not zlib, without throwing", () => {
    expect(parseSummary({ ...summaryOf(4), truncated: packed("|u1", [0]) })).toBeUndefined();
    expect(parseSummary({ ...summaryOf(4), truncated: new Uint8Array([1, 2, 3]) })).toBeUndefined();
  });

  it("refuses a value that inflates past what any summary holds (a zlib bomb)", () => {
    const bomb = new Uint8Array(deflateSync(new Uint8Array(10_000_000)));
    expect(parseSummary({ ...summaryOf(4), nonfinite: bomb })).toBeUndefined();
  });
});

describe("rebin", () => {
  const columns = (): TimelineColumns => parseSummary(summaryOf(8))!;

  it("merges columns: min of the mins, max of the maxes, any mark", () => {
    const two = rebin(columns(), 2);
    expect([...two.returns.min]).toEqual([0, 4]);
    expect([...two.returns.max]).toEqual([4, 8]);
    expect([...two.rewards.max]).toEqual([1, 0]);
    expect([...two.terminated]).toEqual([0, 1]);
  });

  it("stretches a summary over a wider strip, each column taking the one under it", () => {
    const wide = rebin(columns(), 16);
    expect([...wide.returns.max.subarray(0, 4)]).toEqual([1, 1, 2, 2]);
    expect(wide.terminated[15]).toBe(1);
    expect(wide.terminated[13]).toBe(0);
  });

  it("leaves a column with no finite value out", () => {
    const source = columns();
    source.returns.min[0] = Number.NaN;
    source.returns.max[0] = Number.NaN;
    expect([...rebin(source, 4).returns.max.subarray(0, 1)]).toEqual([2]);
  });
});

describe("sliceColumns", () => {
  it("takes the summary's columns covering a range of positions", () => {
    const columns = parseSummary(summaryOf(8))!; // 8 columns over 800 positions: 100 each
    const slice = sliceColumns(columns, 800, 250, 420);
    expect([...slice.returns.min]).toEqual([2, 3, 4]);
    expect([...sliceColumns(columns, 800, 799, 800).terminated]).toEqual([1]);
  });
});

describe("markColumns / columnsOfSeries", () => {
  it("marks the one column holding a step, or every column a step spans when columns outnumber steps", () => {
    expect([...markColumns([5], 10, 5)]).toEqual([0, 0, 1, 0, 0]);
    expect([...markColumns([1], 2, 6)]).toEqual([0, 0, 0, 1, 1, 1]);
  });

  it("bins a zoomed range of exact series: positions from .. to - 1 across the strip", () => {
    const bytes = Uint8Array.from([...'|i1 '].map((ch) => ch.charCodeAt(0)).concat([0, 0, 5, 0, 0, 0, 0, 7, 0]));
    const flags = Uint8Array.from([...'|u1 '].map((ch) => ch.charCodeAt(0)).concat([0, 0, 0, 1, 0, 0, 0, 0, 0]));
    const series = parseSeries({ rewards: bytes, terminated: flags }, 10);
    const columns = columnsOfSeries(series, 10, 2, 2, 6); // positions 2..5 in two columns
    expect([...columns.rewards.max]).toEqual([5, 0]);
    expect([...columns.returns.min]).toEqual([0, 5]);
    expect([...columns.terminated]).toEqual([1, 0]);
  });

  it("bins exact series as the kernel's summary does: column c starts at floor(c * n / columns)", () => {
    const bytes = (values: number[]) => {
      const out = new Uint8Array(4 + values.length);
      out.set([...'|i1 '].map((ch) => ch.charCodeAt(0)));
      out.set(values, 4);
      return out;
    };
    const series = parseSeries({ rewards: bytes([1, 0, 0, 0, 0, 2]), terminated: bytes([0, 0, 0, 0, 0, 1]) }, 7);
    const columns = columnsOfSeries(series, 7, 3);
    // Columns over positions [0, 2), [2, 4), [4, 7).
    expect([...columns.rewards.max]).toEqual([1, 0, 2]);
    expect([...columns.returns.max]).toEqual([1, 1, 3]);
    expect([...columns.terminated]).toEqual([0, 0, 1]);
  });
});

describe("binMinMax", () => {
  it("gives each pixel column the min and max of the steps it covers", () => {
    const { min, max } = binMinMax(f64([1, -2, 5, 0, 3, 3]), 6, 3);
    expect([...min]).toEqual([-2, 0, 3]);
    expect([...max]).toEqual([1, 5, 3]);
  });

  it("repeats a step across the columns it spans when there are fewer steps than pixels", () => {
    const { min, max } = binMinMax(f64([4, 7]), 2, 4);
    expect([...min]).toEqual([4, 4, 7, 7]);
    expect([...max]).toEqual([4, 4, 7, 7]);
  });

  it("keeps a single-step spike visible among 100,000 steps", () => {
    const values = new Float64Array(100_000);
    values[54_321] = 1;
    const { max } = binMinMax(values, values.length, 800);
    const column = Math.floor((54_321 * 800) / 100_000);
    expect(max[column]).toBe(1);
    expect(max.reduce((sum, v) => sum + v, 0)).toBe(1);
  });

  it("leaves columns past the end of a shorter series empty (rewards have one entry fewer than positions)", () => {
    const { min } = binMinMax(f64([1, 2, 3]), 4, 4);
    expect([...min.subarray(0, 3)]).toEqual([1, 2, 3]);
    expect(Number.isNaN(min[3])).toBe(true);
  });

  it("leaves infinite values out of the range", () => {
    const { min, max } = binMinMax(f64([Number.NEGATIVE_INFINITY, 2, 1, Number.POSITIVE_INFINITY]), 4, 2);
    expect([...min]).toEqual([2, 1]);
    expect([...max]).toEqual([2, 1]);
  });

  it("skips NaN values", () => {
    const { min, max } = binMinMax(f64([Number.NaN, 2, Number.NaN, Number.NaN]), 4, 2);
    expect([min[0], max[0]]).toEqual([2, 2]);
    expect(Number.isNaN(min[1])).toBe(true);
  });
});
