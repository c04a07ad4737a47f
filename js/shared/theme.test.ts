import { describe, expect, it } from "vitest";
import { isLightColor, parseColor } from "./theme.ts";

describe("parseColor", () => {
  it("reads computed rgb() and rgba() colours", () => {
    expect(parseColor("rgb(33, 33, 33)")).toEqual([33, 33, 33, 1]);
    expect(parseColor("rgba(255, 255, 255, 0.87)")).toEqual([255, 255, 255, 0.87]);
    expect(parseColor("rgb(10 20 30 / 0.5)")).toEqual([10, 20, 30, 0.5]);
  });

  it("reads hex colours, short and long", () => {
    expect(parseColor("#222")).toEqual([34, 34, 34, 1]);
    expect(parseColor("#1976d2")).toEqual([25, 118, 210, 1]);
    expect(parseColor("#ffffff80")?.[3]).toBeCloseTo(128 / 255);
  });

  it("gives null for what it cannot read", () => {
    expect(parseColor("color(srgb 1 0 0)")).toBeNull();
    expect(parseColor("")).toBeNull();
    expect(parseColor("#12345")).toBeNull();
  });
});

describe("isLightColor", () => {
  it("tells a dark theme's text (light) from a light theme's (dark)", () => {
    expect(isLightColor("rgba(255, 255, 255, 0.87)")).toBe(true); // JupyterLab Dark
    expect(isLightColor("rgba(0, 0, 0, 0.87)")).toBe(false); // JupyterLab Light
    expect(isLightColor("#222")).toBe(false);
  });

  it("weighs green over blue, as the eye does", () => {
    expect(isLightColor("#00ff00")).toBe(true);
    expect(isLightColor("#0000ff")).toBe(false);
  });

  it("takes an unreadable colour for dark, the light theme's default", () => {
    expect(isLightColor("inherit")).toBe(false);
  });
});
