import { describe, expect, it } from "vitest";
import { asCells, countText } from "./rows.ts";

describe("moments rows", () => {
  it("reads cells as text whatever the model holds", () => {
    expect(asCells(["a", 1, null])).toEqual(["a", "1", "null"]);
    expect(asCells(undefined)).toEqual([]);
  });

  it("says how many moments, and when the list is cut", () => {
    expect(countText(1, 1, 1)).toBe("1 moment");
    expect(countText(12, 12, 12)).toBe("12 moments");
    expect(countText(10000, 25000, 25000)).toBe("the first 10,000 of 25,000 moments");
    expect(countText(4, 4, 32)).toBe("4 moments (32 steps)");
  });
});
