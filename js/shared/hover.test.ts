import { describe, expect, it } from "vitest";
import { hoverRows, placeBox } from "./hover.ts";

const area = { width: 400, height: 80 };
const box = { width: 120, height: 40 };
/** Whether the box placed at `at` covers the point `p`. */
const covers = (at: { left: number; top: number }, size: typeof box, p: { x: number; y: number }) =>
  p.x >= at.left && p.x <= at.left + size.width && p.y >= at.top && p.y <= at.top + size.height;
const inside = (at: { left: number; top: number }, size: typeof box) =>
  at.left >= 0 && at.top >= 0 && at.left + size.width <= area.width && at.top + size.height <= area.height;

describe("placeBox", () => {
  it("puts the box right of the pointer, centred on it, when there is room", () => {
    expect(placeBox({ x: 50, y: 40 }, box, area)).toEqual({ left: 62, top: 20 });
  });

  it("puts the box left of a pointer near the right edge", () => {
    const at = placeBox({ x: 390, y: 40 }, box, area);
    expect(at.left + box.width).toBe(378);
    expect(inside(at, box)).toBe(true);
  });

  it("keeps the box inside the chart and off the pointer anywhere over it", () => {
    for (let x = 0; x <= area.width; x += 10) {
      for (let y = 0; y <= area.height; y += 10) {
        const at = placeBox({ x, y }, box, area);
        expect(inside(at, box), `pointer at ${x},${y}`).toBe(true);
        expect(covers(at, box, { x, y }), `pointer at ${x},${y}`).toBe(false);
      }
    }
  });

  it("moves a box too wide for either side above or below the pointer, never over it", () => {
    const wide = { width: 300, height: 20 };
    for (const [pointer, size] of [
      [{ x: 200, y: 70 }, wide],
      [{ x: 200, y: 5 }, wide],
    ] as const) {
      expect(covers(placeBox(pointer, size, area), size, pointer)).toBe(false);
    }
    expect(placeBox({ x: 250, y: 70 }, wide, area)).toEqual({ left: 0, top: 38 });
    expect(placeBox({ x: 100, y: 5 }, wide, area)).toEqual({ left: 100, top: 17 });
  });

  it("starts a box taller than the chart at the chart's top", () => {
    expect(placeBox({ x: 50, y: 60 }, { width: 100, height: 200 }, area)).toEqual({ left: 62, top: 0 });
  });
});

describe("hoverRows", () => {
  it("lists each series' name and value as formatNumber prints it", () => {
    const { header, rows } = hoverRows([
      { name: "seed 0", color: "#000", value: 0.1 + 0.2 },
      { name: "seed 1", color: "#111", value: 187 },
      { name: "<b>seed</b>", color: "#222", value: undefined },
    ]);
    expect(header).toBeNull();
    expect(rows).toEqual([
      ["seed 0", "0.3"],
      ["seed 1", "187"],
      ["<b>seed</b>", "-"],
    ]);
  });

  it("adds the smoothed value, under a header, when the chart smooths", () => {
    const { header, rows } = hoverRows([
      { name: "episode return", color: "#000", value: 12, smoothed: 9.87654321 },
      { name: "success rate", color: "#111", value: 1 },
    ]);
    expect(header).toEqual(["", "value", "smoothed"]);
    expect(rows).toEqual([
      ["episode return", "12", "9.8765"],
      ["success rate", "1", "-"],
    ]);
  });
});

describe("hoverRows of a binned chart", () => {
  it("prints a pixel's lowest and highest values where it covers several positions", () => {
    const rows = hoverRows([
      { name: "reward", color: "#000", value: undefined, range: [-1, 2.5] },
      { name: "return", color: "#000", value: 3, range: [3, 3] },
    ]).rows;
    expect(rows).toEqual([
      ["reward", "-1 to 2.5"],
      ["return", "3"],
    ]);
  });
});
