import { describe, expect, it } from "vitest";
import {
  aheadChunks,
  backgroundBatch,
  chunksPerRequest,
  decodePlan,
  fitsBudget,
  missingInWindow,
  toRequests,
  type Window,
} from "./prefetch.ts";

const MB = 2 ** 20;
const none = () => false;
const window = (over: Partial<Window>): Window => ({
  step: 100,
  direction: 1,
  length: 1000,
  chunkSize: 16,
  ahead: 3,
  behind: 1,
  wrap: false,
  ...over,
});

describe("missingInWindow", () => {
  it("asks for the current chunk first, then ahead in the direction of travel, then behind", () => {
    expect(missingInWindow(window({ step: 100 }), none)).toEqual([6, 7, 8, 9, 5]);
  });

  it("looks the other way when the playhead moves backwards", () => {
    expect(missingInWindow(window({ step: 100, direction: -1 }), none)).toEqual([6, 5, 4, 3, 7]);
  });

  it("skips chunks that are cached or in flight", () => {
    const present = (k: number) => k === 6 || k === 8;
    expect(missingInWindow(window({ step: 100 }), present)).toEqual([7, 9, 5]);
  });

  it("stays inside the episode at both ends", () => {
    expect(missingInWindow(window({ step: 0, direction: -1 }), none)).toEqual([0, 1]);
    expect(missingInWindow(window({ step: 999 }), none)).toEqual([62, 61]);
  });

  it("wraps around the end when playback loops", () => {
    expect(missingInWindow(window({ step: 999, wrap: true }), none)).toEqual([62, 0, 1, 2, 61]);
  });
});

describe("aheadChunks", () => {
  it("holds about one second of playback ahead", () => {
    expect(aheadChunks(60, 16, 3000, 64 * MB)).toBe(5);
    expect(aheadChunks(30, 16, 3000, 64 * MB)).toBe(3);
  });

  it("holds at least two chunks ahead when stepping slowly", () => {
    expect(aheadChunks(1, 16, 3000, 64 * MB)).toBe(2);
  });

  it("never plans a window that would not fit in half the budget", () => {
    // 480x480 raw frames: 11 MB a chunk; 64 MB / 2 holds 2 chunks, minus current and behind.
    expect(aheadChunks(60, 16, 11 * MB, 64 * MB)).toBe(1);
  });
});

describe("toRequests", () => {
  it("sends the current chunk alone first so it arrives soonest, the rest batched", () => {
    expect(toRequests([6, 7, 8, 9, 5], 6, 3)).toEqual([[6], [7, 8, 9], [5]]);
  });

  it("batches everything when the current chunk is already there", () => {
    expect(toRequests([7, 8, 9], 6, 16)).toEqual([[7, 8, 9]]);
  });
});

describe("chunksPerRequest", () => {
  it("fits as many chunks as keep a reply near the target size", () => {
    expect(chunksPerRequest(64 * 1024, 256 * 1024, 32)).toBe(4);
  });

  it("asks for one chunk at a time before any size is known, or when chunks are huge", () => {
    expect(chunksPerRequest(0, 256 * 1024, 32)).toBe(1);
    expect(chunksPerRequest(11 * MB, 4 * MB, 16)).toBe(1);
  });

  it("caps the count for tiny chunks", () => {
    expect(chunksPerRequest(100, 256 * 1024, 32)).toBe(32);
  });
});

describe("fitsBudget", () => {
  it("fills in the background an episode that fits (10,000 Pong steps, ~3 MB)", () => {
    expect(fitsBudget(3 * MB / 625, 625, 64 * MB)).toBe(true);
  });

  it("does not fill an episode larger than the budget (1,000 raw 480x480 frames)", () => {
    expect(fitsBudget(11 * MB, 63, 64 * MB)).toBe(false);
  });

  it("keeps 10% headroom", () => {
    expect(fitsBudget(1 * MB, 58, 64 * MB)).toBe(false);
    expect(fitsBudget(1 * MB, 57, 64 * MB)).toBe(true);
  });

  it("decides nothing before the first chunk has arrived", () => {
    expect(fitsBudget(0, 10, 64 * MB)).toBe(false);
  });
});

describe("backgroundBatch", () => {
  it("takes the missing chunks nearest the playhead, alternating ahead and behind", () => {
    expect(backgroundBatch(5, 1, 100, none, 5)).toEqual([5, 6, 4, 7, 3]);
    expect(backgroundBatch(5, -1, 100, none, 5)).toEqual([5, 4, 6, 3, 7]);
  });

  it("skips what is cached or in flight and continues past the episode's ends", () => {
    const present = (k: number) => k >= 0 && k <= 6;
    expect(backgroundBatch(1, 1, 10, present, 3)).toEqual([7, 8, 9]);
  });

  it("returns nothing once every chunk is present", () => {
    expect(backgroundBatch(3, 1, 10, () => true, 8)).toEqual([]);
  });
});

describe("decodePlan", () => {
  it("decodes the current frame first, then ahead, then a few behind", () => {
    expect(decodePlan(10, 1, 100, 3, 2, false)).toEqual([10, 11, 12, 13, 9, 8]);
    expect(decodePlan(10, -1, 100, 2, 1, false)).toEqual([10, 9, 8, 11]);
  });

  it("clips at the ends unless looping", () => {
    expect(decodePlan(98, 1, 100, 3, 1, false)).toEqual([98, 99, 97]);
    expect(decodePlan(98, 1, 100, 3, 1, true)).toEqual([98, 99, 0, 1, 97]);
  });
});
