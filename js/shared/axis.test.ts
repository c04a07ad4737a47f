import { describe, expect, it } from "vitest";
import { fractionOf, logAxis, niceStep, rateAxis, stepTicks, tickLabels, ticksWithin, valueAxis } from "./axis.ts";

describe("niceStep", () => {
  it("rounds up to 1, 2, 2.5 or 5 times a power of ten", () => {
    expect([0.07, 0.1, 0.3 / 3, 1.5, 2.2, 3, 7, 12, 49, 50, 51].map(niceStep)).toEqual([0.1, 0.1, 0.1, 2, 2.5, 5, 10, 20, 50, 50, 100]);
  });
});

describe("valueAxis", () => {
  it("spans a return of 0 to 150 with four round ticks", () => {
    expect(valueAxis(0, 150)).toEqual({ lo: 0, hi: 150, ticks: [0, 50, 100, 150], labels: ["0", "50", "100", "150"] });
  });

  it("fits the data: its ends hold it with no more than 15% headroom, a few nice ticks inside", () => {
    for (const [lo, hi, most] of [[0, 1, 5], [-21, 3, 5], [0.0012, 0.0049, 5], [3, 1e6, 5], [-0.5, 0.25, 5], [9, 10, 5], [0, 22, 3], [0, 220, 3], [-268.3, -0.5, 3], [0.1, 0.55, 3]]) {
      const axis = valueAxis(lo, hi, most);
      const what = `${lo}..${hi}: ${JSON.stringify(axis)}`;
      expect(axis.lo, what).toBeLessThanOrEqual(lo);
      expect(axis.hi, what).toBeGreaterThanOrEqual(hi);
      expect(axis.hi - axis.lo, what).toBeLessThanOrEqual((hi - lo) * 1.15 + 1e-12);
      expect(axis.ticks.length, what).toBeGreaterThanOrEqual(2);
      expect(axis.ticks.length, what).toBeLessThanOrEqual(most + 1);
      for (const tick of axis.ticks) expect(tick >= axis.lo && tick <= axis.hi, what).toBe(true);
    }
  });

  it("puts a maximum of 220 under a top of 220, not 400, labelled 0, 100, 200", () => {
    expect(valueAxis(0, 220, 3)).toEqual({ lo: 0, hi: 220, ticks: [0, 100, 200], labels: ["0", "100", "200"] });
  });

  it("ends on round ticks where they add little, else at the data", () => {
    expect(valueAxis(-21, 3).ticks).toEqual([-20, -15, -10, -5, 0]);
    expect(valueAxis(0.0012, 0.0049)).toMatchObject({ lo: 0.001, hi: 0.005 });
  });

  it("keeps to fewer ticks when asked (a short strip), one more rather than only two", () => {
    expect(valueAxis(0, 220, 3).ticks).toEqual([0, 100, 200]);
    expect(valueAxis(0, 150, 3).ticks).toEqual([0, 50, 100, 150]);
    expect(valueAxis(0, 334, 3).ticks).toEqual([0, 100, 200, 300]);
    expect(valueAxis(0, 334, 3, 2).ticks).toEqual([0, 200]); // a band too short for four labels
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

describe("logAxis", () => {
  it("ticks the powers of ten inside positive data, its ends rounded out within the headroom", () => {
    expect(logAxis(1, 500, 3)).toEqual({ lo: 1, hi: 1000, ticks: [1, 10, 100], labels: ["1", "10", "100"], log: true });
    expect(logAxis(10, 100_000, 3).labels).toEqual(["10", "1000", "100k"]);
  });

  it("ticks 1, 2 and 5 times a power of ten when the data span less than a decade", () => {
    expect(logAxis(3, 70, 3).ticks).toEqual([5, 10, 20]);
  });

  it("places values by their ratio, none at or below zero", () => {
    const axis = logAxis(1, 100);
    expect(fractionOf(axis, 10)).toBeCloseTo(0.5);
    expect(fractionOf(axis, 0)).toBeNaN();
    expect(fractionOf(axis, -1)).toBeNaN();
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
