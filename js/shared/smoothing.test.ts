import { describe, expect, it } from "vitest";
import { ema, emaOfBins } from "./smoothing.ts";

const rounded = (values: Float64Array) => [...values].map((v) => Math.round(v * 1e4) / 1e4);

describe("ema", () => {
  it("averages as TensorBoard does, debiased so the first point is itself", () => {
    expect(rounded(ema(Float64Array.of(1, 0, 1, 0), 0.6))).toEqual([1, 0.375, 0.6939, 0.375]);
  });

  it("leaves a series alone at weight 0 and a constant one at any weight", () => {
    expect([...ema(Float64Array.of(3, -1, 2), 0)]).toEqual([3, -1, 2]);
    expect(rounded(ema(Float64Array.of(5, 5, 5), 0.99))).toEqual([5, 5, 5]);
  });

  it("skips NaN and infinite values, which stay NaN, and clamps the weight below 1", () => {
    const out = ema(Float64Array.of(2, Number.NaN, Number.POSITIVE_INFINITY, 4), 0.5);
    expect(Number.isNaN(out[1]) && Number.isNaN(out[2])).toBe(true);
    expect(rounded(out.subarray(3))).toEqual([3.3333]);
    expect(ema(Float64Array.of(1, 0), 1)[1]).toBeLessThan(1);
  });
});

describe("emaOfBins", () => {
  it("smooths the middles of a summary's columns, one value a column", () => {
    const { min, max } = emaOfBins({ min: Float64Array.of(0, 2), max: Float64Array.of(2, 2) }, 0);
    expect([...min]).toEqual([1, 2]);
    expect([...max]).toEqual([1, 2]);
  });
});
