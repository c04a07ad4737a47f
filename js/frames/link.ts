/**
 * What the link to the kernel can carry, from the chunk replies seen so far: its
 * round trip (the quickest recent reply, which carries next to nothing to wait for)
 * and its throughput (the best recent rate of a large reply, the round trip taken
 * off). Over a distant link the background fill keeps a round trip's worth of bytes
 * in flight, plus the request being answered: the link never idles while a request
 * travels (one request of 32 Pong chunks at a time took a round trip each, 30 s for
 * 100,000 Pong steps at 150 ms), and a jump's reply queues behind about one round trip
 * of fill at most. Near the kernel (a round trip under 30 ms) the link is not what
 * limits the fill, the CPU is, and one request at a time leaves it to jumps and steps.
 */

/** Replies remembered for the estimate: recent enough to follow a link that changes. */
const WINDOW = 16;
/** Replies at least this large measure throughput; smaller ones mostly measure latency. */
const RATE_BYTES = 16 * 2 ** 10;
/** A round trip longer than this is a distant kernel (an SSH tunnel, a JupyterHub elsewhere). */
export const FAR_MS = 30;

interface Sample {
  ms: number;
  bytes: number;
}

export class LinkEstimate {
  private readonly samples: Sample[] = [];

  /** A reply of `bytes` arrived `ms` after its request was sent. */
  record(ms: number, bytes: number): void {
    if (!(ms >= 0) || !(bytes >= 0)) return;
    this.samples.push({ ms, bytes });
    if (this.samples.length > WINDOW) this.samples.shift();
  }

  /** The round trip in ms (the quickest recent reply); undefined before any. */
  get roundTripMs(): number | undefined {
    return this.samples.length === 0 ? undefined : Math.min(...this.samples.map((s) => s.ms));
  }

  /** Bytes a ms: the best recent rate of a large reply; undefined before one. */
  get bytesPerMs(): number | undefined {
    const rtt = this.roundTripMs ?? 0;
    const rates = this.samples.filter((s) => s.bytes >= RATE_BYTES).map((s) => s.bytes / Math.max(1, s.ms - rtt));
    return rates.length === 0 ? undefined : Math.max(...rates);
  }

  /** Whether the kernel is far: a round trip over `FAR_MS`. */
  get far(): boolean {
    return (this.roundTripMs ?? 0) > FAR_MS;
  }

  /**
   * Background requests of `requestBytes` to keep in flight: near the kernel 1; far
   * from it, 1 more than the link's bytes in one round trip (its bandwidth-delay
   * product) in requests of that size (2 until a large reply has shown the
   * throughput), at most `max`.
   */
  inFlight(requestBytes: number, max: number): number {
    if (!this.far) return 1;
    const rate = this.bytesPerMs;
    if (rate === undefined) return 2;
    const product = rate * (this.roundTripMs ?? 0);
    return Math.max(1, Math.min(max, 1 + Math.ceil(product / Math.max(1, requestBytes))));
  }
}
