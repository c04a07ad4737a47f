import { deflateSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { Outbox } from "./outbox.ts";
import { FakeModel } from "./test-helpers.ts";
import { RangeRequests } from "./timeline-ranges.ts";

const packed = (values: number[]) => new Uint8Array(deflateSync(Uint8Array.from([...'|i1 '].map((c) => c.charCodeAt(0)).concat(values))));
const KEYS = ["rewards.min", "rewards.max", "returns.min", "returns.max", "terminated", "truncated", "nonfinite"];

function setup() {
  const model = new FakeModel();
  return { model, ranges: new RangeRequests(model, new Outbox(0)) };
}

describe("RangeRequests", () => {
  it("asks for a range and reads the kernel's columns, keys and buffers in order", async () => {
    const { model, ranges } = setup();
    const got = ranges.fetch(40_000, 41_000, 3);
    expect(model.sent).toEqual([{ type: "timeline", id: 1, start: 40_000, stop: 41_000, columns: 3 }]);
    const buffers = KEYS.map((key) => packed(key.startsWith("returns") ? [7, 8, 9] : [0, 0, 0]));
    model.reply({ type: "timeline", id: 1, start: 40_000, stop: 41_000, keys: KEYS }, buffers);
    expect([...(await got)!.returns.max]).toEqual([7, 8, 9]);
  });

  it("replaces a waiting request with a newer one and drops the older reply", async () => {
    const { model, ranges } = setup();
    const old = ranges.fetch(0, 100, 2);
    const next = ranges.fetch(50, 150, 2);
    expect(await old).toBeUndefined();
    model.reply({ type: "timeline", id: 1, keys: KEYS }, KEYS.map(() => packed([1, 1])));
    model.reply({ type: "timeline", id: 2, keys: KEYS }, KEYS.map(() => packed([2, 2])));
    expect([...(await next)!.returns.min]).toEqual([2, 2]);
  });

  it("settles with nothing on the kernel's refusal or a reply whose keys and buffers do not pair up", async () => {
    const { model, ranges } = setup();
    const refused = ranges.fetch(0, 10, 2);
    model.reply({ type: "timeline-error", id: 1, message: "positions 0 to 10 are not within the episode's 5" });
    expect(await refused).toBeUndefined();
    const malformed = ranges.fetch(0, 5, 2);
    model.reply({ type: "timeline", id: 2, keys: KEYS }, [packed([1, 1])]);
    expect(await malformed).toBeUndefined();
  });
});
