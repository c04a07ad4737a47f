import { afterEach, describe, expect, it, vi } from "vitest";
import { PlaybackClock, Player } from "./player.ts";

const always = () => true;

/** Ticks the clock at the given times; returns the positions shown. */
function run(clock: PlaybackClock, times: number[], ready: (t: number) => boolean = always): number[] {
  const shown: number[] = [];
  for (const now of times) {
    const { step } = clock.tick(now, ready);
    if (step !== null) shown.push(step);
  }
  return shown;
}

const vsync = (count: number, hz = 60, jitter = 0) =>
  Array.from({ length: count }, (_, i) => ((i + 1) * 1000) / hz + (i % 2 ? jitter : -jitter));

describe("PlaybackClock", () => {
  it("shows every frame once at 60 fps on a 60 Hz display", () => {
    const clock = new PlaybackClock({ fps: 60, length: 100, loop: false });
    clock.start(0, 10);
    expect(run(clock, vsync(5))).toEqual([11, 12, 13, 14, 15]);
    expect(clock.dropped).toBe(0);
  });

  it("is not fooled by a few ms of vsync jitter", () => {
    const clock = new PlaybackClock({ fps: 60, length: 1000, loop: false });
    clock.start(0, 0);
    const shown = run(clock, vsync(120, 60, 3));
    expect(shown).toEqual(Array.from({ length: 120 }, (_, i) => i + 1));
    expect(clock.dropped).toBe(0);
  });

  it("shows each frame for two display frames at 30 fps on 60 Hz", () => {
    const clock = new PlaybackClock({ fps: 30, length: 100, loop: false });
    clock.start(0, 0);
    expect(run(clock, vsync(8))).toEqual([1, 2, 3, 4]);
    expect(clock.dropped).toBe(0);
  });

  it("skips to the due frame after a late tick and counts the skipped ones as dropped", () => {
    const clock = new PlaybackClock({ fps: 60, length: 100, loop: false });
    clock.start(0, 0);
    expect(run(clock, [1000 / 60, 4000 / 60])).toEqual([1, 4]);
    expect(clock.dropped).toBe(2);
  });

  it("wraps to the first position when looping", () => {
    const clock = new PlaybackClock({ fps: 60, length: 3, loop: true });
    clock.start(0, 1);
    expect(run(clock, vsync(4))).toEqual([2, 0, 1, 2]);
  });

  it("stops at the last position without loop", () => {
    const clock = new PlaybackClock({ fps: 60, length: 3, loop: false });
    clock.start(0, 0);
    expect(clock.tick(1000 / 60, always)).toEqual({ step: 1, ended: false });
    expect(clock.tick(2000 / 60, always)).toEqual({ step: 2, ended: true });
    expect(clock.tick(3000 / 60, always)).toEqual({ step: null, ended: true });
  });

  it("never runs past the end after a long stall without loop", () => {
    const clock = new PlaybackClock({ fps: 60, length: 10, loop: false });
    clock.start(0, 0);
    expect(clock.tick(100_000, always)).toEqual({ step: 9, ended: true });
  });

  it("waits for a frame that is not decoded yet, then continues in order without dropping", () => {
    const clock = new PlaybackClock({ fps: 60, length: 100, loop: false });
    clock.start(0, 0);
    const ready = new Set([1]);
    const isReady = (t: number) => ready.has(t);
    expect(run(clock, [1000 / 60, 2000 / 60, 3000 / 60, 4000 / 60], isReady)).toEqual([1]);
    expect(clock.stalls).toBe(1);
    for (let t = 2; t < 100; t++) ready.add(t);
    expect(run(clock, [5000 / 60, 6000 / 60, 7000 / 60], isReady)).toEqual([2, 3, 4]);
    expect(clock.dropped).toBe(0);
  });
});

describe("Player", () => {
  /** A stand-in for requestAnimationFrame: `frame(now)` runs the callbacks asked for so far. */
  function animationFrames() {
    let callbacks: FrameRequestCallback[] = [];
    vi.stubGlobal("requestAnimationFrame", (callback: FrameRequestCallback) => callbacks.push(callback));
    vi.stubGlobal("cancelAnimationFrame", () => {
      callbacks = [];
    });
    return (now: number) => {
      const due = callbacks;
      callbacks = [];
      for (const callback of due) callback(now);
    };
  }

  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it("asks for the frame it waits for, so playback never hangs on a frame no plan decodes", () => {
    const frame = animationFrames();
    // Frames are decoded only when asked for: nothing else (no decode-ahead plan) will do it.
    const decoded = new Set<number>([0]);
    const shown: number[] = [];
    const player = new Player({
      ready: (t) => decoded.has(t),
      need: (t) => decoded.add(t),
      show: (t) => shown.push(t),
      ended: () => {},
    });
    player.play(0, { fps: 60, length: 100, loop: false });
    for (let i = 0; i <= 20; i++) frame((i * 1000) / 60);
    // One display frame to notice a frame is missing, one to show it: half speed at worst.
    expect(shown.length).toBeGreaterThanOrEqual(9);
    expect(shown).toEqual(shown.map((_, i) => i + 1));
    player.pause();
  });

  it("keeps playing when showing a frame throws", () => {
    const frame = animationFrames();
    const shown: number[] = [];
    const player = new Player({
      ready: () => true,
      show: (t) => {
        shown.push(t);
        if (t === 2) throw new Error("paint failed");
      },
      ended: () => {},
    });
    player.play(0, { fps: 60, length: 100, loop: false });
    for (let i = 0; i <= 5; i++) {
      try {
        frame((i * 1000) / 60);
      } catch {
        // what the browser would report, then go on with the next animation frame
      }
    }
    expect(shown).toEqual([1, 2, 3, 4, 5]);
    player.pause();
  });
});
