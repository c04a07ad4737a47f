import { describe, expect, it } from "vitest";
import { columnsOfSeries } from "./columns.ts";
import { returnsOf, type Series } from "./series.ts";
import { extraGroups, groupOf, timelineAxes } from "./timeline-axes.ts";

/** An episode with `rewards` and `extras`. */
function seriesOf(rewards: number[], extras: Record<string, number[]> = {}): Series {
  const r = Float64Array.from(rewards);
  return {
    rewards: r,
    returns: returnsOf(r, r.length + 1),
    terminated: new Float64Array(r.length),
    truncated: new Float64Array(r.length),
    actions: undefined,
    extras: new Map(Object.entries(extras).map(([name, v]) => [name, Float64Array.from(v)])),
  };
}

/** Its columns, one per position. */
function columns(rewards: number[], extras: Record<string, number[]> = {}) {
  return columnsOfSeries(seriesOf(rewards, extras), rewards.length + 1, rewards.length + 1);
}

describe("extraGroups", () => {
  it("gives a vector extra's components one band, each other extra its own, the agents' returns none", () => {
    expect(groupOf("mean[0]")).toBe("mean");
    expect(extraGroups(["mean[0]", "mean[1]", "value", "return[player_0]", "return[player_1]", "td_error"])).toEqual(["mean", "value", "td_error"]);
  });
});

describe("timelineAxes", () => {
  it("fits each extra's own axis to it: a moving average of 0.39 reads as 0.39, not as 800", () => {
    const axes = timelineAxes(columns([200, 220], { "moving average": [0.2, 0.39] }), new Set(), false);
    const average = axes.groups.get("moving average")!;
    expect(average.lo).toBeLessThanOrEqual(0.2);
    expect(average.hi).toBeGreaterThanOrEqual(0.39);
    expect(average.hi).toBeLessThan(0.5);
    expect(axes.returns.hi).toBe(420);
  });

  it("puts the components of a vector extra on one axis spanning them all", () => {
    const axes = timelineAxes(columns([0, 0], { "mean[0]": [-0.5, 0], "mean[1]": [0.2, 0.9] }), new Set(), false);
    const mean = axes.groups.get("mean")!;
    expect(mean.lo).toBeLessThanOrEqual(-0.5);
    expect(mean.hi).toBeGreaterThanOrEqual(0.9);
    expect(mean.hi - mean.lo).toBeLessThanOrEqual(1.4 * 1.15);
  });

  it("puts Connect Four's per-agent returns on the return's axis, so that 0 sits on its 0 label", () => {
    const axes = timelineAxes(columns([0, 0, 0], { "return[player_0]": [0, 0, 1], "return[player_1]": [0, 0, -1] }), new Set(), false);
    expect(axes.groups.size).toBe(0);
    expect(axes.returns.ticks).toEqual([-1, 0, 1]);
    expect(axes.returns.labels).toEqual(["-1", "0", "1"]);
  });

  it("keeps an extra's short band to at most three labels, the main band to four", () => {
    const axes = timelineAxes(columns([100, 100, 134], { value: [-60, 0, 110] }), new Set(), false);
    expect(axes.groups.get("value")!.ticks.length).toBeLessThanOrEqual(3);
    expect(axes.returns.ticks).toEqual([0, 100, 200, 300]);
  });

  it("draws a rate on 0 to 1 whatever its values", () => {
    const axes = timelineAxes(columns([1], { "success rate": [0.03] }), new Set(["success rate"]), false);
    expect(axes.groups.get("success rate")!.ticks).toEqual([0, 0.5, 1]);
  });

  it("turns to log axes where asked and the values allow, leaving rates and all-negative axes linear", () => {
    const axes = timelineAxes(columns([1, 10, 100], { value: [-3, -1, -2], "success rate": [0.5, 0.5, 1] }), new Set(["success rate"]), true);
    expect(axes.returns.log).toBe(true);
    expect(axes.returns.ticks).toEqual([1, 10, 100]);
    expect(axes.rewards.log).toBe(true);
    expect(axes.groups.get("value")!.log).toBeUndefined();
    expect(axes.groups.get("success rate")!.log).toBeUndefined();
  });

  it("rescales with a zoom: an axis fits the columns drawn", () => {
    const whole = timelineAxes(columns([1, 1, 1, 1], { value: [0, 10, 1, 2] }), new Set(), false).groups.get("value")!;
    const zoomed = columnsOfSeries(seriesOf([1, 1, 1, 1], { value: [0, 10, 1, 2] }), 5, 2, 2, 4);
    const part = timelineAxes(zoomed, new Set(), false).groups.get("value")!;
    expect(whole.hi).toBe(10);
    expect(part.hi).toBeLessThanOrEqual(2.3);
  });
});
