import { describe, expect, it } from "vitest";
import { KEY_HELP, keyAction } from "./controls.ts";

describe("keyAction", () => {
  it("steps with the arrow keys, by 10 with shift", () => {
    expect(keyAction("ArrowLeft", false)).toEqual({ kind: "step", delta: -1 });
    expect(keyAction("ArrowRight", false)).toEqual({ kind: "step", delta: 1 });
    expect(keyAction("ArrowRight", true)).toEqual({ kind: "step", delta: 10 });
  });

  it("plays or pauses with space and jumps to the ends with Home/End", () => {
    expect(keyAction(" ", false)).toEqual({ kind: "toggle" });
    expect(keyAction("Home", false)).toEqual({ kind: "seek", to: "first" });
    expect(keyAction("End", false)).toEqual({ kind: "seek", to: "last" });
  });

  it("leaves other keys alone", () => {
    expect(keyAction("a", false)).toBeNull();
    expect(keyAction("Enter", false)).toBeNull();
  });
});

describe("KEY_HELP", () => {
  it("lists every key the player answers to", () => {
    for (const key of ["←", "→", "Shift", "Home", "End", "Space"]) expect(KEY_HELP).toContain(key);
    expect(keyAction(" ", false)).not.toBeNull(); // "Space" is the " " key
  });
});
