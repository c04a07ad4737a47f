import { describe, expect, it } from "vitest";
import { contrast, THEMES } from "../shared/test-helpers.ts";
import { BAR_COLOR, HIGHLIGHT_COLOR, layoutBars, ROW_HEIGHT } from "./bars.ts";

const values = (...xs: number[]) => Float64Array.from(xs);

describe("layoutBars", () => {
  it("gives one row per value, top to bottom, labelled", () => {
    const layout = layoutBars(values(1, 2, 3), ["NOOP", "FIRE", "RIGHT"], 300);
    expect(layout.rows.map((r) => [r.label, r.y])).toEqual([
      ["NOOP", 2],
      ["FIRE", 2 + ROW_HEIGHT],
      ["RIGHT", 2 + 2 * ROW_HEIGHT],
    ]);
    expect(layout.height).toBe(3 * ROW_HEIGHT);
  });

  it("highlights the taken action's bar only", () => {
    const layout = layoutBars(values(1, 2, 3), ["a", "b", "c"], 300, { highlight: 1 });
    expect(layout.rows.map((r) => r.highlight)).toEqual([false, true, false]);
  });

  it("highlights nothing without an action", () => {
    expect(layoutBars(values(1, 2), ["a", "b"], 300).rows.some((r) => r.highlight)).toBe(false);
  });

  it("grows positive bars right from zero, in proportion, the largest to the right edge", () => {
    const layout = layoutBars(values(0, 1, 2), ["a", "b", "c"], 1000);
    expect(layout.zeroX).toBe(layout.left);
    const [zero, one, two] = layout.rows;
    expect(zero.width).toBe(0);
    expect(two.x + two.width).toBe(layout.right);
    expect(two.width).toBeCloseTo(2 * one.width);
  });

  it("puts zero inside the axis when values have both signs", () => {
    const layout = layoutBars(values(-1, 3), ["a", "b"], 1000);
    const [negative, positive] = layout.rows;
    expect(layout.zeroX).toBeCloseTo(layout.left + (layout.right - layout.left) / 4);
    expect(negative.x + negative.width).toBeCloseTo(layout.zeroX);
    expect(positive.x).toBeCloseTo(layout.zeroX);
    expect(positive.width).toBeCloseTo(3 * negative.width);
  });

  it("draws all-negative values leftwards from zero at the right edge", () => {
    const layout = layoutBars(values(-2, -1), ["a", "b"], 1000);
    expect(layout.zeroX).toBe(layout.right);
    expect(layout.rows[0].x).toBe(layout.left);
  });

  it("shows missing values as text without a bar and leaves them out of the axis", () => {
    const layout = layoutBars(values(Number.NaN, 4), ["a", "b"], 1000);
    expect(layout.rows[0]).toMatchObject({ text: "nan", width: 0 });
    expect(layout.rows[1].x + layout.rows[1].width).toBe(layout.right);
  });

  it("writes every value of a card with one number of decimals, without float noise", () => {
    expect(layoutBars(values(0.1 + 0.2, 5), ["a", "b"], 300).rows.map((r) => r.text)).toEqual(["0.3", "5.0"]);
    expect(layoutBars(values(0.036, 0.0454), ["a", "b"], 300).rows.map((r) => r.text)).toEqual(["0.0360", "0.0454"]);
    expect(layoutBars(values(Number.NaN, 2), ["a", "b"], 300).rows.map((r) => r.text)).toEqual(["nan", "2"]);
  });

  it("puts a value axis of nice ticks under the bars, its ends the bars' ends", () => {
    const layout = layoutBars(values(0.609, -0.127), ["a", "b"], 1000);
    expect(layout.ticks.map((t) => t.label)).toEqual(["-0.25", "0.00", "0.25", "0.50", "0.75"]);
    expect(layout.ticks[0].x).toBe(layout.left);
    expect(layout.ticks[layout.ticks.length - 1].x).toBe(layout.right);
    expect(layout.ticks.find((t) => t.value === 0)!.x).toBeCloseTo(layout.zeroX);
  });

  it("keeps a fixed scale's ends and ticks inside it", () => {
    const layout = layoutBars(values(5), ["a"], 1000, { scale: [-10, 10] });
    expect(layout.ticks.map((t) => t.label)).toEqual(["-10", "-5", "0", "5", "10"]);
  });

  it("numbers rows that have no label", () => {
    expect(layoutBars(values(1, 2), ["a"], 300).rows[1].label).toBe("1");
  });

  it("keeps equal values visible when all are zero", () => {
    const layout = layoutBars(values(0, 0), ["a", "b"], 300);
    expect(layout.rows.every((r) => Number.isFinite(r.x) && r.width === 0)).toBe(true);
  });

  it("outlines the greedy bar, which may differ from the taken one", () => {
    const layout = layoutBars(values(1, 2, 3), ["a", "b", "c"], 300, { highlight: 0, greedy: 2 });
    expect(layout.rows.map((r) => [r.highlight, r.greedy])).toEqual([
      [true, false],
      [false, false],
      [false, true],
    ]);
  });

  it("uses a fixed scale when given, cutting values outside it", () => {
    const layout = layoutBars(values(5, 20), ["a", "b"], 1000, { scale: [-10, 10] });
    expect(layout.zeroX).toBeCloseTo((layout.left + layout.right) / 2);
    const [five, twenty] = layout.rows;
    expect(five.width).toBeCloseTo((layout.right - layout.left) / 4);
    expect(twenty.x + twenty.width).toBe(layout.right);
  });
});

describe("a continuous actor's bars", () => {
  const xOn = (layout: ReturnType<typeof layoutBars>, value: number, [lo, hi]: [number, number]) =>
    layout.left + ((value - lo) / (hi - lo)) * (layout.right - layout.left);

  it("puts a whisker from low to high and the action taken as a mark on each bar", () => {
    const scale: [number, number] = [-2, 2]; // Pendulum's torque bounds
    const layout = layoutBars(values(0.5, -1), ["a[0]", "a[1]"], 1000, {
      scale,
      ranges: [
        [0.25, 1],
        [-1.5, -0.5],
      ],
      marks: [0.75, -1.25],
    });
    const [first, second] = layout.rows;
    expect(first.whisker).toEqual([xOn(layout, 0.25, scale), xOn(layout, 1, scale)]);
    expect(second.whisker).toEqual([xOn(layout, -1.5, scale), xOn(layout, -0.5, scale)]);
    expect(first.mark).toBeCloseTo(xOn(layout, 0.75, scale));
    expect(second.mark).toBeCloseTo(xOn(layout, -1.25, scale));
  });

  it("widens a free axis to hold the whiskers and marks", () => {
    const layout = layoutBars(values(0.5), ["a[0]"], 1000, { ranges: [[0, 3.2]], marks: [-0.4] });
    expect(layout.ticks[0].value).toBeLessThanOrEqual(-0.4);
    expect(layout.ticks.at(-1)!.value).toBeGreaterThanOrEqual(3.2);
  });

  it("draws no whisker or mark where the card gives none, or gives NaN", () => {
    const layout = layoutBars(values(1, 2), ["a", "b"], 300, { ranges: [[NaN, NaN], [1, 3]], marks: [NaN, 2] });
    expect(layout.rows.map((r) => [r.whisker === null, r.mark === null])).toEqual([
      [true, true],
      [false, false],
    ]);
    expect(layoutBars(values(1), ["a"], 300).rows[0]).toMatchObject({ whisker: null, mark: null });
  });
});

describe("the bars' colours", () => {
  it("are the same in both themes and read on either background", () => {
    for (const theme of Object.values(THEMES)) {
      expect(contrast(BAR_COLOR, theme.background)).toBeGreaterThanOrEqual(2.5);
      expect(contrast(HIGHLIGHT_COLOR, theme.background)).toBeGreaterThanOrEqual(3);
    }
  });
});
