import { describe, expect, it } from "vitest";
import { parseSeries, toFloat64 } from "./series.ts";

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

describe("parseSeries", () => {
  it("splits the trait into the known series and the user's extras", () => {
    const s = parseSeries({
      rewards: packed([1, 0]),
      returns: packed([0, 1, 1]),
      terminated: packed([0, 1]),
      truncated: packed([0, 0]),
      "extra:value": packed([0.5, 0.25]),
    });
    expect([...s.rewards]).toEqual([1, 0]);
    expect([...s.returns]).toEqual([0, 1, 1]);
    expect(s.actions).toBeUndefined();
    expect([...s.extras.keys()]).toEqual(["value"]);
    expect([...s.extras.get("value")!]).toEqual([0.5, 0.25]);
  });
});
