import { describe, expect, it } from "vitest";
import { contrast, THEMES } from "../shared/test-helpers.ts";
import { isLightColor, type Palette } from "../shared/theme.ts";
import { divergenceColor } from "../shared/timeline-draw.ts";
import { DARK_PALETTE, drawPoints, lineColor, PALETTE } from "./chart.ts";

const palette = (theme: keyof typeof THEMES): Palette => ({
  text: THEMES[theme].text,
  dark: isLightColor(THEMES[theme].text),
  playhead: "#e67e22",
});
/** Every colour the chart draws a series in, for a theme: each episode's line, then the divergence mark. */
const colours = (theme: keyof typeof THEMES) => [
  ...PALETTE.map((_, i) => lineColor(i, palette(theme))),
  divergenceColor(palette(theme)),
];

describe("the comparison chart's colours", () => {
  const light = colours("light");
  const dark = colours("dark");

  it("give each line the variant that stands out more on the theme's background", () => {
    expect(light.length).toBe(dark.length);
    light.forEach((colour, i) => {
      expect(contrast(colour, THEMES.light.background)).toBeGreaterThan(contrast(dark[i], THEMES.light.background));
      expect(contrast(dark[i], THEMES.dark.background)).toBeGreaterThan(contrast(colour, THEMES.dark.background));
    });
  });

  it("keep every line readable on a dark background, and one colour per episode", () => {
    for (const colour of dark) expect(contrast(colour, THEMES.dark.background)).toBeGreaterThanOrEqual(4.5);
    for (const colour of light) expect(contrast(colour, THEMES.light.background)).toBeGreaterThanOrEqual(2);
    expect(new Set(PALETTE.map((_, i) => lineColor(i, palette("dark")))).size).toBe(DARK_PALETTE.length);
  });

  it("cycle through the colours past the eighth episode", () => {
    expect(lineColor(PALETTE.length, palette("light"))).toBe(lineColor(0, palette("light")));
  });
});

/** A 2-D context that records the path calls a drawing makes, as [name, x, y]. */
function recordingContext(): { c: CanvasRenderingContext2D; calls: [string, number, number][] } {
  const calls: [string, number, number][] = [];
  const record = (name: string) => (x = 0, y = 0) => void calls.push([name, x, y]);
  const c = { beginPath: record("begin"), moveTo: record("move"), lineTo: record("line"), arc: record("dot"), stroke() {}, fill() {} };
  return { c: c as unknown as CanvasRenderingContext2D, calls };
}

describe("drawPoints", () => {
  const y = (v: number) => 100 - v;

  it("joins each position's point to the next with a straight line, at the positions' centres", () => {
    const { c, calls } = recordingContext();
    drawPoints(c, Float64Array.from([10, 30, 20]), 300, y, "#000", 1);
    const path = calls.filter(([name]) => name === "move" || name === "line");
    expect(path).toEqual([
      ["move", 50, 90],
      ["line", 150, 70],
      ["line", 250, 80],
    ]);
    expect(calls.filter(([name]) => name === "dot").map(([, x, vy]) => [x, vy])).toEqual([
      [50, 90],
      [150, 70],
      [250, 80],
    ]);
  });

  it("breaks the line at a position not evaluated and draws no point there", () => {
    const { c, calls } = recordingContext();
    drawPoints(c, Float64Array.from([10, Number.NaN, 20]), 300, y, "#000", 1);
    const path = calls.filter(([name]) => name === "move" || name === "line");
    expect(path).toEqual([
      ["move", 50, 90],
      ["move", 250, 80],
    ]);
    expect(calls.filter(([name]) => name === "dot")).toHaveLength(2);
  });
});
