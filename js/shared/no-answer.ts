/**
 * Notices when the kernel leaves a view waiting, so the view can say so in words
 * instead of waiting in silence. A kernel answers widget messages only between
 * cells, so a long cell delays every answer; a stopped kernel, or none at all (a
 * notebook reopened without running it), never answers. The view calls `asked`
 * while it waits for something and `answered` whenever the kernel says anything;
 * `onChange(true)` fires once the wait passes `afterMs`, `onChange(false)` at the
 * first answer after that.
 */
export const NO_ANSWER_MS = 3000;
export const NO_ANSWER = "no answer from the kernel: it may be busy running a cell, or not running";

export class NoAnswer {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private late = false;

  constructor(
    private readonly onChange: (late: boolean) => void,
    private readonly afterMs = NO_ANSWER_MS,
  ) {}

  /** Whether the kernel has been silent for `afterMs` while something was awaited. */
  get isLate(): boolean {
    return this.late;
  }

  /** Something is awaited: the clock starts, unless it already runs. */
  asked(): void {
    if (this.timer !== undefined || this.late) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.late = true;
      this.onChange(true);
    }, this.afterMs);
  }

  /** The kernel answered (or nothing is awaited any more). */
  answered(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.late) return;
    this.late = false;
    this.onChange(false);
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
