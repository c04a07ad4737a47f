import { afterEach, describe, expect, it, vi } from "vitest";
import { Throttle } from "./throttle.ts";

afterEach(() => {
  vi.useRealTimers();
});

describe("Throttle", () => {
  it("runs the first call at once, then at most once per interval with a trailing call", () => {
    vi.useFakeTimers();
    let calls = 0;
    const throttle = new Throttle(() => calls++, () => 50, () => Date.now());
    for (let i = 0; i < 10; i++) {
      throttle.call();
      vi.advanceTimersByTime(10);
    }
    // Calls every 10 ms from t=0 to t=90 run at t=0, 50 and 100 (the trailing one).
    expect(calls).toBe(3);
    vi.advanceTimersByTime(100);
    expect(calls).toBe(3);
  });

  it("runs a pending trailing call on flush", () => {
    vi.useFakeTimers();
    let calls = 0;
    const throttle = new Throttle(() => calls++, () => 50, () => Date.now());
    throttle.call();
    throttle.call();
    throttle.flush();
    expect(calls).toBe(2);
    vi.advanceTimersByTime(100);
    expect(calls).toBe(2);
  });
});
