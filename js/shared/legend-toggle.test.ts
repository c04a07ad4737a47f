import { describe, expect, it } from "vitest";
import { SeriesToggles } from "./legend-toggle.ts";

describe("SeriesToggles", () => {
  it("shows every series until its entry is clicked", () => {
    const toggles = new SeriesToggles<number>(() => {});
    expect(toggles.isShown(0)).toBe(true);
    expect(toggles.isShown(7)).toBe(true);
  });

  it("hides a series on the first toggle and shows it again on the second, each time telling the chart", () => {
    let changes = 0;
    const toggles = new SeriesToggles<string>(() => (changes += 1));
    toggles.toggle("seed 1");
    expect(toggles.isShown("seed 1")).toBe(false);
    expect(toggles.isShown("seed 2")).toBe(true);
    toggles.toggle("seed 1");
    expect(toggles.isShown("seed 1")).toBe(true);
    expect(changes).toBe(2);
  });
});
