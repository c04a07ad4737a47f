import { describe, expect, it } from "vitest";
import { episodeModel, grow, replies } from "./http-model.ts";

const base = new URL("http://tb.test/data/plugin/agent/index.js");

/** A body as agent_widget/tensorboard/_packed.py makes it: JSON, then the buffers. */
function packed(head: unknown, buffers: number[]): ArrayBuffer {
  const json = new TextEncoder().encode(JSON.stringify(head));
  const bytes = new Uint8Array(4 + json.length + buffers.length);
  new DataView(bytes.buffer).setUint32(0, json.length, true);
  bytes.set(json, 4);
  bytes.set(buffers, 4 + json.length);
  return bytes.buffer;
}

function server(answer: (url: URL) => Response) {
  const asked: URL[] = [];
  const fetcher = async (url: string) => {
    asked.push(new URL(url));
    return answer(new URL(url));
  };
  return { asked, fetcher };
}

describe("the viewer's model over HTTP", () => {
  it("asks /message for a request without its id, and gives the replies that id", async () => {
    const { asked, fetcher } = server(
      () => new Response(packed({ replies: [[{ type: "chunks" }, [{ buffer: 0, size: 3 }]]] }, [1, 2, 3])),
    );
    const got = await replies(base, "run/a.rollout", { type: "chunks", id: 9, chunks: [2], frame: 33 }, fetcher);
    expect(asked[0].pathname).toBe("/data/plugin/agent/message");
    expect(asked[0].searchParams.get("path")).toBe("run/a.rollout");
    expect(JSON.parse(asked[0].searchParams.get("m")!)).toEqual({ type: "chunks", chunks: [2], frame: 33 });
    expect(got[0][0]).toEqual({ type: "chunks", id: 9 });
    expect([...new Uint8Array(got[0][1][0].buffer, got[0][1][0].byteOffset, 3)]).toEqual([1, 2, 3]);
  });

  it("turns a refused request into the error reply the viewer shows", async () => {
    const { fetcher } = server(() => new Response("chunk 99 is not in the episode", { status: 400 }));
    expect(await replies(base, "a.rollout", { type: "chunks", id: 4, chunks: [99] }, fetcher)).toEqual([
      [{ type: "error", id: 4, message: "chunk 99 is not in the episode" }, []],
    ]);
    const timeline = await replies(base, "a.rollout", { type: "timeline", id: 5 }, fetcher);
    expect(timeline[0][0].type).toBe("timeline-error");
  });

  it("asks for cards as for frames, a refusal answered as the panels expect", async () => {
    const { asked, fetcher } = server(() => new Response("no panel 'x'", { status: 400 }));
    const got = await replies(base, "a.rollout", { type: "panel", id: 3, step: 2, names: ["x"] }, fetcher);
    expect(JSON.parse(asked[0].searchParams.get("m")!)).toEqual({ type: "panel", step: 2, names: ["x"] });
    expect(got).toEqual([[{ type: "panel-error", id: 3, message: "no panel 'x'" }, []]]);
  });

  it("sends nothing for the requests it does not serve", async () => {
    const { asked, fetcher } = server(() => new Response(""));
    expect(await replies(base, "a.rollout", { type: "kernel", id: 1 }, fetcher)).toEqual([]);
    expect(asked).toEqual([]);
  });

  it("opens an episode with the state /episode sends, its bytes as views", async () => {
    const { asked, fetcher } = server(
      () =>
        new Response(
          packed({ state: { length: 5, series: { rewards: { buffer: 0, size: 2 } } }, problem: "no frames: why" }, [4, 5]),
        ),
    );
    const { model, problem } = await episodeModel(base, "r/a.rollout", fetcher);
    expect(problem).toBe("no frames: why");
    expect(asked[0].pathname).toBe("/data/plugin/agent/episode");
    expect(model.get("length")).toBe(5);
    expect((model.get("series") as Record<string, DataView>).rewards.byteLength).toBe(2);
  });

  it("gives a model the length, series and summary of the file grown since, the length last", async () => {
    let length = 5;
    const { fetcher } = server(() => new Response(packed({ state: { length, series: { n: length }, summary: {} }, version: `v${length}` }, [])));
    const { model, version } = await episodeModel(base, "r/a.rollout.part", fetcher);
    expect(version).toBe("v5");
    const seen: unknown[] = [];
    model.on("change:length", () => seen.push([model.get("length"), model.get("series")]));
    length = 9;
    expect(await grow(model, base, "r/a.rollout.part", fetcher)).toBe("v9");
    expect(seen).toEqual([[9, { n: 9 }]]);
  });
});
