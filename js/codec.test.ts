import { deflateSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { PartDecoder, StreamInflater, undoXor } from "./codec.ts";
import { makeFrames, part, rgba } from "./test-helpers.ts";

async function inflateAll(data: Uint8Array, expected: number): Promise<Uint8Array> {
  const out = new Uint8Array(expected);
  await new StreamInflater(data, out).fill(expected, true);
  return out;
}

describe("StreamInflater", () => {
  it("inflates a zlib stream made by node:zlib deflateSync", async () => {
    const data = Uint8Array.from({ length: 5000 }, (_, i) => (i * 7) & 0xff);
    expect(await inflateAll(new Uint8Array(deflateSync(data)), data.length)).toEqual(data);
  });

  it("stops early: asking for the first bytes does not inflate the whole stream", async () => {
    const data = new Uint8Array(4 * 2 ** 20);
    for (let i = 0; i < data.length; i++) data[i] = (i >> 10) & 0xff;
    const out = new Uint8Array(data.length);
    const inflater = new StreamInflater(new Uint8Array(deflateSync(data)), out);
    await inflater.fill(1000, false);
    expect(inflater.bytes).toBeGreaterThanOrEqual(1000);
    expect(inflater.bytes).toBeLessThan(data.length / 2);
    expect(out.subarray(0, 1000)).toEqual(data.subarray(0, 1000));
    await inflater.fill(data.length, false);
    expect(Buffer.compare(out, data)).toBe(0);
  });

  it("rejects a stream that inflates to more than expected", async () => {
    const data = new Uint8Array(100);
    await expect(inflateAll(new Uint8Array(deflateSync(data)), 99)).rejects.toThrow(/larger than the expected 99 bytes/);
  });

  it("rejects a stream that inflates to less than expected", async () => {
    const data = new Uint8Array(100);
    await expect(inflateAll(new Uint8Array(deflateSync(data)), 101)).rejects.toThrow(/inflated 100 bytes, expected 101/);
  });

  it("rejects bytes that are not a zlib stream", async () => {
    await expect(inflateAll(Uint8Array.from([1, 2, 3, 4, 5]), 10)).rejects.toThrow();
  });
});

describe("undoXor", () => {
  it("turns a delta into the frame using the previous, already undone frame (word-sized frames)", () => {
    const data = Uint8Array.from([1, 2, 3, 4, 1 ^ 9, 2 ^ 8, 3 ^ 7, 4 ^ 6]);
    undoXor(data, 4, 1);
    expect([...data]).toEqual([1, 2, 3, 4, 9, 8, 7, 6]);
  });

  it("handles frames whose size is not a multiple of 4", () => {
    const data = Uint8Array.from([10, 20, 30, 10 ^ 5, 20 ^ 6, 30 ^ 7, 5 ^ 0, 6 ^ 0, 7 ^ 1]);
    undoXor(data, 3, 1);
    undoXor(data, 3, 2);
    expect([...data]).toEqual([10, 20, 30, 5, 6, 7, 0, 0, 1]);
  });
});

async function decoded(p: ReturnType<typeof part>, t: number): Promise<Uint8ClampedArray> {
  const decoder = new PartDecoder(p);
  await decoder.load(t, true);
  return decoder.frame(t).rgba;
}

describe("PartDecoder", () => {
  it("decodes every frame of a zlib-xor part to its exact RGB with alpha 255", async () => {
    const frames = makeFrames(5, 4, 6);
    const decoder = new PartDecoder(part(frames, 32, 4, 6));
    await decoder.load(36, true);
    frames.forEach((rgb, i) => {
      const frame = decoder.frame(32 + i);
      expect(frame.width).toBe(6);
      expect(frame.height).toBe(4);
      expect(frame.rgba).toEqual(rgba(rgb));
    });
  });

  it("decodes frames out of order (a later frame first, then an earlier one)", async () => {
    const frames = makeFrames(4, 3, 5); // 45-byte frames: the byte-wise XOR path
    const decoder = new PartDecoder(part(frames, 0, 3, 5));
    await decoder.load(3, true);
    expect(decoder.frame(3).rgba).toEqual(rgba(frames[3]));
    expect(decoder.frame(1).rgba).toEqual(rgba(frames[1]));
    expect(decoder.frame(2).rgba).toEqual(rgba(frames[2]));
  });

  it("is not ready for a frame before its bytes are inflated", async () => {
    const decoder = new PartDecoder(part(makeFrames(2, 2, 2), 0, 2, 2));
    expect(decoder.ready(0)).toBe(false);
    expect(() => decoder.frame(0)).toThrow(/not inflated yet/);
    await decoder.load(1, true);
    expect(decoder.ready(1)).toBe(true);
  });

  it("decodes a raw part without inflating", async () => {
    const frames = makeFrames(3, 2, 2);
    const decoder = new PartDecoder(part(frames, 16, 2, 2, "raw"));
    expect(decoder.ready(18)).toBe(true);
    expect(decoder.frame(18).rgba).toEqual(rgba(frames[2]));
    expect(decoder.frame(16).rgba).toEqual(rgba(frames[0]));
  });

  it("rejects a raw payload of the wrong size, naming the position", () => {
    const bad = { ...part(makeFrames(2, 2, 2), 48, 2, 2, "raw"), count: 3 };
    expect(() => new PartDecoder(bad)).toThrow(/position 48 holds 24 bytes, expected 36/);
  });

  it("rejects a zlib-xor payload that does not match the header, naming the position", async () => {
    const bad = { ...part(makeFrames(2, 2, 2), 64, 2, 2), width: 3 };
    await expect(decoded(bad, 65)).rejects.toThrow(/zlib-xor part at position 64/);
  });

  it("rejects an unknown encoding", () => {
    const bad = { ...part(makeFrames(1, 1, 1), 0, 1, 1), encoding: "png" as "raw" };
    expect(() => new PartDecoder(bad)).toThrow(/unknown frame encoding "png"/);
  });

  it("refuses a position outside the part", () => {
    const decoder = new PartDecoder(part(makeFrames(2, 1, 1), 16, 1, 1, "raw"));
    expect(() => decoder.frame(18)).toThrow(RangeError);
  });
});
