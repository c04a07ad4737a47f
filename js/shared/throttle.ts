/**
 * Rate limit for kernel updates: dragging the slider sets `step` locally at
 * every input event but saves it to the kernel at most once per interval, with
 * a trailing save so the kernel always ends on the final value.
 */
export class Throttle {
  private last = Number.NEGATIVE_INFINITY;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly fn: () => void,
    private readonly intervalMs: () => number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  call(): void {
    if (this.timer !== undefined) return;
    const wait = this.last + this.intervalMs() - this.now();
    if (wait <= 0) this.run();
    else this.timer = setTimeout(() => this.run(), wait);
  }

  /** Runs a pending trailing call now. */
  flush(): void {
    if (this.timer !== undefined) this.run();
  }

  private run(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.last = this.now();
    this.fn();
  }
}
