/**
 * Decodes frames ahead of the playhead in the background, one frame per task,
 * so input events and animation frames are never blocked for long.
 */
import { nextTask } from "./codec.ts";
import type { FrameStore } from "./store.ts";

export class DecodeAhead {
  private plan: number[] = [];
  private running = false;
  private stopped = false;

  constructor(
    private readonly store: FrameStore,
    private readonly hasChunk: (t: number) => boolean,
    private readonly onError: (error: Error) => void,
  ) {}

  /** Replaces the plan (positions, most urgent first); frames already decoded are skipped. */
  schedule(positions: number[]): void {
    this.plan = positions.slice();
    if (!this.running && !this.stopped) void this.run();
  }

  /** Decodes `t` at once, whatever the plan: playback is waiting for it. */
  now(t: number): void {
    if (this.stopped || this.store.isDecoded(t)) return;
    this.store.frame(t).catch((error: Error) => this.onError(error));
  }

  stop(): void {
    this.stopped = true;
    this.plan = [];
  }

  private async run(): Promise<void> {
    this.running = true;
    try {
      while (!this.stopped) {
        const t = this.plan.shift();
        if (t === undefined) break;
        if (this.store.isDecoded(t) || !this.hasChunk(t)) continue;
        try {
          await this.store.frame(t);
        } catch (error) {
          this.onError(error as Error);
        }
        await nextTask();
      }
    } finally {
      this.running = false;
    }
  }
}
