import { describe, expect, it } from "vitest";
import { contrast, THEMES } from "./test-helpers.ts";
import { isLightColor } from "./theme.ts";
import { valueAxis } from "./axis.ts";
import { drawBars, extraRanges, INSET, seriesColors, timelineLayout, yOnAxis } from "./timeline-draw.ts";

describe("seriesColors", () => {
  const inTheme = (theme: keyof typeof THEMES) => {
    const c = seriesColors({ text: THEMES[theme].text, dark: isLightColor(THEMES[theme].text), playhead: "#e67e22" });
    return [c.reward, c.penalty, c.return, c.nonFinite, ...c.extras];
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

/** A 2-D context that records the rectangles filled, each with the colour it was filled in. */
function recorder(): { c: CanvasRenderingContext2D; rects: [string, number, number, number, number][] } {
  const rects: [string, number, number, number, number][] = [];
  const c = { fillStyle: "", fillRect: (x: number, y: number, w: number, h: number) => rects.push([String(c.fillStyle), x, y, w, h]) };
  return { c: c as unknown as CanvasRenderingContext2D, rects };
}

describe("timelineLayout", () => {
  it("keeps room for the end labels above and below the main band", () => {
    const { height, main, rates } = timelineLayout(false);
    expect(main.top).toBe(INSET);
    expect(main.top + main.height + INSET).toBe(height);
    expect(rates).toBeUndefined();
  });

  it("puts rates on a band of their own under the main one, the strip taller to hold it", () => {
    const alone = timelineLayout(false);
    const { height, main, rates } = timelineLayout(true);
    expect(main).toEqual(alone.main);
    expect(rates!.top).toBeGreaterThanOrEqual(main.top + main.height + INSET);
    expect(rates!.top + rates!.height + INSET).toBe(height);
  });
});

describe("drawBars", () => {
  const colors = seriesColors({ text: "#000", dark: false, playhead: "#e67e22" });
  const band = timelineLayout(false).main;

  it("draws CartPole's constant reward of 1 from zero up to the top of its axis", () => {
    const { c, rects } = recorder();
    const axis = valueAxis(0, 1, 3);
    drawBars(c, { min: Float64Array.of(1, 1), max: Float64Array.of(1, 1) }, yOnAxis(band, axis, 2), colors);
    expect(rects).toEqual([
      [colors.reward, 0, band.top * 2, 1, band.height * 2],
      [colors.reward, 1, band.top * 2, 1, band.height * 2],
    ]);
  });

  it("draws Pong's -1 down from zero in the penalty colour, and a +1 up from it", () => {
    const { c, rects } = recorder();
    const axis = valueAxis(-1, 1, 3);
    const y = yOnAxis(band, axis, 1);
    drawBars(c, { min: Float64Array.of(-1, 0, 1), max: Float64Array.of(-1, 0, 1) }, y, colors);
    expect(rects).toEqual([
      [colors.penalty, 0, y(0), 1, band.height / 2],
      [colors.reward, 2, band.top, 1, band.height / 2],
    ]);
  });
});

describe("extraRanges", () => {
  const bins = (...values: number[]) => ({ min: Float64Array.from(values), max: Float64Array.from(values) });

  it("draws the components of a vector extra on one range, other extras on their own", () => {
    const extras = new Map([
      ["mean[0]", bins(-0.5, 0)],
      ["mean[1]", bins(0.2, 0.9)],
      ["value", bins(10, 20)],
    ]);
    const ranges = extraRanges(extras);
    expect(ranges.get("mean[0]")).toEqual({ lo: -0.5, hi: 0.9 });
    expect(ranges.get("mean[1]")).toEqual({ lo: -0.5, hi: 0.9 });
    expect(ranges.get("value")).toEqual({ lo: 10, hi: 20 });
  });

  it("draws a multi-agent episode's return line per agent on one range", () => {
    const extras = new Map([
      ["return[player_0]", bins(0, 1)],
      ["return[player_1]", bins(-1, 0)],
      ["value", bins(5, 6)],
    ]);
    const ranges = extraRanges(extras);
    expect(ranges.get("return[player_0]")).toEqual({ lo: -1, hi: 1 });
    expect(ranges.get("return[player_1]")).toEqual({ lo: -1, hi: 1 });
    expect(ranges.get("value")).toEqual({ lo: 5, hi: 6 });
  });
});
