import { deflateSync } from "node:zlib";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Outbox } from "../shared/outbox.ts";
import { ChunkTransport, StaleError } from "./transport.ts";
import { FakeModel, kernelReply, type ReadoutTable } from "../shared/test-helpers.ts";
import type { ChunkData } from "../shared/types.ts";

const header = (chunk: number, start: number, count = 16) => ({
  chunk,
  start,
  count,
  height: 2,
  width: 2,
  encoding: "raw",
});

function setup(timeoutMs = 1000) {
  const model = new FakeModel();
  const pushed: ChunkData[] = [];
  const pushErrors: Error[] = [];
  const transport = new ChunkTransport(model, {
    chunkSize: () => 16,
    timeoutMs,
    onPush: (data) => pushed.push(data),
    onPushError: (error) => pushErrors.push(error),
  });
  return { model, transport, pushed, pushErrors };
}

const push = (parts: ReturnType<typeof header>[]) => ({ type: "chunks", id: null, push: true, parts });

/** Plays the kernel: a chunk message with these part payloads, then its index with `table`'s readout data. */
const send = (model: FakeModel, content: Record<string, unknown>, payloads: Uint8Array[] = [], table: ReadoutTable = {}) =>
  model.reply(...kernelReply(content, payloads, table));

afterEach(() => {
  vi.useRealTimers();
});

describe("ChunkTransport", () => {
  it("asks for chunks in one message with a fresh id each time", () => {
    const { model, transport } = setup();
    transport.fetch([3, 4]);
    transport.fetch([9]);
    expect(model.sent).toEqual([
      { type: "chunks", id: 1, chunks: [3, 4] },
      { type: "chunks", id: 2, chunks: [9] },
    ]);
  });

  it("resolves each chunk with its parts, payloads taken from the buffers in order", async () => {
    const { model, transport } = setup();
    const [three, four] = transport.fetch([3, 4]);
    send(model, { type: "chunks", id: 1, parts: [header(3, 48), header(4, 64, 2)] }, [
      Uint8Array.from([1, 2, 3]),
      Uint8Array.from([7, 8]),
    ]);
    const a = await three;
    const b = await four;
    expect(a.parts.map((p) => [p.start, p.count, [...p.payload]])).toEqual([[48, 16, [1, 2, 3]]]);
    expect(b.parts.map((p) => [p.start, p.count, [...p.payload]])).toEqual([[64, 2, [7, 8]]]);
    expect(a.parts[0]).toMatchObject({ height: 2, width: 2, encoding: "raw", chunk: 3 });
  });

  it("groups the per-position action and info by chunk", async () => {
    const { model, transport } = setup();
    const [zero, one] = transport.fetch([0, 1]);
    const actions = Array.from({ length: 16 }, (_, i) => `[${i}, 0]`);
    const infos = Array.from({ length: 16 }, (_, i) => ({ i }));
    send(model, { type: "chunks", id: 1, parts: [] }, [], {
      0: { actions, infos },
      1: { actions: ["[2, 1]", ""], infos: [{ lives: 3, seed: 5 }, {}] },
    });
    expect((await zero).steps.get(15)).toEqual({ action: "[15, 0]", info: { i: 15 } });
    expect((await one).steps.get(16)).toEqual({ action: "[2, 1]", info: { lives: 3, seed: 5 } });
    expect((await one).steps.get(17)).toEqual({ action: "", info: {} });
    expect([(await zero).steps.size, (await one).steps.size]).toEqual([16, 2]);
    expect((await zero).parts).toEqual([]);
  });

  it("leaves the action text out where the kernel sends none (the series shows scalar actions)", async () => {
    const { model, transport } = setup();
    const [zero] = transport.fetch([0]);
    send(model, { type: "chunks", id: 1, parts: [] }, [], { 0: { infos: [{ t: 0 }, { t: 1 }] } });
    expect((await zero).steps.get(1)).toEqual({ info: { t: 1 } });
  });

  it("matches replies to requests by id, whatever the order they arrive in", async () => {
    const { model, transport } = setup();
    const [first] = transport.fetch([1]);
    const [second] = transport.fetch([2]);
    send(model, { type: "chunks", id: 2, parts: [header(2, 32)] }, [Uint8Array.from([2])]);
    send(model, { type: "chunks", id: 1, parts: [header(1, 16)] }, [Uint8Array.from([1])]);
    expect([...(await first).parts[0].payload]).toEqual([1]);
    expect([...(await second).parts[0].payload]).toEqual([2]);
  });

  it("sends an urgent request at once and the requests after it spaced by the outbox", () => {
    vi.useFakeTimers();
    const model = new FakeModel();
    const transport = new ChunkTransport(model, { chunkSize: () => 16, outbox: new Outbox(8, () => Date.now()) });
    transport.fetch([5], true);
    transport.fetch([6, 7]);
    expect(model.sent.map((m) => m.chunks)).toEqual([[5]]);
    vi.advanceTimersByTime(8);
    expect(model.sent.map((m) => m.chunks)).toEqual([[5], [6, 7]]);
  });

  it("does not send a waiting request whose chunks were all forgotten", () => {
    vi.useFakeTimers();
    const model = new FakeModel();
    const transport = new ChunkTransport(model, { chunkSize: () => 16, outbox: new Outbox(8, () => Date.now()) });
    transport.fetch([5], true);
    transport.fetch([6]);
    transport.forget(6);
    vi.advanceTimersByTime(8);
    expect(model.sent.map((m) => m.chunks)).toEqual([[5]]);
  });

  it("never asks for a chunk that is already in flight", () => {
    const { model, transport } = setup();
    const [a] = transport.fetch([5]);
    const [b, c] = transport.fetch([5, 6]);
    expect(a).toBe(b);
    expect(model.sent).toEqual([
      { type: "chunks", id: 1, chunks: [5] },
      { type: "chunks", id: 2, chunks: [6] },
    ]);
    expect(c).toBeInstanceOf(Promise);
    transport.fetch([5, 6]);
    expect(model.sent).toHaveLength(2);
  });

  it("asks again for a chunk once its reply has arrived", async () => {
    const { model, transport } = setup();
    const [a] = transport.fetch([5]);
    send(model, { type: "chunks", id: 1, parts: [] });
    await a;
    transport.fetch([5]);
    expect(model.sent).toHaveLength(2);
  });

  it("rejects every chunk of a request answered with an error, with the kernel's message", async () => {
    const { model, transport } = setup();
    const [a, b] = transport.fetch([1, 2]);
    model.reply({ type: "error", id: 1, message: "chunk 2 is out of range" });
    await expect(a).rejects.toThrow("chunk 2 is out of range");
    await expect(b).rejects.toThrow("chunk 2 is out of range");
    expect(transport.isPending(1)).toBe(false);
  });

  it("rejects a reply whose parts and buffers do not pair up", async () => {
    const { model, transport } = setup();
    const [a] = transport.fetch([1]);
    model.reply(...kernelReply({ type: "chunks", id: 1, parts: [header(1, 16)] }));
    await expect(a).rejects.toThrow("1 parts but 1 buffers");
  });

  it("rejects a reply whose index is not zlib-compressed JSON", async () => {
    const { model, transport } = setup();
    const [a] = transport.fetch([1]);
    model.reply({ type: "chunks", id: 1 }, [Uint8Array.from([1, 2, 3])]);
    await expect(a).rejects.toThrow("chunk reply 1: its index cannot be read");
  });

  it("rejects a reply whose index does not add up", async () => {
    const { model, transport } = setup();
    const [a, b] = transport.fetch([1]).concat(transport.fetch([2]));
    const [content, buffers] = kernelReply({ type: "chunks", id: 1 }, [], { 1: { infos: [{}], actions: ["a", "b"] } });
    model.reply(content, buffers);
    await expect(a).rejects.toThrow("chunk reply 1: its index does not describe its chunks");
    const [, [texts]] = kernelReply({ type: "chunks", id: 3 }, [], { 3: { infos: [{}], actions: [7 as never] } });
    const [c] = transport.fetch([3]);
    model.reply({ type: "chunks", id: 3 }, [texts]);
    await expect(c).rejects.toThrow("chunk reply 3: its index does not describe its chunks");
    const columns = { keys: [["x"]], key_set: [0, 0], columns: { x: [1] } };
    const index = { chunks: [2], counts: [2], parts: [], infos: columns };
    model.reply({ type: "chunks", id: 2 }, [new Uint8Array(deflateSync(JSON.stringify(index)))]);
    await expect(b).rejects.toThrow('chunk reply 2: the info column "x" runs out');
  });

  it("names the position a paint waits for when it asks for its chunk first", () => {
    const { model, transport } = setup();
    transport.fetch([3, 4], true, 50);
    transport.fetch([4, 5], true, 70); // chunk 4 is on its way: the request leads with 5
    expect(model.sent).toEqual([
      { type: "chunks", id: 1, chunks: [3, 4], frame: 50 },
      { type: "chunks", id: 2, chunks: [5] },
    ]);
  });

  it("hands a frame sent ahead of its chunk, with the chunk's readout data, to onFrame while that chunk is wanted from its request", () => {
    const model = new FakeModel();
    const frames: { start: number; payload: number[]; infos: unknown[] }[] = [];
    const transport = new ChunkTransport(model, {
      chunkSize: () => 16,
      onFrame: (part, steps) => frames.push({ start: part.start, payload: [...part.payload], infos: [...steps.values()].map((m) => m.info) }),
    });
    transport.fetch([3], true, 50);
    transport.fetch([6], true, 100);
    /** The kernel's frame message: the one-frame part's payload, then chunk k's index without parts. */
    const frame = (id: number, k: number, start: number, payload: number[], infos = [{ lives: 3 }, { lives: 2 }]) => {
      const [, [index]] = kernelReply({}, [], { [k]: { infos } });
      model.reply({ type: "frame", id, part: header(k, start, 1) }, [Uint8Array.from(payload), index]);
    };
    frame(1, 3, 50, [9, 8]);
    frame(2, 3, 51, [1]); // another request's id: ignored
    model.reply({ type: "frame", id: 1, part: header(3, 50, 1) }, [Uint8Array.from([1])]); // no index: ignored
    model.reply({ type: "frame", id: 1, part: header(3, 50, 1) }, [Uint8Array.from([1]), Uint8Array.from([1])]); // unreadable: ignored
    transport.forget(6);
    frame(2, 6, 100, [1]); // forgotten: ignored
    expect(frames).toEqual([{ start: 50, payload: [9, 8], infos: [{ lives: 3 }, { lives: 2 }] }]);
    expect(transport.isPending(3)).toBe(true); // the chunk itself is still to come
  });

  it("ignores replies to ids it never sent", () => {
    const { model, transport } = setup();
    transport.fetch([1]);
    send(model, { type: "chunks", id: 99, parts: [] });
    model.reply({ type: "other" });
    model.reply(null);
    expect(transport.isPending(1)).toBe(true);
  });

  it("gives up on a request after the timeout and ignores its late reply", async () => {
    vi.useFakeTimers();
    const { model, transport } = setup(500);
    const [late] = transport.fetch([4]);
    vi.advanceTimersByTime(501);
    await expect(late).rejects.toThrow("timed out");
    const [again] = transport.fetch([4]);
    expect(model.sent).toHaveLength(2);
    send(model, { type: "chunks", id: 1, parts: [header(4, 64)] }, [Uint8Array.from([1])]);
    expect(transport.isPending(4)).toBe(true);
    send(model, { type: "chunks", id: 2, parts: [header(4, 64)] }, [Uint8Array.from([2])]);
    expect([...(await again).parts[0].payload]).toEqual([2]);
  });

  it("drops a forgotten chunk's reply, so stale frames never resolve", async () => {
    const { model, transport } = setup();
    const [stale] = transport.fetch([7]);
    transport.forget(7);
    await expect(stale).rejects.toBeInstanceOf(StaleError);
    const [fresh] = transport.fetch([7]);
    send(model, { type: "chunks", id: 1, parts: [header(7, 112)] }, [Uint8Array.from([1])]);
    expect(transport.isPending(7)).toBe(true);
    send(model, { type: "chunks", id: 2, parts: [header(7, 112)] }, [Uint8Array.from([2])]);
    expect([...(await fresh).parts[0].payload]).toEqual([2]);
  });

  it("copies a payload out of a larger shared buffer so the cache holds only its bytes", async () => {
    const { model, transport } = setup();
    const [a] = transport.fetch([0]);
    const message = Uint8Array.from([9, 9, 1, 2, 3, 9]);
    const [content, [index]] = kernelReply({ type: "chunks", id: 1, parts: [header(0, 0)] });
    model.emit("msg:custom", content, [new DataView(message.buffer, 2, 3), new DataView(index.buffer)]);
    const payload = (await a).parts[0].payload;
    expect([...payload]).toEqual([1, 2, 3]);
    expect(payload.buffer.byteLength).toBe(3);
  });

  it("counts payload and meta bytes against the cache", async () => {
    const { model, transport } = setup();
    const [a] = transport.fetch([0]);
    send(model, { type: "chunks", id: 1, parts: [header(0, 0)] }, [new Uint8Array(1000)], {
      0: { actions: ["ab"], infos: [{}] },
    });
    expect((await a).bytes).toBeGreaterThan(1000);
  });

  it("stops listening and rejects what is in flight when disposed", async () => {
    const { model, transport } = setup();
    const [a] = transport.fetch([0]);
    transport.dispose();
    await expect(a).rejects.toBeInstanceOf(StaleError);
    expect(model.listeners("msg:custom")).toBe(0);
  });

  it("hands a pushed chunk nobody asked for to onPush, with its payload and readout data", () => {
    const { model, pushed } = setup();
    const infos = [{}, {}, { t: 34 }];
    send(model, push([header(2, 32, 3)]), [Uint8Array.from([5, 6])], { 2: { actions: ["", "", "[1]"], infos } });
    expect(pushed.map((d) => [d.chunk, d.parts.map((p) => [p.start, p.count, [...p.payload]])])).toEqual([
      [2, [[32, 3, [5, 6]]]],
    ]);
    expect(pushed[0].steps.get(34)).toEqual({ action: "[1]", info: { t: 34 } });
    expect(model.sent).toEqual([]);
  });

  it("settles a request in flight with a push of its chunk and ignores the request's late reply", async () => {
    const { model, transport, pushed } = setup();
    const [waiting] = transport.fetch([2]);
    send(model, push([header(2, 32, 3)]), [Uint8Array.from([1])]);
    expect([...(await waiting).parts[0].payload]).toEqual([1]);
    expect(transport.isPending(2)).toBe(false);
    expect(pushed).toEqual([]); // the requester caches it
    send(model, { type: "chunks", id: 1, parts: [header(2, 32, 2)] }, [Uint8Array.from([0])]);
    const [again] = transport.fetch([2]);
    send(model, { type: "chunks", id: 2, parts: [header(2, 32, 4)] }, [Uint8Array.from([2])]);
    expect([...(await again).parts[0].payload]).toEqual([2]);
  });

  it("does not time out a request that a push settled", async () => {
    vi.useFakeTimers();
    const { model, transport } = setup(500);
    const [waiting] = transport.fetch([2]);
    send(model, push([header(2, 32, 3)]), [Uint8Array.from([1])]);
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(501);
    await expect(waiting).resolves.toMatchObject({ chunk: 2 });
  });

  it("keeps waiting for the chunks of a request that a push did not bring", async () => {
    vi.useFakeTimers();
    const { model, transport } = setup(500);
    const [, three] = transport.fetch([2, 3]);
    send(model, push([header(2, 32)]), [Uint8Array.from([1])]);
    expect(transport.isPending(3)).toBe(true);
    vi.advanceTimersByTime(501);
    await expect(three).rejects.toThrow("timed out");
  });

  it("reports a push whose parts and buffers do not pair up, and settles nothing with it", () => {
    const { model, transport, pushed, pushErrors } = setup();
    transport.fetch([2]);
    model.reply(...kernelReply(push([header(2, 32)])));
    model.reply(push([header(2, 32)]), []);
    expect(pushErrors.map((e) => e.message)).toEqual([
      "chunk push has 1 parts but 1 buffers (a payload per part, then the index)",
      "chunk push has no buffers (a payload per part, then the index)",
    ]);
    expect(pushed).toEqual([]);
    expect(transport.isPending(2)).toBe(true);
  });
});
