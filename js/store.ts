/**
 * What this view holds of the episode: encoded chunks (byte-bounded LRU, the
 * bulk of the data, cheap to keep), the inflated parts being decoded, and a
 * small byte-bounded cache of RGBA frames near the playhead, ready to paint.
 */
import { ByteLRU } from "./cache.ts";
import { PartDecoder } from "./codec.ts";
import type { ChunkData, EncodedPart, Frame, StepMeta } from "./types.ts";

export interface StoreBudgets {
  /** Encoded chunks (payloads plus meta). */
  encoded: number;
  /** Inflated parts being decoded: room for two 480x480 parts (current and next). */
  inflated: number;
  /** Decoded RGBA frames. */
  decoded: number;
}

/**
 * ~144 MB at most per view, whatever the episode's length: 64 MB holds a
 * 10,000-step Pong episode (~3 MB) many times over, so most episodes are
 * filled in whole in the background.
 */
const DEFAULT_BUDGETS: StoreBudgets = { encoded: 64 * 2 ** 20, inflated: 32 * 2 ** 20, decoded: 48 * 2 ** 20 };

export class FrameStore {
  readonly chunks: ByteLRU<number, ChunkData>;
  private readonly decoders: ByteLRU<EncodedPart, PartDecoder>;
  private readonly frames: ByteLRU<number, Frame>;
  /** Parts of dropped chunks: decodes still running for them must not fill the cache. */
  private retired = new WeakSet<EncodedPart>();
  private received = 0;
  private receivedBytes = 0;

  constructor(
    private readonly chunkSize: () => number,
    readonly budgets: StoreBudgets = DEFAULT_BUDGETS,
  ) {
    this.chunks = new ByteLRU(budgets.encoded, (data) => data.bytes);
    this.decoders = new ByteLRU(budgets.inflated, (decoder) => decoder.bytes);
    this.frames = new ByteLRU(budgets.decoded, (frame) => frame.rgba.byteLength);
  }

  /** Average bytes of the chunks received so far (0 before the first, at least 1 after). */
  get averageChunkBytes(): number {
    return this.received === 0 ? 0 : Math.max(1, this.receivedBytes / this.received);
  }

  /**
   * Caches a chunk unless the cached copy already reaches as far: while the episode
   * grows the same chunk arrives again and again (pushed, or answering a request),
   * and a copy cut short must never replace a longer one. Returns whether it was kept.
   */
  put(data: ChunkData): boolean {
    const cached = this.chunks.peek(data.chunk);
    if (cached !== undefined && reach(cached) >= reach(data)) return false;
    if (cached !== undefined) this.drop(data.chunk);
    this.chunks.set(data.chunk, data);
    this.received++;
    this.receivedBytes += data.bytes;
    return true;
  }

  has(k: number): boolean {
    return this.chunks.has(k);
  }

  /** Whether chunk `k` is cached with every position it has in an episode of `length`. */
  holdsAll(k: number, length: number): boolean {
    const cached = this.chunks.peek(k);
    return cached !== undefined && reach(cached) >= Math.min((k + 1) * this.chunkSize(), length);
  }

  /** Forgets chunk `k` and everything decoded from it (its data changed, e.g. the episode grew). */
  drop(k: number): void {
    const data = this.chunks.peek(k);
    if (data !== undefined) for (const part of data.parts) this.retired.add(part);
    this.chunks.delete(k);
    this.decoders.deleteWhere((part) => part.chunk === k);
    this.frames.deleteWhere((t) => Math.floor(t / this.chunkSize()) === k);
  }

  clear(): void {
    for (const k of [...this.chunks.keys()]) this.drop(k);
    this.frames.clear();
    this.decoders.clear();
    this.retired = new WeakSet();
  }

  /** Whether the RGBA frame at `t` is decoded and cached. */
  isDecoded(t: number): boolean {
    return this.frames.has(t);
  }

  /** The kernel's action text and info for position `t`, if its chunk is cached. */
  meta(t: number): StepMeta | undefined {
    return this.chunks.peek(Math.floor(t / this.chunkSize()))?.steps.get(t);
  }

  /**
   * The frame at `t` without waiting: from the decoded cache, or decoded now if
   * its part is inflated that far (a few ms at most). `null` when `t`'s chunk is
   * cached but holds no frame for it, `undefined` when it is not ready yet.
   */
  frameNow(t: number): Frame | null | undefined {
    const cached = this.frames.get(t);
    if (cached !== undefined) return cached;
    const part = this.partOf(t);
    if (part === undefined || part === null) return part;
    const decoder = this.decoders.get(part);
    return decoder?.ready(t) ? this.keep(t, part, decoder.frame(t)) : undefined;
  }

  /**
   * The frame at `t`, inflating its part as far as needed; `undefined` when its
   * chunk is not cached. `urgent` when it is about to be painted.
   */
  async frame(t: number, urgent: boolean): Promise<Frame | null | undefined> {
    const ready = this.frameNow(t);
    if (ready !== undefined) return ready;
    const part = this.partOf(t);
    if (part === undefined || part === null) return part;
    let decoder = this.decoders.get(part);
    if (decoder === undefined) {
      decoder = new PartDecoder(part);
      if (!this.retired.has(part)) this.decoders.set(part, decoder);
    }
    await decoder.load(t, urgent);
    return this.frames.get(t) ?? this.keep(t, part, decoder.frame(t));
  }

  private partOf(t: number): EncodedPart | null | undefined {
    const data = this.chunks.get(Math.floor(t / this.chunkSize()));
    if (data === undefined) return undefined;
    return data.parts.find((p) => t >= p.start && t < p.start + p.count) ?? null;
  }

  private keep(t: number, part: EncodedPart, frame: Frame): Frame {
    if (!this.retired.has(part)) this.frames.set(t, frame);
    return frame;
  }
}

/** The position after the last one `data` covers (its frames or its readout data). */
function reach(data: ChunkData): number {
  let end = 0;
  for (const part of data.parts) end = Math.max(end, part.start + part.count);
  for (const t of data.steps.keys()) end = Math.max(end, t + 1);
  return end;
}
