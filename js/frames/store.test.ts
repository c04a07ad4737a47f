import { describe, expect, it } from "vitest";
import { FrameStore, playbackBudgets } from "./store.ts";
import type { ChunkData } from "../shared/types.ts";
import { makeFrames, part, rgba } from "../shared/test-helpers.ts";

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
  it("decodes a position from its cached chunk", async () => {
    const s = store();
    s.put(chunk(1));
    expect((await s.frame(17))!.rgba).toEqual(rgba(FRAMES[17]));
    expect(s.isDecoded(17)).toBe(true);
  });

  it("has nothing to give before the chunk arrives", async () => {
    const s = store();
    expect(s.frameNow(3)).toBeUndefined();
    expect(await s.frame(3)).toBeUndefined();
  });

  it("says null for a cached position without a frame (an episode without frames)", async () => {
    const s = store();
    s.put({ chunk: 0, parts: [], steps: new Map(), bytes: 10 });
    expect(s.frameNow(3)).toBeNull();
    expect(await s.frame(3)).toBeNull();
  });

  it("says null for frames recorded as missing (a part of 0x0 frames) and decodes the rest", async () => {
    const s = store();
    const missing = { chunk: 0, start: 3, count: 2, height: 0, width: 0, encoding: "raw" as const, payload: new Uint8Array(0) };
    s.put({ chunk: 0, parts: [part(FRAMES.slice(0, 3), 0, 2, 3), missing, part(FRAMES.slice(5, 16), 5, 2, 3)], steps: new Map(), bytes: 10 });
    expect(await s.frame(3)).toBeNull();
    expect(s.frameNow(4)).toBeNull();
    expect((await s.frame(5))!.rgba).toEqual(rgba(FRAMES[5]));
    expect((await s.frame(2))!.rgba).toEqual(rgba(FRAMES[2]));
  });

  it("decodes synchronously once the part is inflated, so stepping never waits", async () => {
    const s = store();
    s.put(chunk(0));
    expect(s.frameNow(5)).toBeUndefined(); // needs inflating first
    await s.frame(0);
    expect(s.frameNow(5)!.rgba).toEqual(rgba(FRAMES[5]));
  });

  it("serves the kernel's action and info for a position of a cached chunk", () => {
    const s = store();
    s.put(chunk(1));
    expect(s.meta(16)).toEqual({ action: "a1", info: { k: 1 } });
    expect(s.meta(0)).toBeUndefined();
  });

  it("forgets a dropped chunk and everything decoded from it", async () => {
    const s = store();
    s.put(chunk(0));
    s.put(chunk(1));
    await s.frame(3);
    await s.frame(16);
    s.drop(0);
    expect(s.has(0)).toBe(false);
    expect(s.isDecoded(3)).toBe(false);
    expect(s.frameNow(4)).toBeUndefined();
    expect(s.isDecoded(16)).toBe(true);
  });

  it("does not cache a frame whose decode finished after its chunk was dropped", async () => {
    const s = store();
    s.put(chunk(0));
    const pending = s.frame(2);
    s.drop(0);
    expect((await pending)!.rgba).toEqual(rgba(FRAMES[2]));
    expect(s.isDecoded(2)).toBe(false);
  });

  it("caches a frame sent ahead of its chunk, ready to paint before the chunk arrives, and its readout data", async () => {
    const s = store();
    await s.preview(part([FRAMES[18]], 18, 2, 3), new Map([[18, { info: { ahead: true } }]]));
    expect(s.frameNow(18)!.rgba).toEqual(rgba(FRAMES[18]));
    expect(s.meta(18)).toEqual({ info: { ahead: true } });
    expect(s.has(1)).toBe(false); // the chunk is still to come, and its other frames with it
    expect(s.frameNow(17)).toBeUndefined();
    s.put(chunk(1));
    expect((await s.frame(17))!.rgba).toEqual(rgba(FRAMES[17]));
    expect(s.meta(16)).toEqual({ action: "a1", info: { k: 1 } }); // the chunk's own data now
    expect(s.meta(18)).toBeUndefined();
  });

  it("decodes a position being previewed from the preview, not by inflating its chunk's part beside it", async () => {
    const s = store();
    const previewed = s.preview(part([FRAMES[18]], 18, 2, 3));
    const data = chunk(1);
    s.put(data);
    const frame = s.frame(18);
    await previewed;
    expect((await frame)!.rgba).toEqual(rgba(FRAMES[18]));
    expect(s.frameNow(19)).toBeUndefined(); // the chunk's part was not inflated
  });

  it("keeps no preview whose chunk was dropped, or the store cleared, while it was decoded", async () => {
    const s = store();
    const dropped = s.preview(part([FRAMES[18]], 18, 2, 3), new Map([[18, { info: {} }]]));
    s.drop(1);
    expect(s.meta(18)).toBeUndefined();
    const cleared = s.preview(part([FRAMES[3]], 3, 2, 3));
    s.clear();
    await Promise.all([dropped, cleared]);
    expect(s.isDecoded(18)).toBe(false);
    expect(s.isDecoded(3)).toBe(false);
  });

  it("rejects a preview that is not a frame, naming its position", async () => {
    const s = store();
    const bad = { ...part([FRAMES[5]], 5, 2, 3), payload: Uint8Array.from([1, 2, 3]) };
    await expect(s.preview(bad)).rejects.toThrow("zlib-runs part at position 5");
    expect(s.isDecoded(5)).toBe(false);
  });

  it("bounds the decoded frames by bytes, keeping the most recent", async () => {
    const s = store(2 * 24); // two 2x3 RGBA frames
    s.put(chunk(0));
    for (const t of [0, 1, 2]) await s.frame(t);
    expect([0, 1, 2].map((t) => s.isDecoded(t))).toEqual([false, true, true]);
  });

  it("averages the size of the chunks it has received", () => {
    const s = store();
    s.put(chunk(0, 100));
    s.put(chunk(1, 300));
    expect(s.averageChunkBytes).toBe(200);
  });

  it("replaces a chunk cut short with a copy reaching further, forgetting what it decoded", async () => {
    const s = store();
    s.put(partial(1, 3)); // positions 16..18, pushed while the episode grew
    await s.frame(17);
    expect(s.put(partial(1, 4))).toBe(true);
    expect(s.isDecoded(17)).toBe(false);
    expect((await s.frame(19))!.rgba).toEqual(rgba(FRAMES[19]));
    expect(s.meta(19)).toEqual({ action: "", info: { t: 19 } });
  });

  it("keeps a cached chunk when a copy reaching no further arrives", async () => {
    const s = store();
    s.put(partial(1, 4));
    await s.frame(17);
    expect(s.put(partial(1, 3))).toBe(false);
    expect(s.put(partial(1, 4))).toBe(false);
    expect(s.isDecoded(17)).toBe(true);
    expect(s.frameNow(19)!.rgba).toEqual(rgba(FRAMES[19]));
  });

  it("takes the readouts of a copy reaching as far, keeping its decoded frames", async () => {
    const s = store();
    s.put(chunk(0)); // whole: position 15 was the episode's last, with no step
    await s.frame(15);
    const again = chunk(0);
    again.steps.set(15, { action: "3 (LEFT)", info: { t: 15 } }); // a step appended after it
    expect(s.put(again)).toBe(false);
    expect(s.meta(15)).toEqual({ action: "3 (LEFT)", info: { t: 15 } });
    expect(s.meta(0)).toEqual({ action: "a0", info: { k: 0 } });
    expect(s.isDecoded(15)).toBe(true);
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

  it("resizes its caches of inflated parts and decoded frames for playback, keeping the frames it can", async () => {
    const s = store();
    s.put(chunk(0));
    for (let t = 0; t < 4; t++) await s.frame(t);
    s.fitPlayback(20, 480 * 480 * 4);
    expect(s.budgets).toEqual({ encoded: 1 << 20, inflated: 20 * 480 * 480 * 3, decoded: 40 * 480 * 480 * 4 });
    expect([0, 1, 2, 3].map((t) => s.isDecoded(t))).toEqual([true, true, true, true]);
  });

  it("decodes into the buffer of a frame it evicted, with the new frame's pixels", async () => {
    const s = store(2 * 2 * 3 * 4); // room for two 2x3 RGBA frames
    s.put(chunk(0));
    const first = (await s.frame(0))!;
    await s.frame(1);
    await s.frame(2); // evicts frame 0
    expect(s.isDecoded(0)).toBe(false);
    const fourth = (await s.frame(3))!;
    expect(fourth.rgba).toBe(first.rgba);
    expect(fourth.rgba).toEqual(rgba(FRAMES[3]));
  });
});
