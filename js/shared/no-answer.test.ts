import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { NoAnswer } from "./no-answer.ts";

describe("NoAnswer", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("says nothing when the answer comes in time", () => {
    const changes: boolean[] = [];
    const watch = new NoAnswer((late) => changes.push(late), 3000);
    watch.asked();
    vi.advanceTimersByTime(2999);
    watch.answered();
    vi.advanceTimersByTime(10_000);
    expect(changes).toEqual([]);
  });

  it("goes late once after the wait, from the first ask, and back at the first answer", () => {
    const changes: boolean[] = [];
    const watch = new NoAnswer((late) => changes.push(late), 3000);
    watch.asked();
    vi.advanceTimersByTime(2000);
    watch.asked(); // a second request does not restart the clock
    vi.advanceTimersByTime(1000);
    expect([changes, watch.isLate]).toEqual([[true], true]);
    watch.asked();
    vi.advanceTimersByTime(10_000);
    watch.answered();
    watch.answered();
    expect([changes, watch.isLate]).toEqual([[true, false], false]);
  });

  it("stops its clock when disposed", () => {
    const changes: boolean[] = [];
    const watch = new NoAnswer((late) => changes.push(late), 3000);
    watch.asked();
    watch.dispose();
    vi.advanceTimersByTime(10_000);
    expect(changes).toEqual([]);
  });
});
