import { describe, expect, it } from "vitest";
import { contrast, THEMES } from "./test-helpers.ts";
import { isLightColor } from "./theme.ts";
import { binMinMax, cursorX, positionAt, seriesColors } from "./timeline.ts";

const f64 = (values: number[]) => Float64Array.from(values);

describe("binMinMax", () => {
  it("gives each pixel column the min and max of the steps it covers", () => {
    const { min, max } = binMinMax(f64([1, -2, 5, 0, 3, 3]), 6, 3);
    expect([...min]).toEqual([-2, 0, 3]);
    expect([...max]).toEqual([1, 5, 3]);
  });

  it("repeats a step across the columns it spans when there are fewer steps than pixels", () => {
    const { min, max } = binMinMax(f64([4, 7]), 2, 4);
    expect([...min]).toEqual([4, 4, 7, 7]);
    expect([...max]).toEqual([4, 4, 7, 7]);
  });

  it("keeps a single-step spike visible among 100,000 steps", () => {
    const values = new Float64Array(100_000);
    values[54_321] = 1;
    const { max } = binMinMax(values, values.length, 800);
    const column = Math.floor((54_321 * 800) / 100_000);
    expect(max[column]).toBe(1);
    expect(max.reduce((sum, v) => sum + v, 0)).toBe(1);
  });

  it("leaves columns past the end of a shorter series empty (rewards have one entry fewer than positions)", () => {
    const { min } = binMinMax(f64([1, 2, 3]), 4, 4);
    expect([...min.subarray(0, 3)]).toEqual([1, 2, 3]);
    expect(Number.isNaN(min[3])).toBe(true);
  });

  it("leaves infinite values out of the range", () => {
    const { min, max } = binMinMax(f64([Number.NEGATIVE_INFINITY, 2, 1, Number.POSITIVE_INFINITY]), 4, 2);
    expect([...min]).toEqual([2, 1]);
    expect([...max]).toEqual([2, 1]);
  });

  it("skips NaN values", () => {
    const { min, max } = binMinMax(f64([Number.NaN, 2, Number.NaN, Number.NaN]), 4, 2);
    expect([min[0], max[0]]).toEqual([2, 2]);
    expect(Number.isNaN(min[1])).toBe(true);
  });
});

describe("positionAt / cursorX", () => {
  it("maps a click to the position under it, clamped to the episode", () => {
    expect(positionAt(0, 400, 100)).toBe(0);
    expect(positionAt(399.9, 400, 100)).toBe(99);
    expect(positionAt(500, 400, 100)).toBe(99);
    expect(positionAt(-3, 400, 100)).toBe(0);
  });

  it("puts the cursor at a position's centre, which maps back to it", () => {
    for (const t of [0, 17, 99_999]) expect(positionAt(cursorX(t, 800, 100_000), 800, 100_000)).toBe(t);
    expect(cursorX(0, 400, 100)).toBe(2);
  });
});

describe("seriesColors", () => {
  const inTheme = (theme: keyof typeof THEMES) => {
    const c = seriesColors({ text: THEMES[theme].text, dark: isLightColor(THEMES[theme].text) });
    return [c.reward, c.penalty, c.return, c.cursor, c.nonFinite, ...c.extras];
  };
  const light = inTheme("light");
  const dark = inTheme("dark");

  it("gives each series the variant that stands out more on the theme's background", () => {
    expect(light.length).toBe(dark.length);
    light.forEach((colour, i) => {
      expect(contrast(colour, THEMES.light.background)).toBeGreaterThan(contrast(dark[i], THEMES.light.background));
      expect(contrast(dark[i], THEMES.dark.background)).toBeGreaterThan(contrast(colour, THEMES.dark.background));
    });
  });

  it("keeps every series readable on its theme's background, each in its own colour", () => {
    for (const colour of light) expect(contrast(colour, THEMES.light.background)).toBeGreaterThanOrEqual(2.5);
    for (const colour of dark) expect(contrast(colour, THEMES.dark.background)).toBeGreaterThanOrEqual(4.5);
    expect(new Set(light).size).toBe(light.length);
    expect(new Set(dark).size).toBe(dark.length);
  });
});
