import { afterEach, describe, expect, it, vi } from "vitest";
import { ChunkSource, type Playhead } from "./source.ts";
import { FrameStore } from "./store.ts";
import { FakeModel } from "./test-helpers.ts";
import { ChunkTransport } from "./transport.ts";

afterEach(() => {
  vi.useRealTimers();
});

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

function setup(encodedBudget = 64 * 2 ** 20) {
  const model = new FakeModel();
  const transport = new ChunkTransport(model, { chunkSize: () => 16 });
  const store = new FrameStore(() => 16, { encoded: encodedBudget, inflated: 1 << 20, decoded: 1 << 20 });
  const errors: Error[] = [];
  const source = new ChunkSource(transport, store, () => {}, (e) => errors.push(e));
  /** Answers request `index` (0-based) with a 1,000-byte raw part per chunk. */
  const answer = (index: number) => {
    const { id, chunks } = model.sent[index];
    const parts = chunks.map((k: number) => ({ chunk: k, start: k * 16, count: 1, height: 1, width: 1, encoding: "raw" }));
    model.reply({ type: "chunks", id, parts, steps: {} }, chunks.map(() => new Uint8Array(1000)));
  };
  return { model, store, source, errors, answer };
}

const playhead = (over: Partial<Playhead> = {}): Playhead => ({
  step: 0,
  direction: 1,
  length: 1600,
  chunkSize: 16,
  fps: 30,
  wrap: false,
  ...over,
});

describe("ChunkSource", () => {
  it("asks for the current chunk alone first, then the chunks around it in one request", async () => {
    const { model, source, answer } = setup();
    source.update(playhead({ step: 40 }));
    expect(model.sent.map((m) => m.chunks)).toEqual([[2]]);
    answer(0);
    await settle();
    expect(model.sent.map((m) => m.chunks)).toEqual([[2], [3, 4, 5, 1]]);
  });

  it("asks for the current chunk together with the window once chunk sizes are known", async () => {
    const { model, source, answer } = setup(20_000); // too small to fill in the background
    source.update(playhead({ step: 0 }));
    answer(0);
    await settle();
    answer(1);
    await settle();
    source.update(playhead({ step: 800, direction: -1 }));
    expect(model.sent[2].chunks).toEqual([50]);
    expect(model.sent[3].chunks).toEqual([49, 48, 47, 51]);
  });

  it("does not ask again for chunks that are cached or on their way", async () => {
    const { model, source, answer } = setup(20_000);
    source.update(playhead({ step: 40 }));
    source.update(playhead({ step: 41 }));
    expect(model.sent).toHaveLength(1);
    answer(0);
    await settle();
    expect(model.sent).toHaveLength(2);
    source.update(playhead({ step: 42 }));
    expect(model.sent).toHaveLength(2);
  });

  it("fills the rest of an episode that fits the budget in the background, one request at a time", async () => {
    const { model, source, store, answer } = setup();
    source.update(playhead({ step: 0, length: 1600 })); // 100 chunks of ~1 KB: fits
    answer(0);
    await settle();
    expect(model.sent.map((m) => m.chunks)).toEqual([[0], [1, 2, 3]]); // the background waits for these
    answer(1);
    await settle();
    expect(model.sent).toHaveLength(3);
    expect(model.sent[2].chunks[0]).toBe(4); // nearest missing chunk first
    for (let i = 2; i < model.sent.length; i++) {
      expect(model.sent).toHaveLength(i + 1); // one in flight at a time
      answer(i);
      await settle();
    }
    expect(store.chunks.size).toBe(100);
  });

  it("does not fill an episode larger than the budget", async () => {
    const { model, source, answer } = setup(20_000); // room for ~20 chunks, the episode has 100
    source.update(playhead());
    answer(0);
    await settle();
    answer(1);
    await settle();
    expect(model.sent).toHaveLength(2);
  });

  it("asks again for a chunk it dropped", async () => {
    const { model, source, answer } = setup(20_000);
    source.update(playhead({ step: 40 }));
    answer(0);
    await settle();
    answer(1);
    await settle();
    source.drop(2);
    source.update(playhead({ step: 40 }));
    expect(model.sent[2].chunks).toEqual([2]);
  });

  it("reports a failed request and does not retry it in a loop", async () => {
    const { model, source, errors } = setup();
    source.update(playhead({ step: 40 }));
    model.reply({ type: "error", id: 1, message: "boom" });
    await settle();
    expect(errors.map((e) => e.message)).toEqual(["boom"]);
    expect(model.sent).toHaveLength(1);
  });

  it("asks again, without reporting, for a chunk forgotten while in flight", async () => {
    const { model, source, errors } = setup();
    source.update(playhead({ step: 40 }));
    source.drop(2);
    await settle();
    expect(errors).toEqual([]);
    expect(model.sent.map((m) => m.chunks)).toEqual([[2], [2]]);
  });

  it("asks again for a chunk whose request timed out (the kernel was busy)", async () => {
    vi.useFakeTimers();
    const { model, source, errors } = setup();
    source.update(playhead({ step: 40 }));
    await vi.advanceTimersByTimeAsync(20_001);
    expect(errors).toEqual([]);
    expect(model.sent.map((m) => m.chunks)).toEqual([[2], [2]]);
  });
});
