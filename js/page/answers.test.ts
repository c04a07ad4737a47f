import { zlibSync } from "fflate";
import { describe, expect, it, vi } from "vitest";
import { answer, type Block, type EpisodeData, fromBase64, pageState, readPageData } from "./answers.ts";
import { LocalModel } from "./local-model.ts";

const b64 = (bytes: number[] | Uint8Array) => Buffer.from(bytes).toString("base64");
const bytesOf = (view: DataView) => [...new Uint8Array(view.buffer, view.byteOffset, view.byteLength)];

// 40 positions in chunks of 16: block 0 holds chunks 0 and 1, block 1 chunk 2.
const data: EpisodeData = {
  widget: "episode",
  id: "0",
  state: { length: 40, chunk_size: 16, series: { rewards: { zlib: b64(zlibSync(new Uint8Array([1, 2, 3]))) } } },
  blocks: [
    [0, 2],
    [2, 3],
  ],
};
const cards = (first: number, count: number) =>
  Array.from({ length: count }, (_, i): [Record<string, unknown>, string[]] => [
    { kind: "text", text: `t=${first + i}`, version: 2 },
    [],
  ]);
const blocks: Block[] = [
  { reply: [b64([10, 11]), b64([12])], cards: { notes: cards(0, 32), q: cards(0, 32) } },
  { reply: [b64([20])], cards: { notes: cards(32, 8), q: cards(32, 8) } },
];
const asked: number[] = [];
const source = async (b: number) => {
  asked.push(b);
  return blocks[b];
};

describe("page answers", () => {
  it("answers a chunk request with one push per block holding the chunks, its buffers decoded", async () => {
    asked.length = 0;
    const replies = await answer(data, source, { type: "chunks", id: 7, chunks: [2, 0, 1] });
    expect(replies.map(([content]) => content)).toEqual([
      { type: "chunks", id: null, push: true },
      { type: "chunks", id: null, push: true },
    ]);
    expect(replies.map(([, buffers]) => buffers.map(bytesOf))).toEqual([[[20]], [[10, 11], [12]]]);
    expect(asked).toEqual([1, 0]);
  });

  it("leaves out chunks the page does not have", async () => {
    expect(await answer(data, source, { type: "chunks", id: 1, chunks: [5, -1, 0.5, "0"] })).toEqual([]);
  });

  it("answers a panel request with each panel's card at that step, from the step's block", async () => {
    const replies = await answer(data, source, { type: "panel", id: 3, step: 35, names: ["q", "notes"] });
    expect(replies.map(([content]) => content)).toEqual([
      { kind: "text", text: "t=35", version: 2, type: "panel", id: 3, name: "q", step: 35 },
      { kind: "text", text: "t=35", version: 2, type: "panel", id: 3, name: "notes", step: 35 },
    ]);
  });

  it("answers every panel when no names are given, and an unknown one as skipped", async () => {
    const all = await answer(data, source, { type: "panel", id: 1, step: 0 });
    expect(all.map(([c]) => c.name)).toEqual(["notes", "q"]);
    const [[content]] = await answer(data, source, { type: "panel", id: 2, step: 0, names: ["gone"] });
    expect(content).toEqual({ kind: "skipped", type: "panel", id: 2, name: "gone", step: 0 });
  });

  it("gives the state with bytes inflated wherever they are, and refuses what is not a page", () => {
    const state = pageState(data.state);
    expect(state.get("length")).toBe(40);
    expect(bytesOf((state.get("series") as Record<string, DataView>).rewards)).toEqual([1, 2, 3]);
    expect(() => readPageData('{"format": "other"}')).toThrow(/not an agent-widget page/);
    const page = readPageData(JSON.stringify({ format: "agent-widget.page", version: 1, ...data }));
    expect(page.widget === "episode" && page.blocks.length).toBe(2);
  });

  it("decodes base64 to the exact bytes", () => {
    const bytes = Array.from({ length: 256 }, (_, i) => i);
    expect(bytesOf(fromBase64(b64(bytes)))).toEqual(bytes);
  });
});

describe("LocalModel", () => {
  it("answers after send returns, never inside it", async () => {
    const model = new LocalModel(new Map(), (content) => [[{ echo: content }, []]]);
    const received: unknown[] = [];
    model.on("msg:custom", (msg) => received.push(msg));
    model.send({ n: 1 });
    expect(received).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(received).toEqual([{ echo: { n: 1 } }]);
  });

  it("starts answering inside send, so that a fetched answer is on its way at once", () => {
    const asked: unknown[] = [];
    const model = new LocalModel(new Map(), (content) => {
      asked.push(content);
      return [];
    });
    model.send({ n: 1 });
    expect(asked).toEqual([{ n: 1 }]);
  });

  it("reports an answer that throws, and goes on answering", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const model = new LocalModel(new Map(), (content) => {
      if ((content as { n: number }).n === 1) throw new Error("no answer");
      return [[{ echo: content }, []]];
    });
    const received: unknown[] = [];
    model.on("msg:custom", (msg) => received.push(msg));
    model.send({ n: 1 });
    model.send({ n: 2 });
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(received).toEqual([{ echo: { n: 2 } }]);
    expect(errors).toHaveBeenCalledTimes(1);
    errors.mockRestore();
  });

  it("sets traits with change events, once per change, until the listener is removed", () => {
    const model = new LocalModel(new Map([["step", 0]]), () => []);
    const seen: unknown[] = [];
    const listener = () => seen.push(model.get("step"));
    model.on("change:step", listener);
    model.set("step", 3);
    model.set("step", 3);
    model.save_changes();
    model.off("change:step", listener);
    model.set("step", 4);
    expect(seen).toEqual([3]);
    expect(model.get("step")).toBe(4);
  });
});
