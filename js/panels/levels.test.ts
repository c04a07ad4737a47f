import { zlibSync } from "fflate";
import { describe, expect, it } from "vitest";
import { colourLevels, inflateLevels, levelColours, smoothScaling } from "./levels.ts";

/** A 256-entry table whose entry i is (i, 255 - i, 7): every entry tells which it is. */
const LUT = Uint8Array.from({ length: 256 * 3 }, (_, k) => [Math.floor(k / 3), 255 - Math.floor(k / 3), 7][k % 3]);

const rgba = (pixels: Uint8ClampedArray) => Array.from(pixels);

describe("inflateLevels", () => {
  it("inflates the zlib stream of the map's cells", () => {
    const cells = Uint8Array.from([0, 1, 128, 255, 9, 3]);
    expect(Array.from(inflateLevels(zlibSync(cells, { level: 1 }), 3, 2))).toEqual([0, 1, 128, 255, 9, 3]);
  });

  it("refuses a stream that is not width x height cells", () => {
    expect(() => inflateLevels(zlibSync(new Uint8Array(5)), 3, 2)).toThrow("the map holds 5 levels, expected 3x2");
  });

  it("stops inflating a payload that holds more cells than the map", () => {
    const bomb = zlibSync(new Uint8Array(16 * 2 ** 20));
    expect(() => inflateLevels(bomb, 3, 2)).toThrow("inflates to more than 6 bytes");
  });
});

describe("levelColours", () => {
  it("leaves level 0 (no value) transparent", () => {
    expect(Array.from(levelColours(LUT, false).subarray(0, 4))).toEqual([0, 0, 0, 0]);
    expect(Array.from(levelColours(LUT, true).subarray(0, 4))).toEqual([0, 0, 0, 0]);
  });

  it("gives the minimum (level 1) the table's first colour and the maximum (255) its last", () => {
    const colours = levelColours(LUT, false);
    expect(Array.from(colours.subarray(4, 8))).toEqual([0, 255, 7, 255]);
    expect(Array.from(colours.subarray(1020, 1024))).toEqual([255, 0, 7, 255]);
  });

  it("spreads the levels between over the table, rounding", () => {
    const colours = levelColours(LUT, false);
    // level 128: round(127 * 255 / 254) = round(127.5) = 128; level 2: round(1.004) = 1
    expect(Array.from(colours.subarray(4 * 128, 4 * 129))).toEqual([128, 127, 7, 255]);
    expect(Array.from(colours.subarray(8, 12))).toEqual([1, 254, 7, 255]);
  });

  it("over the frame, makes alpha follow the value: the minimum clear, the maximum opaque", () => {
    const colours = levelColours(LUT, true);
    expect(Array.from(colours.subarray(4, 8))).toEqual([0, 255, 7, 0]);
    expect(Array.from(colours.subarray(4 * 128, 4 * 129))).toEqual([128, 127, 7, 128]);
    expect(Array.from(colours.subarray(1020, 1024))).toEqual([255, 0, 7, 255]);
  });

  it("refuses a short colour table", () => {
    expect(() => levelColours(new Uint8Array(30), false)).toThrow("the colour table has 30 bytes, expected 768");
  });
});

describe("colourLevels", () => {
  it("paints each cell in its level's colour, row-major", () => {
    const pixels = colourLevels(Uint8Array.from([255, 0, 1, 128]), levelColours(LUT, false));
    expect(rgba(pixels)).toEqual([255, 0, 7, 255, 0, 0, 0, 0, 0, 255, 7, 255, 128, 127, 7, 255]);
  });

  it("paints an overlay's cells with alpha following the value", () => {
    const pixels = colourLevels(Uint8Array.from([1, 255]), levelColours(LUT, true));
    expect(rgba(pixels)).toEqual([0, 255, 7, 0, 255, 0, 7, 255]);
  });
});

describe("smoothScaling", () => {
  it("keeps blocks when the target is a whole multiple of the map (a grid world's cells)", () => {
    expect(smoothScaling({ width: 16, height: 12 }, { width: 64, height: 48 })).toBe(false);
    expect(smoothScaling({ width: 160, height: 210 }, { width: 160, height: 210 })).toBe(false);
  });

  it("smooths when either side does not divide evenly", () => {
    expect(smoothScaling({ width: 3, height: 1 }, { width: 8, height: 6 })).toBe(true);
    expect(smoothScaling({ width: 4, height: 5 }, { width: 8, height: 6 })).toBe(true);
  });
});
