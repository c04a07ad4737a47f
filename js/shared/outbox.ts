/**
 * Paces the messages one view sends to the kernel, so that nothing competes with
 * a reply a paint waits for.
 *
 * A jump to a chunk not cached waits for its request to reach the kernel and for
 * the reply to come back through jupyter_server, which forwards one message at a
 * time, while page, server and kernel share the machine's cores. Any other message
 * in flight meanwhile (the step save, its statuses and the kernel's echo of it, a
 * panel request) slowed that reply: with the step save sent 8 ms after the request,
 * as this outbox did, uncached jumps to 480x480 frames painted in 36.8 ms (the reply
 * in 27.1) against 34.0 (24.3) with the save held until the paint (medians of 50
 * interleaved jumps each; Pong's within the noise).
 * So were the paints a jump decodes locally: saving the step (serializing the
 * model, ~2 ms in JupyterLab) ran before a jump to a cached chunk painted.
 * Hence: an urgent message (a paint waits for its reply) leaves at once; while the
 * view holds the outbox (a paint is pending), the others wait, `HOLD_MS` at most (a
 * kernel running a cell answers nothing); then they leave in order, at least
 * `spacingMs` apart.
 *
 * Example:
 *   const outbox = new Outbox();
 *   outbox.send(() => model.send(request), true);  // now
 *   outbox.hold();                                 // the frame is not painted yet
 *   outbox.send(() => model.save_changes());       // waits
 *   outbox.release();                              // painted: the save leaves
 */

/** Between two messages that are not urgent: a burst of them never lands on the server at once. */
export const SPACING_MS = 8;
/** The longest a pending paint holds the other messages back. */
export const HOLD_MS = 200;

export class Outbox {
  private queue: (() => void)[] = [];
  private last = Number.NEGATIVE_INFINITY;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** Until when the messages that are not urgent wait (`hold`). */
  private heldUntil = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly spacingMs = SPACING_MS,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Sends now if `urgent`, else once `spacingMs` have passed since the last message and nothing holds it (queued in order). */
  send(message: () => void, urgent = false): void {
    if (urgent) {
      this.last = this.now();
      message();
      return;
    }
    this.queue.push(message);
    this.drain();
  }

  /** The view waits on a paint: the messages that are not urgent wait until `release`, `HOLD_MS` at most. */
  hold(): void {
    this.heldUntil = this.now() + HOLD_MS;
  }

  /** The paint is done: what waited leaves, in a later task than the paint's. */
  release(): void {
    if (this.heldUntil === Number.NEGATIVE_INFINITY) return;
    this.heldUntil = Number.NEGATIVE_INFINITY;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.drain();
    }, 0);
  }

  /** Sends everything queued now (the view is closing: its last step must still be saved). */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    for (const message of this.queue.splice(0)) message();
  }

  private drain(): void {
    while (this.timer === undefined && this.queue.length > 0) {
      const wait = Math.max(this.last + this.spacingMs, this.heldUntil) - this.now();
      if (wait > 0) {
        this.timer = setTimeout(() => {
          this.timer = undefined;
          this.drain();
        }, wait);
        return;
      }
      this.last = this.now();
      this.queue.shift()!();
    }
  }
}
