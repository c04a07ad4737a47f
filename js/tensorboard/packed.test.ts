import { describe, expect, it } from "vitest";
import { unpacked } from "./packed.ts";

/** A body as agent_widget/tensorboard/_packed.py makes it. */
function body(head: unknown, ...buffers: number[][]): ArrayBuffer {
  const json = new TextEncoder().encode(JSON.stringify(head));
  const bytes = new Uint8Array(4 + json.length + buffers.flat().length);
  new DataView(bytes.buffer).setUint32(0, json.length, true);
  bytes.set(json, 4);
  bytes.set(buffers.flat(), 4 + json.length);
  return bytes.buffer;
}
const bytesOf = (view: DataView) => [...new Uint8Array(view.buffer, view.byteOffset, view.byteLength)];

describe("unpacked", () => {
  it("puts each buffer's bytes where the JSON names it, as a view of the body", () => {
    const value = unpacked(
      body({ replies: [[{ type: "chunks" }, [{ buffer: 0, size: 2 }, { buffer: 1, size: 1 }]]], n: 3 }, [7, 8], [9]),
    ) as { replies: [unknown, DataView[]][]; n: number };
    expect(value.n).toBe(3);
    expect(value.replies[0][0]).toEqual({ type: "chunks" });
    expect(value.replies[0][1].map(bytesOf)).toEqual([[7, 8], [9]]);
  });

  it("finds the buffers by index, whatever order the JSON names them in", () => {
    const value = unpacked(body({ b: { buffer: 1, size: 1 }, a: { buffer: 0, size: 2 } }, [1, 2], [3])) as Record<string, DataView>;
    expect(bytesOf(value.a)).toEqual([1, 2]);
    expect(bytesOf(value.b)).toEqual([3]);
  });

  it("refuses a body whose buffers are not the bytes after its JSON", () => {
    expect(() => unpacked(body({ a: { buffer: 0, size: 5 } }, [1, 2]))).toThrow(/holds/);
    expect(() => unpacked(body({ a: { buffer: 1, size: 1 } }, [1]))).toThrow(/no buffer 0/);
    expect(() => unpacked(new ArrayBuffer(2))).toThrow(/2 bytes/);
  });
});
