import { describe, expect, it } from "vitest";
import { sharedRange } from "./chart.ts";
import { Alignment, endLabel, gridColumns, minCellWidth, toInt32 } from "./layout.ts";
import { parseSeries } from "../shared/series.ts";
import { packSeries } from "../shared/test-helpers.ts";

const f64 = (values: number[]) => Float64Array.from(values);

function packed(values: number[]): DataView {
  const view = new DataView(new ArrayBuffer(values.length * 4 + 1), 1); // unaligned on purpose
  values.forEach((v, i) => view.setInt32(i * 4, v, true));
  return view;
}

describe("toInt32", () => {
  it("reads packed little-endian int32 from an unaligned view", () => {
    expect([...toInt32(packed([0, 7, -1, 2 ** 30]))]).toEqual([0, 7, -1, 2 ** 30]);
  });

  it("reads anything else as empty", () => {
    expect(toInt32(undefined).length).toBe(0);
  });
});

describe("Alignment", () => {
  it("by step shows position p of every episode, an ended one holding its last", () => {
    const alignment = new Alignment([], [10, 4]);
    expect([0, 3, 9].map((p) => [alignment.at(0, p), alignment.at(1, p)])).toEqual([
      [0, 0],
      [3, 3],
      [9, 3],
    ]);
  });

  it("by key shows the kernel's position of each episode", () => {
    const alignment = new Alignment([toInt32(packed([0, 0, 1, 2])), toInt32(packed([0, 1, 1, 1]))], [3, 2]);
    expect([0, 1, 2, 3].map((p) => alignment.at(0, p))).toEqual([0, 0, 1, 2]);
    expect([0, 1, 2, 3].map((p) => alignment.at(1, p))).toEqual([0, 1, 1, 1]);
  });

  it("lays a series out on the shared positions (returns of a held episode stay flat)", () => {
    const alignment = new Alignment([], [5, 3]);
    expect([...alignment.aligned(1, f64([0, 1, 3]), 5)]).toEqual([0, 1, 3, 3, 3]);
  });
});

describe("endLabel", () => {
  const series = (terminated: number[], truncated: number[]) =>
    parseSeries({ terminated: packSeries("|u1", terminated), truncated: packSeries("|u1", truncated) }, 3);

  it("is empty before the last position", () => {
    expect(endLabel(series([0, 1], [0, 0]), 1, 3)).toBe("");
  });

  it("says how the episode ended at its last position", () => {
    expect(endLabel(series([0, 1], [0, 0]), 2, 3)).toBe("terminated at t = 2");
    expect(endLabel(series([0, 0], [0, 1]), 2, 3)).toBe("truncated at t = 2");
    expect(endLabel(series([0, 0], [0, 0]), 2, 3)).toBe("ended at t = 2");
  });
});

describe("gridColumns", () => {
  it("fits as many cells of the minimum width as there is room for", () => {
    expect(gridColumns(3, 1000, 280, 0)).toBe(3);
    expect(gridColumns(2, 500, 280, 0)).toBe(1);
  });

  it("evens the rows out: four cells with room for three make two by two", () => {
    expect(gridColumns(4, 900, 280, 0)).toBe(2);
    expect(gridColumns(5, 900, 280, 0)).toBe(3);
  });

  it("takes a fixed number of columns, never more than the cells", () => {
    expect(gridColumns(4, 300, 280, 4)).toBe(4);
    expect(gridColumns(2, 2000, 280, 3)).toBe(2);
  });
});

describe("sharedRange", () => {
  it("spans every line, skipping NaN, so that returns compare on one scale", () => {
    expect(sharedRange([f64([0, 2, Number.NaN]), f64([-1, 1])])).toEqual({ lo: -1, hi: 2 });
  });
});

describe("minCellWidth", () => {
  it("keeps frames side by side in a 420 px cell", () => {
    expect(gridColumns(2, 420, minCellWidth(420), 0)).toBe(2);
    expect(gridColumns(3, 420, minCellWidth(420), 0)).toBe(2);
  });

  it("keeps wide columns where there is room for two of them", () => {
    expect(minCellWidth(560)).toBe(280);
    expect(gridColumns(3, 700, minCellWidth(700), 0)).toBe(2);
  });
});
