import { describe, expect, it } from "vitest";
import { nonFiniteSteps, parseSeries, readSeries, returnsOf, toFloat64 } from "./series.ts";
import { packSeries } from "./test-helpers.ts";

const packed = (values: number[], offset = 0) => {
  const bytes = new Uint8Array(offset + values.length * 8);
  const view = new DataView(bytes.buffer, offset);
  values.forEach((v, i) => view.setFloat64(i * 8, v, true));
  return new DataView(bytes.buffer, offset, values.length * 8);
};

describe("toFloat64", () => {
  it("reads little-endian float64 from a DataView, even one at an unaligned offset", () => {
    expect([...toFloat64(packed([1.5, -2, 1e9], 3))]).toEqual([1.5, -2, 1e9]);
  });

  it("accepts an ArrayBuffer or a typed array too", () => {
    const view = packed([0.25, 4]);
    expect([...toFloat64(view.buffer)]).toEqual([0.25, 4]);
    expect([...toFloat64(new Uint8Array(view.buffer))]).toEqual([0.25, 4]);
  });

  it("treats a missing value as an empty series", () => {
    expect(toFloat64(undefined).length).toBe(0);
  });
});

describe("readSeries", () => {
  it("reads the values in the dtype its header names, at any offset", () => {
    expect([...readSeries(packSeries("|u1", [0, 1, 255]))]).toEqual([0, 1, 255]);
    expect([...readSeries(packSeries("|i1", [-1, 0, 1], 3))]).toEqual([-1, 0, 1]);
    expect([...readSeries(packSeries("<i2", [-300, 7], 1))]).toEqual([-300, 7]);
    expect([...readSeries(packSeries("<f4", [0.5, -0.25]))]).toEqual([0.5, -0.25]);
    expect([...readSeries(packSeries("<f8", [0.1, 1e300], 5))]).toEqual([0.1, 1e300]);
  });

  it("leaves out a series of an unknown dtype or without a header", () => {
    const odd = new Uint8Array([...new TextEncoder().encode("<c8 "), 1, 2]);
    expect(readSeries(odd).length).toBe(0);
    expect(readSeries(new Uint8Array([1])).length).toBe(0);
    expect(readSeries(undefined).length).toBe(0);
  });
});

describe("returnsOf", () => {
  it("sums the rewards before each position, for every position", () => {
    expect([...returnsOf(Float64Array.from([1, -0.5, 2]), 4)]).toEqual([0, 1, 0.5, 2.5]);
    // One frame per action: the last position has a reward, not yet in its return.
    expect([...returnsOf(Float64Array.from([1, 1]), 2)]).toEqual([0, 1]);
  });

  it("leaves NaN and infinite rewards out, so the return goes on past them", () => {
    const rewards = Float64Array.from([1, Number.NaN, 2, Number.POSITIVE_INFINITY, 1]);
    expect([...returnsOf(rewards, 6)]).toEqual([0, 1, 1, 3, 3, 4]);
    expect(nonFiniteSteps(rewards)).toEqual([1, 3]);
  });
});

describe("parseSeries", () => {
  it("splits the trait into the known series and the user's extras, and sums the returns", () => {
    const s = parseSeries(
      {
        rewards: packSeries("|i1", [1, 0]),
        terminated: packSeries("|u1", [0, 1]),
        truncated: packSeries("|u1", [0, 0]),
        "extra:value": packSeries("<f4", [0.5, 0.25]),
      },
      3,
    );
    expect([...s.rewards]).toEqual([1, 0]);
    expect([...s.returns]).toEqual([0, 1, 1]);
    expect([...s.terminated]).toEqual([0, 1]);
    expect(s.actions).toBeUndefined();
    expect([...s.extras.keys()]).toEqual(["value"]);
    expect([...s.extras.get("value")!]).toEqual([0.5, 0.25]);
  });

  it("sums no returns when the rewards are missing (a long episode's summary stands for them)", () => {
    const s = parseSeries({}, 100_001);
    expect(s.rewards.length).toBe(0);
    expect(s.returns.length).toBe(0);
    expect([...parseSeries({ rewards: packSeries("|i1", []) }, 1).returns]).toEqual([0]);
  });
});
