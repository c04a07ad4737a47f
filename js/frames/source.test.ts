import { afterEach, describe, expect, it, vi } from "vitest";
import { Outbox } from "../shared/outbox.ts";
import { ChunkSource, type Playhead } from "./source.ts";
import { FrameStore } from "./store.ts";
import { FakeModel, kernelReply } from "../shared/test-helpers.ts";
import { ChunkTransport } from "./transport.ts";

afterEach(() => {
  vi.useRealTimers();
});

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

function setup(encodedBudget = 64 * 2 ** 20) {
  const model = new FakeModel();
  const transport = new ChunkTransport(model, { chunkSize: () => 16, onPush: (data) => source.receive(data) });
  const store = new FrameStore(() => 16, { encoded: encodedBudget, inflated: 1 << 20, decoded: 1 << 20 });
  const errors: Error[] = [];
  const shown: number[] = [];
  const source = new ChunkSource(transport, store, (data) => shown.push(data.chunk), (e) => errors.push(e));
  /** Answers request `index` (0-based) with a 1,000-byte raw part per chunk. */
  const answer = (index: number) => {
    const { id, chunks } = model.sent[index];
    const parts = chunks.map((k: number) => ({ chunk: k, start: k * 16, count: 1, height: 1, width: 1, encoding: "raw" }));
    model.reply(...kernelReply({ type: "chunks", id, parts }, chunks.map(() => new Uint8Array(1000))));
  };
  /** Plays the growing kernel: pushes chunk `k` holding its first `count` positions. */
  const push = (k: number, count: number) => {
    const table = { [k]: { infos: Array(count).fill({}) } };
    const parts = [{ chunk: k, start: k * 16, count, height: 1, width: 1, encoding: "raw" }];
    model.reply(...kernelReply({ type: "chunks", id: null, push: true, parts }, [new Uint8Array(count * 3)], table));
  };
  return { model, store, source, transport, errors, shown, answer, push };
}

const playhead = (over: Partial<Playhead> = {}): Playhead => ({
  step: 0,
  direction: 1,
  length: 1600,
  chunkSize: 16,
  fps: 30,
  wrap: false,
  painting: false,
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

  it("while the current frame waits to be painted, holds back window requests bigger than a background one", () => {
    const sent = (chunkBytes: number) => {
      const model = new FakeModel();
      const store = new FrameStore(() => 16, { encoded: 2 ** 20, inflated: 1 << 20, decoded: 1 << 20 });
      const source = new ChunkSource(new ChunkTransport(model, { chunkSize: () => 16 }), store, () => {}, () => {});
      store.put({ chunk: 0, parts: [], steps: new Map(), bytes: chunkBytes }); // chunk sizes are known
      source.update(playhead({ step: 40, painting: true }));
      const held = model.sent.map((m) => m.chunks);
      const wasHeld = source.held;
      source.update(playhead({ step: 40, painting: false }));
      return { held, wasHeld, painted: model.sent.map((m) => m.chunks), heldAfter: source.held };
    };
    expect(sent(1000)).toEqual({ held: [[2], [3, 4, 5, 1]], wasHeld: false, painted: [[2], [3, 4, 5, 1]], heldAfter: false });
    // A 1 MB budget holds one chunk of 300 KB ahead and one behind.
    expect(sent(300_000)).toEqual({ held: [[2]], wasHeld: true, painted: [[2], [3, 1]], heldAfter: false });
  });

  it("sends the current chunk's request at once and the window's after the outbox's spacing", () => {
    vi.useFakeTimers();
    const model = new FakeModel();
    const transport = new ChunkTransport(model, { chunkSize: () => 16, outbox: new Outbox(8, () => Date.now()) });
    const store = new FrameStore(() => 16);
    const source = new ChunkSource(transport, store, () => {}, () => {});
    store.put({ chunk: 0, parts: [], steps: new Map(), bytes: 1000 }); // chunk sizes are known
    source.update(playhead({ step: 40 }));
    expect(model.sent.map((m) => m.chunks)).toEqual([[2]]);
    vi.advanceTimersByTime(8);
    expect(model.sent.map((m) => m.chunks)).toEqual([[2], [3, 4, 5, 1]]);
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

  it("far from the kernel, a paint's request names the frame it waits for; near it, not", async () => {
    const { model, source, transport } = setup();
    source.update(playhead({ step: 40, painting: true }));
    expect(model.sent[0]).toEqual({ type: "chunks", id: 1, chunks: [2] });
    for (let i = 0; i < 16; i++) transport.link.record(150, 100); // replies of a distant kernel
    source.update(playhead({ step: 900, painting: true }));
    expect(model.sent.at(-1)).toEqual({ type: "chunks", id: model.sent.at(-1).id, chunks: [56], frame: 900 });
  });

  it("far from the kernel, keeps a round trip's worth of fill in flight beside the window, in requests of up to 128 chunks", async () => {
    const { model, source, store, answer } = setup();
    // A link of 150 ms round trips and 10 Mbit/s (1,250 bytes a ms): request i's reply
    // arrives 150 ms plus its transfer after it was sent (or once the one before it has).
    let clock = 0;
    vi.spyOn(performance, "now").mockImplementation(() => clock);
    const sentAt: number[] = [];
    const stamp = () => {
      while (sentAt.length < model.sent.length) sentAt.push(clock);
    };
    const reply = async (i: number) => {
      clock = Math.max(clock, sentAt[i] + 150 + (model.sent[i].chunks.length * 1000) / 1250);
      answer(i);
      await settle();
      stamp();
    };
    source.update(playhead({ step: 0, length: 16_000 })); // 1,000 chunks of ~1 KB
    stamp();
    await reply(0); // the current chunk: a small reply shows the round trip, not yet the rate
    // The window, and beside it (far from the kernel, a round trip saved) two background requests.
    expect(model.sent[1].chunks.length).toBeLessThan(8);
    expect(model.sent.slice(2).map((m) => m.chunks.length)).toEqual([128, 128]);
    await reply(1);
    // 128 KB in 252 ms: 1,250 bytes a ms, 190 KB a round trip: 1 + ceil(190 / 128) = 3 in flight.
    await reply(2);
    expect(model.sent.slice(3).map((m) => m.chunks.length)).toEqual([128, 128, 128]);
    expect(new Set(model.sent.slice(2).flatMap((m) => m.chunks)).size).toBe(4 * 128); // none asked twice
    for (let i = 3; i < model.sent.length; i++) await reply(i);
    expect(store.chunks.size).toBe(1000);
    vi.restoreAllMocks();
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

  it("caches a pushed chunk and reports it, without asking the kernel", () => {
    const { model, store, shown, push } = setup();
    push(3, 5);
    expect(store.holdsAll(3, 53)).toBe(true);
    expect(shown).toEqual([3]);
    expect(model.sent).toEqual([]);
  });

  it("does not report a pushed copy that reaches no further than the cached one", () => {
    const { shown, push } = setup();
    push(3, 5);
    push(3, 4);
    push(3, 5);
    expect(shown).toEqual([3]);
  });

  it("after growth, keeps the chunks a push brought whole and asks only for one cut short", async () => {
    const { model, source, store, push } = setup(20_000);
    source.update(playhead({ step: 40, length: 42 }));
    push(2, 10); // settles the request for chunk 2
    await settle();
    push(2, 16); // the episode grew to 50; the pushes arrive before the new length
    push(3, 2);
    source.grown(42, 50, 16);
    expect([store.has(2), store.has(3)]).toEqual([true, true]);
    source.grown(50, 64, 16); // this growth's push left chunk 3 out (capped)
    expect([store.has(2), store.has(3)]).toEqual([true, false]);
    const asked = model.sent.length;
    source.update(playhead({ step: 63, length: 64 }));
    expect(model.sent.slice(asked).map((m) => m.chunks)).toEqual([[3]]);
  });

  it("does not ask again for a chunk a push brought while its request waited for the busy kernel", async () => {
    vi.useFakeTimers();
    const { model, source, errors, push } = setup();
    source.update(playhead({ step: 40, length: 42 }));
    push(2, 10);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(errors).toEqual([]);
    expect(model.sent.filter((m) => m.chunks.includes(2))).toHaveLength(1);
  });
});
