import { describe, expect, it } from "vitest";
import { readSpecs } from "./panels.ts";

describe("readSpecs", () => {
  it("reads the panels trait", () => {
    expect(readSpecs([{ name: "Q", overlay: false, precompute: true, version: 3 }])).toEqual([
      { name: "Q", overlay: false, precompute: true, version: 3 },
    ]);
  });

  it("skips entries without a name and reads odd flags as false", () => {
    expect(readSpecs([null, { overlay: true }, { name: "s", overlay: "yes", version: "2" }])).toEqual([
      { name: "s", overlay: false, precompute: false, version: 2 },
    ]);
  });

  it("reads a missing trait as no panels", () => {
    expect(readSpecs(undefined)).toEqual([]);
  });
});
