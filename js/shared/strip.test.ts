import { describe, expect, it } from "vitest";
import { cursorX, positionAt } from "./strip.ts";

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
