import { describe, expect, it } from "vitest";
import { type ScaleMember, SharedScales, sharedScalesFor } from "./shared-scales.ts";

function member(extent: [number, number]): ScaleMember & { draws: number } {
  return {
    extent,
    draws: 0,
    draw() {
      this.draws++;
    },
  };
}

const settled = () => new Promise((resolve) => queueMicrotask(() => resolve(undefined)));

describe("SharedScales", () => {
  it("gives the cards of one panel the union of their extents", () => {
    const scales = new SharedScales(true);
    scales.join("Q", member([0, 0.127]));
    scales.join("Q", member([-0.2, 0.609]));
    scales.join("other", member([0, 5]));
    expect(scales.range("Q")).toEqual([-0.2, 0.609]);
    expect(scales.range("other")).toEqual([0, 5]);
    expect(scales.range("none")).toBeNull();
  });

  it("shrinks back when a card leaves", () => {
    const scales = new SharedScales(true);
    scales.join("Q", member([0, 0.127]));
    const leave = scales.join("Q", member([0, 0.609]));
    leave();
    expect(scales.range("Q")).toEqual([0, 0.127]);
  });

  it("redraws each member once for changes made together", async () => {
    const scales = new SharedScales(true);
    const a = member([0, 1]);
    scales.join("Q", a);
    await settled();
    a.draws = 0;
    const leave = scales.join("Q", member([0, 2]));
    leave();
    scales.join("Q", member([0, 3]));
    await settled();
    expect(a.draws).toBe(1);
  });

  it("shares nothing while off, and redraws when turned on", async () => {
    const scales = new SharedScales(false);
    const a = member([0, 1]);
    scales.join("Q", a);
    scales.join("Q", member([0, 2]));
    expect(scales.range("Q")).toBeNull();
    await settled();
    a.draws = 0;
    scales.setEnabled(true);
    await settled();
    expect(a.draws).toBe(1);
    expect(scales.range("Q")).toEqual([0, 2]);
  });

  it("is found from any element inside the one that provides it", () => {
    // Only the parent chain is read: plain objects stand in for elements (no DOM here).
    const node = (parentElement: Element | null) => ({ parentElement }) as Element;
    const root = node(null);
    const card = node(node(root));
    const scales = new SharedScales(true);
    scales.provide(root);
    expect(sharedScalesFor(card)).toBe(scales);
    expect(sharedScalesFor(node(null))).toBeUndefined();
  });
});
