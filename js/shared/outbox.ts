/**
 * Paces the messages one view sends to the kernel, so that an urgent reply is
 * never held back by TCP.
 *
 * jupyter_server leaves Nagle's algorithm on for its websockets: a message to
 * the browser written while an earlier one (the kernel's "busy" status, sent
 * as it starts on a request) is unacknowledged waits for the browser's ACK,
 * and the browser delays that ACK by up to 40 ms unless it has data of its own
 * to send. A view that sends its chunk request, the prefetch request and the
 * step save in the same millisecond has nothing left to carry that ACK, so the
 * reply waits. Hence: an urgent message (a paint waits for its reply) leaves at
 * once, and every other message leaves at least `spacingMs` after the one
 * before it, in order. The first of them, a few ms after the urgent request,
 * carries the ACK out (measured in benchmarks/RESULTS.md, "Viewer in the browser").
 *
 * Example:
 *   const outbox = new Outbox();
 *   outbox.send(() => model.send(request), true);  // now
 *   outbox.send(() => model.save_changes());       // 8 ms later
 */

/** Past the kernel's "busy" reaching the browser (~6 ms here), well short of the 40 ms ACK delay. */
export const SPACING_MS = 8;

export class Outbox {
  private queue: (() => void)[] = [];
  private last = Number.NEGATIVE_INFINITY;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly spacingMs = SPACING_MS,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Sends now if `urgent`, else once `spacingMs` have passed since the last message (queued in order). */
  send(message: () => void, urgent = false): void {
    if (urgent) {
      this.last = this.now();
      message();
      return;
    }
    this.queue.push(message);
    this.drain();
  }

  /** Sends everything queued now (the view is closing: its last step must still be saved). */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    for (const message of this.queue.splice(0)) message();
  }

  private drain(): void {
    while (this.timer === undefined && this.queue.length > 0) {
      const wait = this.last + this.spacingMs - this.now();
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
