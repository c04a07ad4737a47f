/**
 * Playback: which position to show at each animation frame.
 *
 * The clock is wall-time based: when painting falls behind, it skips to the
 * frame that is due (counting the skipped ones as dropped) rather than lagging.
 * When the due frame is not decoded yet (its data has not arrived), it waits
 * for the next frame in order instead of racing ahead of the data.
 */

export interface ClockOptions {
  fps: number;
  length: number;
  loop: boolean;
}

export interface Tick {
  /** Position to show now, or null to keep the current one. */
  step: number | null;
  /** Playback reached the last position (without loop) and should stop. */
  ended: boolean;
  /** The position whose frame playback is waiting for, if any. */
  waitingFor?: number;
}

export class PlaybackClock {
  /** Frames skipped because painting could not keep up. */
  dropped = 0;
  /** Times playback had to wait for a frame that was not ready. */
  stalls = 0;
  private origin = 0;
  /** Unwrapped positions: with loop, position p shows frame p mod length. */
  private base = 0;
  private shown = 0;
  private waiting = false;

  constructor(readonly options: ClockOptions) {}

  /** Starts counting from `step`, shown at time `now` (ms). */
  start(now: number, step: number): void {
    this.origin = now;
    this.base = this.shown = step;
    this.waiting = false;
  }

  /** Advances to time `now`; `ready(t)` says whether frame t can be painted immediately. */
  tick(now: number, ready: (t: number) => boolean): Tick {
    const { length, loop } = this.options;
    const last = length - 1;
    if (!loop && this.shown >= last) return { step: null, ended: true };
    if (this.waiting) {
      const next = this.shown + 1;
      if (!ready(this.wrap(next))) return { step: null, ended: false, waitingFor: this.wrap(next) };
      this.start(now, next);
      return { step: this.wrap(next), ended: !loop && next >= last };
    }
    // Rounding (not flooring) keeps vsync jitter from alternating between 0 and 2 frames a tick.
    let due = this.base + Math.round(((now - this.origin) * this.options.fps) / 1000);
    if (!loop) due = Math.min(due, last);
    if (due <= this.shown) return { step: null, ended: false };
    if (!ready(this.wrap(due))) {
      this.waiting = true;
      this.stalls++;
      return this.tick(now, ready);
    }
    this.dropped += due - this.shown - 1;
    this.shown = due;
    return { step: this.wrap(due), ended: !loop && due >= last };
  }

  private wrap(p: number): number {
    return ((p % this.options.length) + this.options.length) % this.options.length;
  }
}

export interface PlayerHooks {
  ready(t: number): boolean;
  /**
   * Playback waits for frame `t` (called once per frame waited for): decode it now.
   * Whatever else was planned, the frame playback needs next must never wait for a
   * plan to come round to it, or for a new step or chunk to reschedule one.
   */
  need?(t: number): void;
  show(t: number): void;
  /** Playback stopped by itself (reached the end without loop). */
  ended(): void;
}

/** Drives a `PlaybackClock` from `requestAnimationFrame`. */
export class Player {
  private frame = 0;
  private clock: PlaybackClock | undefined;
  private dropped = 0;

  constructor(private readonly hooks: PlayerHooks) {}

  get playing(): boolean {
    return this.clock !== undefined;
  }

  /** Frames dropped over all playbacks of this view. */
  get droppedFrames(): number {
    return this.dropped + (this.clock?.dropped ?? 0);
  }

  /** Starts (or restarts) playback from `step`; the clock starts at the next animation frame. */
  play(step: number, options: ClockOptions): void {
    this.pause();
    const clock = new PlaybackClock(options);
    this.clock = clock;
    let started = false;
    let needed: number | undefined;
    const onFrame = (now: number) => {
      // The next animation frame is asked for first: a hook that throws must not end playback.
      this.frame = requestAnimationFrame(onFrame);
      if (!started) {
        clock.start(now, step);
        started = true;
        return;
      }
      const { step: t, ended, waitingFor } = clock.tick(now, this.hooks.ready);
      if (waitingFor !== undefined && waitingFor !== needed) this.hooks.need?.(waitingFor);
      needed = waitingFor;
      if (t !== null) this.hooks.show(t);
      if (ended) {
        this.pause();
        this.hooks.ended();
      }
    };
    this.frame = requestAnimationFrame(onFrame);
  }

  pause(): void {
    cancelAnimationFrame(this.frame);
    this.dropped += this.clock?.dropped ?? 0;
    this.clock = undefined;
  }
}
