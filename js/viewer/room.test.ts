import { describe, expect, it } from "vitest";
import { CARDS_MIN_WIDTH, roomHeight, roomWidth } from "./room.ts";

describe("roomWidth", () => {
  it("leaves the cards their minimum width beside the frame on a wide widget", () => {
    expect(roomWidth(1400, true)).toBe(1400 - 10 - CARDS_MIN_WIDTH);
  });

  it("gives the frame the whole width with no cards, or with the cards below on a narrow widget", () => {
    expect(roomWidth(1400, false)).toBe(1400);
    expect(roomWidth(420, true)).toBe(420);
  });
});

describe("roomHeight", () => {
  it("takes most of the window, within bounds", () => {
    expect(roomHeight(1000)).toBe(700);
    expect(roomHeight(200)).toBe(300);
    expect(roomHeight(3000)).toBe(900);
  });
});
