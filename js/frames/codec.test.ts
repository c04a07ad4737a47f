import { deflateSync, inflateSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { PartDecoder, rgbToFrame } from "./codec.ts";
import { concat, makeFrames, part, rgba, u32, zlibRuns } from "../shared/test-helpers.ts";
import type { EncodedPart } from "../shared/types.ts";

/** 2x3 frames (18 bytes) for hand-made payloads. */
const B = 18;
const FRAME_0 = Uint8Array.from({ length: B }, (_, i) => 100 + i);

/** A 2x3 zlib-runs part at position 64 whose payload inflates to `pieces`. */
function handMade(count: number, ...pieces: (Uint8Array | number[])[]): EncodedPart {
  const payload = new Uint8Array(deflateSync(concat(pieces.map((piece) => Uint8Array.from(piece)))));
  return { chunk: 4, start: 64, count, height: 2, width: 3, encoding: "zlib-runs", payload };
}

/**
 * `count` frames of 8x8 where a few pixels move from frame to frame, like a ball
 * and paddles, over a background that stays.
 */
function sparseFrames(count: number): Uint8Array[] {
  const frames = [Uint8Array.from({ length: 8 * 8 * 3 }, (_, i) => (i * 29) & 0xff)];
  for (let f = 1; f < count; f++) {
    const frame = frames[f - 1].slice();
    frame.fill(f * 40, (f * 13) % 150, ((f * 13) % 150) + 3); // a pixel, 3 bytes
    frame[(f * 71) % frame.length] ^= 0xff; // a byte far away
    frame[(f * 71 + 5) % frame.length] ^= 0x0f; // 4 bytes later: merged into the same run
    frames.push(frame);
  }
  return frames;
}

/** A decoder with its part inflated, as the store makes them. */
async function opened(p: EncodedPart): Promise<PartDecoder> {
  const decoder = new PartDecoder(p);
  await decoder.load();
  return decoder;
}

const decode = async (p: EncodedPart, t: number) => (await opened(p)).frame(t).rgba;

describe("PartDecoder, zlib-runs", () => {
  it("decodes every frame of a part in order to its exact RGB with alpha 255", async () => {
    const frames = sparseFrames(16);
    const decoder = await opened(part(frames, 32, 8, 8));
    frames.forEach((rgb, i) => {
      const frame = decoder.frame(32 + i);
      expect([frame.width, frame.height]).toEqual([8, 8]);
      expect(frame.rgba).toEqual(rgba(rgb));
    });
  });

  it("decodes frames in any order: later, earlier, the same again, frame 0 last", async () => {
    const frames = sparseFrames(16);
    const decoder = await opened(part(frames, 0, 8, 8));
    for (const t of [9, 3, 15, 14, 14, 1, 8, 2, 0]) expect(decoder.frame(t).rgba).toEqual(rgba(frames[t]));
  });

  it("decodes frames where nothing changes", async () => {
    const frames = Array.from({ length: 5 }, () => FRAME_0);
    const decoder = await opened(part(frames, 0, 2, 3));
    for (const t of [4, 2, 0]) expect(decoder.frame(t).rgba).toEqual(rgba(FRAME_0));
  });

  it("decodes frames where every byte changes", async () => {
    const frames = makeFrames(6, 3, 5);
    const decoder = await opened(part(frames, 0, 3, 5));
    for (const t of [5, 1, 3, 0, 4, 2]) expect(decoder.frame(t).rgba).toEqual(rgba(frames[t]));
  });

  it("decodes a part of one frame", async () => {
    const [frame] = makeFrames(1, 2, 3);
    expect(await decode(part([frame], 16, 2, 3), 16)).toEqual(rgba(frame));
  });

  it("decodes changing frames of one pixel, whose run header outweighs the frame", async () => {
    const frames = [0, 1, 2, 3].map((f) => Uint8Array.from([f, 255 - f, 7 * f]));
    const decoder = await opened(part(frames, 0, 1, 1));
    for (const t of [3, 1, 2, 0]) expect(decoder.frame(t).rgba).toEqual(rgba(frames[t]));
  });

  it("counts each run's skip from the end of the run before it, the first from byte 0", async () => {
    // Frame 1 changes bytes 2..4 and 9; frame 2 changes byte 0 and byte 17, the last.
    const p = handMade(3, FRAME_0, u32(2, 2, 3, 4, 1), [1, 2, 3, 4], u32(2, 0, 1, 16, 1), [5, 6]);
    const frame1 = FRAME_0.slice();
    frame1.set([1, 2, 3], 2);
    frame1[9] = 4;
    const frame2 = frame1.slice();
    frame2[0] = 5;
    frame2[17] = 6;
    const decoder = await opened(p);
    expect(decoder.frame(66).rgba).toEqual(rgba(frame2));
    expect(decoder.frame(65).rgba).toEqual(rgba(frame1));
  });

  it("holds the inflated bytes and one working frame, not every frame", async () => {
    const frames = sparseFrames(16);
    const p = part(frames, 0, 8, 8);
    const decoder = await opened(p);
    decoder.frame(15);
    expect(decoder.bytes).toBe(inflateSync(p.payload).byteLength + frames[0].length);
  });

  it("reads no frame before its part is inflated, and inflates it once", async () => {
    const decoder = new PartDecoder(part(sparseFrames(2), 0, 8, 8));
    expect(decoder.ready).toBe(false);
    expect(() => decoder.frame(0)).toThrow("frame 0 is not inflated yet");
    const loading = decoder.load();
    expect(decoder.load()).toBe(loading);
    await loading;
    expect(decoder.ready).toBe(true);
  });

  it("writes each frame into the buffer it is given", async () => {
    const frames = sparseFrames(3);
    const into = new Uint8ClampedArray(8 * 8 * 4);
    const frame = (await opened(part(frames, 0, 8, 8))).frame(2, into);
    expect(frame.rgba).toBe(into);
    expect(into).toEqual(rgba(frames[2]));
  });
});

describe("zlib-runs test data", () => {
  it("merges runs at most 8 unchanged bytes apart, the kernel's choice", () => {
    const next = FRAME_0.slice();
    for (const i of [0, 9, 17]) next[i] = 0; // 8 unchanged bytes between 0 and 9, then 7
    const far = next.slice();
    for (const i of [0, 10]) far[i] = 1; // 9 unchanged bytes between: two runs
    expect(new Uint8Array(inflateSync(zlibRuns([FRAME_0, next, far])))).toEqual(
      concat([FRAME_0, u32(1, 0, 18), next, u32(2, 0, 1, 9, 1), Uint8Array.from([1, 1])]),
    );
  });
});

describe("PartDecoder, malformed zlib-runs payloads", () => {
  const rejects = (p: EncodedPart, message: RegExp) => expect(opened(p)).rejects.toThrow(message);

  it("rejects a run that ends past the frame", async () => {
    await rejects(handMade(2, FRAME_0, u32(1, 16, 3), [1, 2, 3]), /position 64: run 0 of frame 1 \(bytes 16 to 19\) ends past the frame's 18 bytes/);
  });

  it("rejects a run whose skip puts it past the frame", async () => {
    await rejects(handMade(2, FRAME_0, u32(2, 0, 1, 2 ** 32 - 1, 1), [1, 2]), /position 64: run 1 of frame 1 .* ends past/);
  });

  it("rejects an empty run", async () => {
    await rejects(handMade(2, FRAME_0, u32(2, 0, 1, 3, 0), [1]), /position 64: run 1 of frame 1 is empty/);
  });

  it("rejects a payload that ends inside frame 0", async () => {
    await rejects(handMade(1, FRAME_0.subarray(1)), /position 64: holds 17 bytes, fewer than frame 0's 18/);
  });

  it("rejects a payload that ends before a frame's run count", async () => {
    await rejects(handMade(3, FRAME_0, u32(0)), /position 64: ends before frame 2's run count/);
  });

  it("rejects a run count larger than the bytes left", async () => {
    await rejects(handMade(2, FRAME_0, u32(2 ** 32 - 1, 0, 1)), /position 64: ends inside the headers of frame 1's 4294967295 runs/);
  });

  it("rejects a payload that ends inside a frame's changed bytes", async () => {
    await rejects(handMade(2, FRAME_0, u32(1, 0, 4), [1, 2, 3]), /position 64: ends inside frame 1's changed bytes/);
  });

  it("rejects bytes after the last frame", async () => {
    await rejects(handMade(2, FRAME_0, u32(1, 0, 1), [1], [0, 0]), /position 64: has 2 bytes after its last frame/);
  });

  it("rejects a zlib stream cut short", async () => {
    const p = part(makeFrames(4, 2, 3), 64, 2, 3);
    await rejects({ ...p, payload: p.payload.subarray(0, p.payload.byteLength - 8) }, /zlib-runs part at position 64/);
  });

  it("rejects bytes that are not a zlib stream", async () => {
    await rejects({ ...handMade(1, FRAME_0), payload: Uint8Array.from([1, 2, 3, 4, 5]) }, /zlib-runs part at position 64/);
  });

  it("stops inflating a stream that inflates past what the frames can take", async () => {
    // 2 frames of 18 bytes take at most 18 + 12 + 36 = 66 bytes; this inflates to 64 MB.
    const bomb = { ...handMade(2, FRAME_0), payload: new Uint8Array(deflateSync(new Uint8Array(64 * 2 ** 20))) };
    await rejects(bomb, /position 64: inflates to more than 66 bytes/);
  });

  it("rejects a header that does not match the payload", async () => {
    await rejects({ ...part(makeFrames(2, 2, 2), 64, 2, 2), width: 3 }, /zlib-runs part at position 64/);
  });
});

describe("PartDecoder, raw and headers", () => {
  it("decodes a raw part", () => {
    const frames = makeFrames(3, 2, 2);
    const decoder = new PartDecoder(part(frames, 16, 2, 2, "raw"));
    expect(decoder.frame(18).rgba).toEqual(rgba(frames[2]));
    expect(decoder.frame(16).rgba).toEqual(rgba(frames[0]));
  });

  it("rejects a raw payload of the wrong size, naming the position", () => {
    const bad = { ...part(makeFrames(2, 2, 2), 48, 2, 2, "raw"), count: 3 };
    expect(() => new PartDecoder(bad)).toThrow(/position 48 holds 24 bytes, expected 36/);
  });

  it("rejects an encoding it does not read, such as the retired zlib-xor", () => {
    const bad = { ...part(makeFrames(1, 1, 1), 0, 1, 1), encoding: "zlib-xor" as "raw" };
    expect(() => new PartDecoder(bad)).toThrow(/unknown frame encoding "zlib-xor" at position 0/);
  });

  it("refuses a position outside the part", () => {
    const decoder = new PartDecoder(part(makeFrames(2, 1, 1), 16, 1, 1, "raw"));
    expect(() => decoder.frame(18)).toThrow(RangeError);
    expect(() => decoder.frame(15)).toThrow(RangeError);
  });
});

describe("rgbToFrame", () => {
  it("expands RGB to opaque RGBA word by word and byte by byte alike", () => {
    // Sizes that leave 0-3 pixels after the last group of four; offsets on and off a word boundary.
    for (const [width, height] of [[4, 2], [3, 3], [5, 2], [7, 1], [1, 1]]) {
      const rgb = Uint8Array.from({ length: width * height * 3 + 8 }, (_, i) => (i * 37 + 11) & 0xff);
      for (const offset of [0, 1, 3, 4]) {
        const pixels = rgb.subarray(offset, offset + width * height * 3);
        expect(rgbToFrame(rgb, offset, width, height).rgba).toEqual(rgba(pixels));
        const unaligned = new Uint8Array(rgb.length + 1).subarray(1);
        unaligned.set(rgb);
        expect(rgbToFrame(unaligned, offset, width, height).rgba).toEqual(rgba(pixels));
      }
    }
  });
});
