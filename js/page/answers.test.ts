import { describe, expect, it } from "vitest";
import { answer, type EpisodeData, fromBase64, pageState, readPageData } from "./answers.ts";
import { LocalModel } from "./local-model.ts";

const b64 = (bytes: number[]) => Buffer.from(bytes).toString("base64");
const bytesOf = (view: DataView) => [...new Uint8Array(view.buffer, view.byteOffset, view.byteLength)];

const data: EpisodeData = {
  widget: "episode",
  state: { length: 20, fps: 12, series: { rewards: { base64: b64([1, 2, 3]) } }, viewers: [{ base64: b64([9]) }] },
  chunks: [[b64([10, 11]), b64([12])], [b64([20])]],
  cards: {
    notes: Array.from({ length: 20 }, (_, t) => [{ kind: "text", text: `t=${t}`, version: 2 }, []]),
    q: Array.from({ length: 20 }, () => [{ kind: "bars", labels: ["a"], version: 1 }, [b64([0, 0, 0, 0, 0, 0, 248, 63])]]),
  },
};

describe("page answers", () => {
  it("answers a chunk request with one push per chunk, its buffers decoded", () => {
    const replies = answer(data, { type: "chunks", id: 7, chunks: [1, 0] });
    expect(replies.map(([content]) => content)).toEqual([
      { type: "chunks", id: null, push: true },
      { type: "chunks", id: null, push: true },
    ]);
    expect(replies.map(([, buffers]) => buffers.map(bytesOf))).toEqual([[[20]], [[10, 11], [12]]]);
  });

  it("leaves out chunks the page does not have", () => {
    expect(answer(data, { type: "chunks", id: 1, chunks: [5, -1, 0.5, "0"] })).toEqual([]);
  });

  it("answers a panel request with each panel's card at that step, under the request's id", () => {
    const replies = answer(data, { type: "panel", id: 3, step: 4, names: ["q", "notes"] });
    expect(replies.map(([content]) => content)).toEqual([
      { kind: "bars", labels: ["a"], version: 1, type: "panel", id: 3, name: "q", step: 4 },
      { kind: "text", text: "t=4", version: 2, type: "panel", id: 3, name: "notes", step: 4 },
    ]);
    expect(new Float64Array(replies[0][1][0].buffer)[0]).toBe(1.5);
  });

  it("answers every panel when no names are given, and an unknown one as skipped", () => {
    expect(answer(data, { type: "panel", id: 1, step: 0 }).map(([c]) => c.name)).toEqual(["notes", "q"]);
    const [[content]] = answer(data, { type: "panel", id: 2, step: 0, names: ["gone"] });
    expect(content).toEqual({ kind: "skipped", type: "panel", id: 2, name: "gone", step: 0 });
  });

  it("gives the state with bytes decoded wherever they are, and refuses what is not a page", () => {
    const state = pageState(data.state);
    expect(state.get("fps")).toBe(12);
    expect(bytesOf((state.get("series") as Record<string, DataView>).rewards)).toEqual([1, 2, 3]);
    expect((state.get("viewers") as DataView[]).map(bytesOf)).toEqual([[9]]);
    expect(() => readPageData('{"format": "other"}')).toThrow(/not an agent-widget page/);
    const page = readPageData(JSON.stringify({ format: "agent-widget.page", version: 1, ...data }));
    expect(page.widget === "episode" && page.chunks.length).toBe(2);
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
    await Promise.resolve();
    expect(received).toEqual([{ echo: { n: 1 } }]);
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
