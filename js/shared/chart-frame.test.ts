import { describe, expect, it } from "vitest";
import { valueAxis } from "./axis.ts";
import { bandY, valueLabels } from "./chart-frame.ts";

describe("bandY / valueLabels", () => {
  const band = { top: 7, height: 50 };

  it("puts an axis's top tick at the band's top and its bottom tick at the band's bottom", () => {
    const axis = valueAxis(0, 150, 3);
    expect(bandY(band, axis, axis.hi)).toBe(7);
    expect(bandY(band, axis, axis.lo)).toBe(57);
    expect(bandY(band, axis, (axis.lo + axis.hi) / 2)).toBe(32);
  });

  it("labels each tick where the plot draws its gridline", () => {
    const axis = valueAxis(-1, 1, 3);
    expect(valueLabels(axis, band)).toEqual([
      { label: "-1", y: 57 },
      { label: "0", y: 32 },
      { label: "1", y: 7 },
    ]);
  });
});
