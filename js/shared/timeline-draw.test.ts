import { describe, expect, it } from "vitest";
import { contrast, THEMES } from "./test-helpers.ts";
import { isLightColor } from "./theme.ts";
import { valueAxis } from "./axis.ts";
import { BAND_ALPHA, drawBars, INSET, markRuns, seriesColors, timelineLayout, yOnAxis } from "./timeline-draw.ts";

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

describe("timelineLayout", () => {
  it("keeps room for the end labels above and below the main band", () => {
    const { height, main, bands } = timelineLayout([]);
    expect(main.top).toBe(INSET);
    expect(main.top + main.height + INSET).toBe(height);
    expect(bands).toEqual([]);
  });

  it("puts each group of extras on a band of its own under the main one, the strip taller to hold them", () => {
    const alone = timelineLayout([]);
    const { height, main, bands } = timelineLayout(["mean", "value"]);
    expect(main).toEqual(alone.main);
    expect(bands.map((b) => b.group)).toEqual(["mean", "value"]);
    expect(bands[0].band.top).toBeGreaterThanOrEqual(main.top + main.height + INSET);
    expect(bands[1].band.top).toBeGreaterThanOrEqual(bands[0].band.top + bands[0].band.height + INSET);
    expect(bands[1].band.top + bands[1].band.height + INSET).toBe(height);
    expect(bands[0].band.height).toBeGreaterThanOrEqual(28); // room for three labels of 10 px
  });
});

/** A 2-D context that records the rectangles filled, with their colour and opacity. */
function alphaRecorder(): { c: CanvasRenderingContext2D; rects: [string, number, number, number, number, number][] } {
  const rects: [string, number, number, number, number, number][] = [];
  const c = {
    fillStyle: "",
    globalAlpha: 1,
    fillRect: (x: number, y: number, w: number, h: number) => rects.push([String(c.fillStyle), c.globalAlpha, x, y, w, h]),
  };
  return { c: c as unknown as CanvasRenderingContext2D, rects };
}

describe("drawBars", () => {
  const colors = seriesColors({ text: "#000", dark: false, playhead: "#e67e22" });
  const band = timelineLayout([]).main;

  it("draws CartPole's constant reward of 1 as a faint band from zero to 1 with a solid edge at 1", () => {
    const { c, rects } = alphaRecorder();
    const axis = valueAxis(0, 1, 3);
    const ones = new Float64Array(20).fill(1);
    drawBars(c, { min: ones, max: ones }, yOnAxis(band, axis, 2), colors, 2);
    const faint = rects.filter(([, alpha]) => alpha < 1);
    const solid = rects.filter(([, alpha]) => alpha === 1);
    const columns = [...ones.keys()];
    expect(faint).toEqual(columns.map((x) => [colors.reward, BAND_ALPHA, x, band.top * 2, 1, band.height * 2]));
    expect(solid).toEqual(columns.map((x) => [colors.reward, 1, x, band.top * 2, 1, 3])); // 1.5 CSS px
    expect((c as unknown as { globalAlpha: number }).globalAlpha).toBe(1);
  });

  it("draws Pong's lone -1 down from zero and +1 up from it as solid bars, a few columns wide too", () => {
    const { c, rects } = alphaRecorder();
    const axis = valueAxis(-1, 1, 3);
    const y = yOnAxis(band, axis, 1);
    drawBars(c, { min: Float64Array.of(-1, 0, 1, 1, 1), max: Float64Array.of(-1, 0, 1, 1, 1) }, y, colors);
    expect(rects).toEqual([
      [colors.reward, 1, 2, band.top, 1, band.height / 2],
      [colors.reward, 1, 3, band.top, 1, band.height / 2],
      [colors.reward, 1, 4, band.top, 1, band.height / 2],
      [colors.penalty, 1, 0, y(0), 1, band.height / 2],
    ]);
  });

  it("draws a run of penalties as a faint band with its edge at each column's lowest reward", () => {
    const { c, rects } = alphaRecorder();
    const axis = valueAxis(-16, 0, 3);
    const y = yOnAxis(band, axis, 1);
    const penalties = Float64Array.from({ length: 10 }, (_, i) => -4 - (i % 2) * 4);
    drawBars(c, { min: penalties, max: penalties }, y, colors);
    const edges = rects.filter(([, alpha]) => alpha === 1).map(([, , x, top, , h]) => [x, top + h]);
    expect(edges.slice(0, 2)).toEqual([
      [0, y(-4)],
      [1, y(-8)],
    ]);
    expect(rects.filter(([, alpha]) => alpha < 1)).toHaveLength(10);
  });
});

describe("markRuns", () => {
  it("puts one end mark in the middle of each run of marked columns", () => {
    expect(markRuns(Uint8Array.of(0, 1, 1, 1, 0, 0, 1))).toEqual([2.5, 6.5]);
    expect(markRuns(new Uint8Array(4))).toEqual([]);
  });
});
