/**
 * Keeps the chunks around the playhead cached: asks the kernel for what the
 * prefetch plan says is missing and, when the whole episode fits the budget,
 * fills the cache in the background, only while no urgent request is waiting, so
 * it never delays interaction: one request at a time near the kernel, as many as
 * the link carries in a round trip far from it (js/frames/link.ts). Chunks the
 * kernel pushes while the episode grows are cached the same way.
 */
import {
  aheadChunks,
  backgroundBatch,
  chunkOf,
  chunksPerRequest,
  type Direction,
  fitsBudget,
  missingInWindow,
  numChunks,
  toRequests,
} from "./prefetch.ts";
import type { FrameStore } from "./store.ts";
import { type ChunkTransport, StaleError, TimeoutError } from "./transport.ts";
import type { ChunkData } from "../shared/types.ts";

/** Urgent replies stay around this size; background ones smaller, so they interleave with interaction. */
const URGENT_REQUEST_BYTES = 4 * 2 ** 20;
const BACKGROUND_REQUEST_BYTES = 256 * 2 ** 10;
/**
 * Chunks a background request asks for at most: near the kernel few, so that a reply
 * (and the kernel's time building its index) stays short; far from it more, so that
 * small chunks (Pong's are ~1 KB) do not take a round trip per 32.
 */
const BACKGROUND_CHUNKS = 32;
const BACKGROUND_CHUNKS_FAR = 128;
/** Background requests in flight at most, however fast and far the link. */
const MAX_BACKGROUND_REQUESTS = 8;

/** "again": timed out or forgotten (its data changed); the plan asks for it again if still needed. */
type Outcome = "ok" | "again" | "failed";

export interface Playhead {
  step: number;
  direction: Direction;
  length: number;
  chunkSize: number;
  fps: number;
  /** Looping playback wraps the prefetch window around the end. */
  wrap: boolean;
  /** The frame at `step` is not painted yet: big requests wait for it (see `held`). */
  painting: boolean;
}

export class ChunkSource {
  private playhead: Playhead | undefined;
  private urgent = 0;
  private background = 0;
  /** Set when the background fill has nothing left to do or failed; cleared when the episode changes. */
  private fillStopped = false;
  /** Requests left unsent until the current frame is painted; `update` again then. */
  private holding = false;

  constructor(
    private readonly transport: ChunkTransport,
    private readonly store: FrameStore,
    private readonly onChunk: (data: ChunkData) => void,
    private readonly onError: (error: Error) => void,
  ) {}

  /** Whether chunk `k` is cached or on its way. */
  present(k: number): boolean {
    return this.store.has(k) || this.transport.isPending(k);
  }

  /**
   * Whether requests wait for the current frame's paint. A big reply arriving while
   * the current frame is inflated competes with it for the main thread (a 480x480
   * window is ~1 MB), so while a paint waits only the current chunk and requests of
   * at most `BACKGROUND_REQUEST_BYTES` (Pong's whole window) are sent; the view
   * calls `update` again once it has painted.
   */
  get held(): boolean {
    return this.holding;
  }

  /** Re-plans around the playhead and sends the requests the plan needs. */
  update(playhead: Playhead): void {
    if (playhead.length !== this.playhead?.length) this.fillStopped = false;
    this.playhead = playhead;
    this.holding = false;
    const { step, direction, length, chunkSize, fps, wrap } = playhead;
    if (length <= 0) return;
    const chunkBytes = this.store.averageChunkBytes;
    const budget = this.store.budgets.encoded;
    // Until one chunk has shown how big chunks are, ask for the current one only.
    const known = chunkBytes > 0;
    const ahead = known ? aheadChunks(fps, chunkSize, chunkBytes, budget) : 0;
    const behind = known ? 1 : 0;
    const missing = missingInWindow({ step, direction, length, chunkSize, ahead, behind, wrap }, (k) =>
      this.present(k),
    );
    const perRequest = chunksPerRequest(chunkBytes, URGENT_REQUEST_BYTES, 16);
    const current = chunkOf(step, chunkSize);
    for (const chunks of toRequests(missing, current, perRequest)) {
      const painting = chunks[0] === current;
      if (!painting && playhead.painting && chunks.length * chunkBytes > BACKGROUND_REQUEST_BYTES) this.holding = true;
      else this.request(chunks, false, painting ? step : undefined);
    }
    this.fill();
  }

  /** Caches a chunk that arrived, asked for or pushed, and reports it, unless the cache already holds as much. */
  receive(data: ChunkData): void {
    if (this.store.put(data)) this.onChunk(data);
  }

  /**
   * The episode grew from `old` to `length` positions: forgets the chunks cut short
   * at the old end (cached or in flight), but keeps those a push already brought
   * whole, so the kernel, likely busy running the cell that grows the episode, is
   * not asked for them.
   */
  grown(old: number, length: number, chunkSize: number): void {
    for (let k = chunkOf(old - 1, chunkSize); k <= chunkOf(length - 1, chunkSize); k++) {
      if (this.present(k) && !this.store.holdsAll(k, length)) this.drop(k);
    }
  }

  /** Forgets chunk `k` (cached or in flight): its data changed. */
  drop(k: number): void {
    this.transport.forget(k);
    this.store.drop(k);
    this.fillStopped = false;
  }

  /** Forgets everything cached or in flight (the episode was replaced or re-chunked). */
  reset(): void {
    this.transport.forgetAll();
    this.store.clear();
    this.fillStopped = false;
  }

  /** `painting`: the step a paint waits for, in the first chunk asked for. */
  private request(chunks: number[], background: boolean, painting?: number): void {
    if (background) this.background++;
    else this.urgent++;
    // Far from the kernel a paint asks for its frame first, which the kernel sends alone
    // ahead of a big chunk (js/frames/transport.ts): over 150 ms / 10 Mbit a 480x480
    // jump paints in 187 ms instead of 295 (benchmarks/frame_ahead.py). Near it, making
    // the frame alone (3-6 ms in the kernel) costs what it saves in the browser.
    const first = this.transport.link.far ? painting : undefined;
    const settled = this.transport.fetch(chunks, painting !== undefined, first).map((promise) =>
      promise.then(
        (data): Outcome => {
          this.receive(data);
          return "ok";
        },
        (error: Error): Outcome => {
          if (error instanceof TimeoutError || error instanceof StaleError) return "again";
          this.onError(error);
          return "failed";
        },
      ),
    );
    void Promise.all(settled).then((outcomes) => {
      if (background) this.background--;
      else this.urgent--;
      // What arrived may change the plan (chunk sizes are now known), and a timed-out
      // request is sent again (the timeout spaces the retries); errors are not retried in a loop.
      if (outcomes.includes("failed")) {
        if (background) this.fillStopped = true;
      } else if (this.playhead !== undefined) {
        this.update(this.playhead);
      }
    });
  }

  /** Sends background requests while the link has room for them, if the episode fits and nothing else is waiting. */
  private fill(): void {
    const p = this.playhead;
    const link = this.transport.link;
    // Near the kernel the fill waits for the window and jumps; far from it, it goes beside
    // them (their replies queue behind at most a round trip of fill), saving a round trip.
    const waiting = this.urgent > 0 && !link.far;
    if (p === undefined || waiting || this.fillStopped || this.holding) return;
    const chunks = numChunks(p.length, p.chunkSize);
    const chunkBytes = this.store.averageChunkBytes;
    if (!fitsBudget(chunkBytes, chunks, this.store.budgets.encoded)) return;
    const max = chunksPerRequest(chunkBytes, BACKGROUND_REQUEST_BYTES, link.far ? BACKGROUND_CHUNKS_FAR : BACKGROUND_CHUNKS);
    const inFlight = link.inFlight(max * chunkBytes, MAX_BACKGROUND_REQUESTS);
    while (this.background < inFlight) {
      const batch = backgroundBatch(chunkOf(p.step, p.chunkSize), p.direction, chunks, (k) => this.present(k), max);
      if (batch.length === 0) {
        if (this.background === 0) this.fillStopped = true;
        return;
      }
      this.request(batch, true);
    }
  }
}
