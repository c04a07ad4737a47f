import { describe, expect, it } from "vitest";
import { frameSize, placeLabels, readGrid, readLabels, readScales, scaleText } from "./value-text.ts";

const lake = { rows: 4, cols: 4, cell: 20 };

describe("the value map's text", () => {
  it("reads the grid trait, and nothing that is not one", () => {
    expect(readGrid({ rows: 4, cols: 4, cell: 20 })).toEqual(lake);
    expect(readGrid({ rows: 4, cols: 0, cell: 20 })).toBeUndefined();
    expect(readGrid(null)).toBeUndefined();
  });

  it("reads labels, leaving out entries that are not", () => {
    const labels = readLabels([{ row: 0, col: 0, text: "S", corner: true }, { row: 1 }, "G"]);
    expect(labels).toEqual([{ row: 0, col: 0, text: "S", corner: true }]);
  });

  it("sizes the frame as the kernel draws the grid: cells plus one grid line", () => {
    expect(frameSize(lake)).toEqual({ width: 81, height: 81 });
  });

  it("writes a mark in its cell's corner and the goal's letter centred, scaled with the frame", () => {
    const labels = [
      { row: 0, col: 0, text: "S", corner: true },
      { row: 3, col: 3, text: "G", corner: false },
    ];
    const [start, goal] = placeLabels(lake, labels, 81 * 5); // shown 5x
    expect(start).toMatchObject({ text: "S", align: "left", baseline: "top" });
    expect(start.x).toBeCloseTo(5 * (1 + 2)); // past the grid line, 2 px in
    expect(start.y).toBeCloseTo(5 * 2);
    expect(start.size).toBeCloseTo(5 * 8); // 0.3 of a 19 px cell, but at least 8 px, as the kernel's
    expect(goal).toMatchObject({ text: "G", align: "center", baseline: "middle" });
    expect(goal.x).toBeCloseTo(5 * (61 + 9.5)); // the cell's centre
    expect(goal.size).toBeCloseTo(5 * 0.45 * 19);
  });

  it("reads each position's scale ends from little-endian float64 pairs", () => {
    const bytes = new Uint8Array(new Float64Array([0, 1, -0.5, 0.25]).buffer);
    expect(readScales(new DataView(bytes.buffer))).toEqual([
      [0, 1],
      [-0.5, 0.25],
    ]);
    expect(readScales(undefined)).toEqual([]);
  });

  it("writes a scale's ends to 3 significant digits, as the kernel's pictures do", () => {
    expect(scaleText(0)).toBe("0");
    expect(scaleText(1)).toBe("1");
    expect(scaleText(0.123456)).toBe("0.123");
    expect(scaleText(-12.5)).toBe("-12.5");
    expect(scaleText(1234)).toBe("1234");
    expect(scaleText(0.00001234)).toBe("1.23e-5");
    expect(scaleText(2e7)).toBe("2e+7");
  });
});
