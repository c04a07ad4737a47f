import { describe, expect, it } from "vitest";
import { FrameStore, playbackBudgets } from "./store.ts";
import type { ChunkData } from "./types.ts";
import { makeFrames, part, rgba } from "./test-helpers.ts";

const FRAMES = makeFrames(20, 2, 3);

function chunk(k: number, bytes = 100): ChunkData {
  const frames = FRAMES.slice(k * 16, k * 16 + 16);
  return {
    chunk: k,
    parts: frames.length > 0 ? [part(frames, k * 16, 2, 3)] : [],
    steps: new Map([[k * 16, { action: `a${k}`, info: { k } }]]),
    bytes,
  };
}

/** Chunk `k` as the kernel has it while only its first `count` positions exist. */
function partial(k: number, count: number): ChunkData {
  const start = k * 16;
  const positions = Array.from({ length: count }, (_, i) => start + i);
  return {
    chunk: k,
    parts: [part(FRAMES.slice(start, start + count), start, 2, 3)],
    steps: new Map(positions.map((t) => [t, { action: "", info: { t } }])),
    bytes: 100,
  };
}

const store = (decoded = 1 << 20) => new FrameStore(() => 16, { encoded: 1 << 20, inflated: 1 << 20, decoded });

describe("FrameStore", () => {
  it("decodes any position of a cached chunk at once", () => {
    const s = store();
    s.put(chunk(1));
    expect(s.frameNow(19)!.rgba).toEqual(rgba(FRAMES[19]));
    expect(s.frameNow(17)!.rgba).toEqual(rgba(FRAMES[17]));
    expect(s.isDecoded(17)).toBe(true);
  });

  it("has nothing to give before the chunk arrives", () => {
    const s = store();
    expect(s.available(3)).toBe(false);
    expect(s.frameNow(3)).toBeUndefined();
  });

  it("says null for a cached position without a frame (an episode without frames)", () => {
    const s = store();
    s.put({ chunk: 0, parts: [], steps: new Map(), bytes: 10 });
    expect(s.available(3)).toBe(true);
    expect(s.frameNow(3)).toBeNull();
  });

  it("can show a decoded frame whose chunk it no longer holds", () => {
    const s = store();
    s.put(chunk(0));
    s.frameNow(3);
    s.chunks.delete(0); // evicted for newer chunks, not dropped
    expect([s.available(3), s.available(4)]).toEqual([true, false]);
    expect(s.frameNow(3)!.rgba).toEqual(rgba(FRAMES[3]));
  });

  it("throws an Error naming a malformed part's position, reading the part only once", () => {
    const s = store();
    const bad = { ...part(FRAMES.slice(0, 16), 0, 2, 3), width: 2 };
    s.put({ chunk: 0, parts: [bad], steps: new Map(), bytes: 100 });
    const thrown = (t: number): unknown => {
      try {
        s.frameNow(t);
        return undefined;
      } catch (error) {
        return error;
      }
    };
    const first = thrown(5);
    expect(String(first)).toMatch(/zlib-runs part at position 0/);
    expect(thrown(9)).toBe(first); // the same Error: the part is not inflated again
  });

  it("serves the kernel's action and info for a position of a cached chunk", () => {
    const s = store();
    s.put(chunk(1));
    expect(s.meta(16)).toEqual({ action: "a1", info: { k: 1 } });
    expect(s.meta(0)).toBeUndefined();
  });

  it("forgets a dropped chunk and everything decoded from it", () => {
    const s = store();
    s.put(chunk(0));
    s.put(chunk(1));
    s.frameNow(3);
    s.frameNow(16);
    s.drop(0);
    expect(s.has(0)).toBe(false);
    expect(s.isDecoded(3)).toBe(false);
    expect(s.frameNow(4)).toBeUndefined();
    expect(s.isDecoded(16)).toBe(true);
  });

  it("bounds the decoded frames by bytes, keeping the most recent", () => {
    const s = store(2 * 24); // two 2x3 RGBA frames
    s.put(chunk(0));
    for (const t of [0, 1, 2]) s.frameNow(t);
    expect([0, 1, 2].map((t) => s.isDecoded(t))).toEqual([false, true, true]);
  });

  it("averages the size of the chunks it has received", () => {
    const s = store();
    s.put(chunk(0, 100));
    s.put(chunk(1, 300));
    expect(s.averageChunkBytes).toBe(200);
  });

  it("replaces a chunk cut short with a copy reaching further, forgetting what it decoded", () => {
    const s = store();
    s.put(partial(1, 3)); // positions 16..18, pushed while the episode grew
    s.frameNow(17);
    expect(s.put(partial(1, 4))).toBe(true);
    expect(s.isDecoded(17)).toBe(false);
    expect(s.frameNow(19)!.rgba).toEqual(rgba(FRAMES[19]));
    expect(s.meta(19)).toEqual({ action: "", info: { t: 19 } });
  });

  it("keeps a cached chunk when a copy reaching no further arrives", () => {
    const s = store();
    s.put(partial(1, 4));
    s.frameNow(17);
    expect(s.put(partial(1, 3))).toBe(false);
    expect(s.put(partial(1, 4))).toBe(false);
    expect(s.isDecoded(17)).toBe(true);
    expect(s.frameNow(19)!.rgba).toEqual(rgba(FRAMES[19]));
  });

  it("tells whether a cached chunk holds every position the episode now has", () => {
    const s = store();
    s.put(partial(1, 3));
    expect(s.holdsAll(1, 19)).toBe(true);
    expect(s.holdsAll(1, 20)).toBe(false);
    expect(s.holdsAll(0, 19)).toBe(false); // not cached
    s.put(chunk(0));
    expect(s.holdsAll(0, 100)).toBe(true); // whole: 16 positions
  });

  it("sizes its decoded frames to 2 s of playback and its inflated parts to 1 s, within bounds", () => {
    const MiB = 2 ** 20;
    const pong = 210 * 160 * 4;
    expect(playbackBudgets(60, pong)).toEqual({ decoded: 120 * pong, inflated: 8 * MiB });
    expect(playbackBudgets(20, 480 * 480 * 4)).toEqual({ decoded: 40 * 480 * 480 * 4, inflated: 20 * 480 * 480 * 3 });
    expect(playbackBudgets(1, 64)).toEqual({ decoded: 8 * MiB, inflated: 8 * MiB });
    expect(playbackBudgets(240, 3840 * 2160 * 4)).toEqual({ decoded: 64 * MiB, inflated: 16 * MiB });
  });

  it("resizes its caches of inflated parts and decoded frames for playback, keeping the frames it can", () => {
    const s = store();
    s.put(chunk(0));
    for (let t = 0; t < 4; t++) s.frameNow(t);
    s.fitPlayback(20, 480 * 480 * 4);
    expect(s.budgets).toEqual({ encoded: 1 << 20, inflated: 20 * 480 * 480 * 3, decoded: 40 * 480 * 480 * 4 });
    expect([0, 1, 2, 3].map((t) => s.isDecoded(t))).toEqual([true, true, true, true]);
  });

  it("decodes into the buffer of a frame it evicted, with the new frame's pixels", () => {
    const s = store(2 * 2 * 3 * 4); // room for two 2x3 RGBA frames
    s.put(chunk(0));
    const first = s.frameNow(0)!;
    s.frameNow(1);
    s.frameNow(2); // evicts frame 0
    expect(s.isDecoded(0)).toBe(false);
    const fourth = s.frameNow(3)!;
    expect(fourth.rgba).toBe(first.rgba);
    expect(fourth.rgba).toEqual(rgba(FRAMES[3]));
  });
});
