import { describe, expect, it } from "vitest";
import { positionAt } from "./curve.ts";
import { inSteps, pointSteps } from "./curve-steps.ts";
import type { Series } from "../shared/series.ts";

/** Three episodes of 2, 5 and 3 steps returning 1, 0 and 1, with a moving average. */
const series: Series = {
  rewards: Float64Array.from([1, 0, 1]),
  returns: Float64Array.from([0, 1, 1, 2]),
  terminated: new Float64Array(0),
  truncated: new Float64Array(0),
  actions: undefined,
  extras: new Map([["moving average", Float64Array.from([1, 0.5, 2 / 3])]]),
};
const ends = pointSteps([2, 7, 10]);

describe("the learning curve in env steps", () => {
  it("puts each point at the steps taken by its episode's end", () => {
    expect([...ends]).toEqual([0, 2, 7, 10]);
  });

  it("holds each episode's return over the steps it took", () => {
    expect([...inSteps(series, ends).rewards]).toEqual([1, 1, 0, 0, 0, 0, 0, 1, 1, 1]);
  });

  it("steps the total return up at each episode's end", () => {
    expect([...inSteps(series, ends).returns]).toEqual([0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 2]);
  });

  it("holds the extras over each episode", () => {
    const average = inSteps(series, ends).extras.get("moving average");
    expect([...(average ?? [])].map((v) => v.toFixed(2))).toEqual(["1.00", "1.00", ...Array(5).fill("0.50"), ...Array(3).fill("0.67")]);
  });

  it("goes from a step clicked to the episodes trained by then", () => {
    expect([0, 1, 2, 6, 7, 9, 10].map((step) => positionAt(ends, step))).toEqual([0, 0, 1, 1, 2, 2, 3]);
  });

  it("is empty before the first episode", () => {
    const none: Series = { ...series, rewards: new Float64Array(0), returns: Float64Array.from([0]), extras: new Map() };
    const laid = inSteps(none, pointSteps([]));
    expect(laid.rewards.length).toBe(0);
    expect([...laid.returns]).toEqual([0]);
  });
});
