import { describe, expect, it } from "vitest";
import { DecodeAhead } from "./decoding.ts";
import { FrameStore } from "./store.ts";
import { makeFrames, part, rgba } from "./test-helpers.ts";

const FRAMES = makeFrames(16, 2, 3);
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

function setup() {
  const store = new FrameStore(() => 16, { encoded: 1 << 20, inflated: 1 << 20, decoded: 1 << 20 });
  store.put({ chunk: 0, parts: [part(FRAMES, 0, 2, 3)], steps: new Map(), bytes: 100 });
  const errors: Error[] = [];
  const decoder = new DecodeAhead(store, (error) => errors.push(error));
  return { store, decoder, errors };
}

describe("DecodeAhead", () => {
  it("decodes the planned positions in the background", async () => {
    const { store, decoder } = setup();
    decoder.schedule([3, 4]);
    for (let i = 0; i < 20 && !store.isDecoded(4); i++) await settle();
    expect([store.isDecoded(3), store.isDecoded(4), store.isDecoded(5)]).toEqual([true, true, false]);
    expect(store.frameNow(4)!.rgba).toEqual(rgba(FRAMES[4]));
  });

  it("decodes one frame per task, so the page can handle input between them", () => {
    const { store, decoder } = setup();
    decoder.schedule([3, 4]);
    expect([store.isDecoded(3), store.isDecoded(4)]).toEqual([true, false]);
  });

  it("skips positions whose chunk has not arrived", async () => {
    const { store, decoder, errors } = setup();
    decoder.schedule([40, 3]);
    for (let i = 0; i < 20 && !store.isDecoded(3); i++) await settle();
    expect([store.isDecoded(40), store.isDecoded(3)]).toEqual([false, true]);
    expect(errors).toEqual([]);
  });

  it("reports a malformed part and goes on with the plan", async () => {
    const { store, decoder, errors } = setup();
    const bad = { ...part(FRAMES, 16, 2, 3), width: 2 };
    store.put({ chunk: 1, parts: [bad], steps: new Map(), bytes: 100 });
    decoder.schedule([17, 5]);
    for (let i = 0; i < 20 && !store.isDecoded(5); i++) await settle();
    expect(store.isDecoded(5)).toBe(true);
    expect(errors.map(String)).toEqual([expect.stringMatching(/zlib-runs part at position 16/)]);
  });

  it("stops: nothing planned is decoded after", async () => {
    const { store, decoder } = setup();
    decoder.schedule([3, 4, 5]);
    decoder.stop();
    for (let i = 0; i < 5; i++) await settle();
    expect([store.isDecoded(4), store.isDecoded(5)]).toEqual([false, false]);
  });
});
