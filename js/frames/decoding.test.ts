import { describe, expect, it } from "vitest";
import { DecodeAhead } from "./decoding.ts";
import { FrameStore } from "./store.ts";
import { makeFrames, part, rgba } from "../shared/test-helpers.ts";

const FRAMES = makeFrames(16, 2, 3);
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

function setup() {
  const store = new FrameStore(() => 16, { encoded: 1 << 20, inflated: 1 << 20, decoded: 1 << 20 });
  store.put({ chunk: 0, parts: [part(FRAMES, 0, 2, 3)], steps: new Map(), bytes: 100 });
  const errors: Error[] = [];
  const decoder = new DecodeAhead(store, () => true, (error) => errors.push(error));
  return { store, decoder, errors };
}

describe("DecodeAhead", () => {
  it("decodes the planned positions in the background", async () => {
    const { store, decoder } = setup();
    decoder.schedule([3, 4]);
    for (let i = 0; i < 20 && !store.isDecoded(4); i++) await settle();
    expect([store.isDecoded(3), store.isDecoded(4), store.isDecoded(5)]).toEqual([true, true, false]);
  });

  it("decodes a position playback waits for even when no plan holds it", async () => {
    const { store, decoder, errors } = setup();
    decoder.schedule([]);
    decoder.now(9);
    for (let i = 0; i < 20 && !store.isDecoded(9); i++) await settle();
    expect(store.frameNow(9)!.rgba).toEqual(rgba(FRAMES[9]));
    expect(errors).toEqual([]);
  });
});
