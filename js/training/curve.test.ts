import { describe, expect, it } from "vitest";
import { caption, curveData, episodesAt, positionAt } from "./curve.ts";

/** A series as the kernel packs it (pack_series): a 4-byte dtype header, then the values. */
function packed(dtype: "|u1" | "<u2", values: number[]): Uint8Array {
  const width = dtype === "|u1" ? 1 : 2;
  const bytes = new Uint8Array(4 + width * values.length);
  bytes.set(new TextEncoder().encode(`${dtype} `));
  const view = new DataView(bytes.buffer);
  values.forEach((v, i) => (width === 1 ? view.setUint8(4 + i, v) : view.setUint16(4 + 2 * i, v, true)));
  return bytes;
}

describe("the learning curve", () => {
  // 500 episodes, 3 positions: before training, after episode 0, after episode 499.
  const raw = { rewards: packed("|u1", Array.from({ length: 500 }, (_, i) => i % 2)), positions: packed("<u2", [0, 1, 500]) };

  it("is as long as the episodes, not the positions", () => {
    const data = curveData(raw);
    expect(data.episodes).toBe(500);
    expect([...data.positions]).toEqual([0, 1, 500]);
  });

  it("puts each position at the episodes trained before its snapshot", () => {
    const { positions } = curveData(raw);
    expect([0, 1, 2].map((p) => episodesAt(positions, p))).toEqual([0, 1, 500]);
    expect(episodesAt(positions, 9)).toBe(500); // a position the curve has not heard of yet: the newest
  });

  it("goes from a click to the last position at or before the episode clicked", () => {
    const { positions } = curveData(raw);
    expect(positionAt(positions, 0)).toBe(0);
    expect(positionAt(positions, 1)).toBe(1);
    expect(positionAt(positions, 250)).toBe(1);
    expect(positionAt(positions, 499)).toBe(1);
    expect(positionAt(positions, 500)).toBe(2);
  });

  it("reads each point's env steps in a curve in steps, none in episodes", () => {
    const inSteps = curveData({ ...raw, steps: packed("<u2", Array.from({ length: 500 }, (_, i) => 8 * (i + 1))) });
    expect(inSteps.ends?.length).toBe(501);
    expect([inSteps.ends?.[0], inSteps.ends?.[1], inSteps.ends?.[500]]).toEqual([0, 8, 4000]);
    expect(curveData(raw).ends).toBeUndefined();
  });

  it("says how long it is and which point the position shown is", () => {
    expect(caption(curveData(raw), 2)).toBe("Learning curve over 500 episodes; position 2 shows the table after episode 499");
    expect(caption(curveData({}), 0)).toBe("Learning curve over 0 episodes; position 0 shows the table before training");
  });
});
