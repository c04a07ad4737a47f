import { describe, expect, it } from "vitest";
import { fractionOf, niceStep, rateAxis, stepTicks, tickLabels, ticksWithin, valueAxis } from "./axis.ts";

describe("niceStep", () => {
  it("rounds up to 1, 2, 2.5 or 5 times a power of ten", () => {
    expect([0.07, 0.1, 0.3 / 3, 1.5, 2.2, 3, 7, 12, 49, 50, 51].map(niceStep)).toEqual([0.1, 0.1, 0.1, 2, 2.5, 5, 10, 20, 50, 50, 100]);
  });
});

describe("valueAxis", () => {
  it("spans a return of 0 to 150 with four round ticks", () => {
    expect(valueAxis(0, 150)).toEqual({ lo: 0, hi: 150, ticks: [0, 50, 100, 150], labels: ["0", "50", "100", "150"] });
  });

  it("ends on ticks around the data, 3 to 5 of them", () => {
    const axis = valueAxis(-3, 22);
    expect(axis.lo).toBeLessThanOrEqual(-3);
    expect(axis.hi).toBeGreaterThanOrEqual(22);
    for (const [lo, hi] of [[0, 1], [-21, 3], [0.0012, 0.0049], [3, 1e6], [-0.5, 0.25], [9, 10], [0, 22]]) {
      const { ticks } = valueAxis(lo, hi);
      expect(ticks.length, `${lo}..${hi}: ${ticks}`).toBeGreaterThanOrEqual(3);
      expect(ticks.length, `${lo}..${hi}: ${ticks}`).toBeLessThanOrEqual(5);
      expect(ticks[0]).toBeLessThanOrEqual(lo);
      expect(ticks[ticks.length - 1]).toBeGreaterThanOrEqual(hi);
    }
  });

  it("keeps to fewer ticks when asked (a short strip)", () => {
    expect(valueAxis(0, 150, 3).ticks).toEqual([0, 100, 200]);
  });

  it("draws a constant series from zero, so that CartPole's reward of 1 fills its axis", () => {
    expect(valueAxis(1, 1, 3).ticks).toEqual([0, 0.5, 1]);
    expect(valueAxis(-1, -1, 3).ticks).toEqual([-1, -0.5, 0]);
    expect(valueAxis(0, 0, 3).ticks).toEqual([0, 0.5, 1]);
    expect(valueAxis(1, 1).ticks).toEqual([0, 0.25, 0.5, 0.75, 1]);
  });

  it("falls back to 0 to 1 without finite data", () => {
    expect(valueAxis(Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY).ticks).toEqual([0, 0.5, 1]);
  });

  it("labels every tick with one number of decimals, without float noise", () => {
    expect(valueAxis(0, 0.3).labels).toEqual(["0.0", "0.1", "0.2", "0.3"]);
    expect(valueAxis(-1, 1).labels).toEqual(["-1.0", "-0.5", "0.0", "0.5", "1.0"]);
  });
});

describe("ticksWithin", () => {
  it("keeps to a fixed scale, ticks inside it only", () => {
    expect(ticksWithin(-3, 7)).toEqual([-2, 0, 2, 4, 6]);
    expect(ticksWithin(-0.02, 0.06, 3)).toEqual([0, 0.025, 0.05]);
    expect(ticksWithin(0, 1, 3)).toEqual([0, 0.5, 1]);
    expect(ticksWithin(0.1, 0.15, 3)).toEqual([0.1, 0.125, 0.15]);
    expect(ticksWithin(1.1, 1.9, 3)).toEqual([1.25, 1.5, 1.75]);
    expect(ticksWithin(2, 2)).toEqual([2]);
  });
});

describe("rateAxis", () => {
  it("is 0 to 1 whatever the rate", () => {
    expect(rateAxis()).toEqual({ lo: 0, hi: 1, ticks: [0, 0.5, 1], labels: ["0.0", "0.5", "1.0"] });
  });
});

describe("fractionOf", () => {
  it("places a value along its axis", () => {
    expect(fractionOf({ lo: -10, hi: 30 }, 0)).toBe(0.25);
    expect(fractionOf({ lo: 0, hi: 0 }, 0)).toBe(0);
  });
});

describe("tickLabels", () => {
  it("shortens thousands and millions past ten thousand", () => {
    expect(tickLabels([0, 20_000, 40_000])).toEqual(["0", "20k", "40k"]);
    expect(tickLabels([0, 500_000, 1_500_000, 2_000_000])).toEqual(["0", "0.5M", "1.5M", "2.0M"]);
    expect(tickLabels([0, 2000, 4000])).toEqual(["0", "2000", "4000"]);
    expect(tickLabels([10_001, 10_002])).toEqual(["10001", "10002"]);
  });
});

describe("stepTicks", () => {
  it("puts integer ticks at a nice step that keeps labels apart", () => {
    expect(stepTicks(0, 500, 800)).toEqual([0, 50, 100, 150, 200, 250, 300, 350, 400, 450]);
    expect(stepTicks(0, 500, 300)).toEqual([0, 200, 400]);
  });

  it("follows a zoom: finer ticks over a shorter range, starting at a multiple of the step", () => {
    expect(stepTicks(123, 163, 800)).toEqual([125, 130, 135, 140, 145, 150, 155, 160]);
  });

  it("steps by whole positions only", () => {
    expect(stepTicks(0, 30, 800)).toEqual([0, 5, 10, 15, 20, 25]);
  });

  it("never steps by less than one position", () => {
    expect(stepTicks(0, 4, 800)).toEqual([0, 1, 2, 3]);
  });
});
