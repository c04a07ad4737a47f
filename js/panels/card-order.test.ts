import { describe, expect, it } from "vitest";
import { arrange, move } from "./card-order.ts";

describe("arrange", () => {
  it("starts in the kernel's order", () => {
    expect(arrange([], ["a", "b", "c"])).toEqual(["a", "b", "c"]);
  });

  it("keeps the user's order and puts new panels last", () => {
    expect(arrange(["c", "a", "b"], ["a", "b", "c", "d"])).toEqual(["c", "a", "b", "d"]);
  });

  it("drops removed panels", () => {
    expect(arrange(["c", "a", "b"], ["a", "b"])).toEqual(["a", "b"]);
  });
});

describe("move", () => {
  it("moves a card up or down one place", () => {
    expect(move(["a", "b", "c"], "b", -1)).toEqual(["b", "a", "c"]);
    expect(move(["a", "b", "c"], "b", 1)).toEqual(["a", "c", "b"]);
  });

  it("stops at either end", () => {
    expect(move(["a", "b", "c"], "a", -1)).toEqual(["a", "b", "c"]);
    expect(move(["a", "b", "c"], "c", 1)).toEqual(["a", "b", "c"]);
  });

  it("leaves the order alone for an unknown name", () => {
    expect(move(["a", "b"], "x", 1)).toEqual(["a", "b"]);
  });
});
