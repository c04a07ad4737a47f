/**
 * What this view holds of the episode: encoded chunks (byte-bounded LRU, the
 * bulk of the data, cheap to keep), the inflated parts being decoded, and a
 * small byte-bounded cache of RGBA frames near the playhead, ready to paint.
 */
import { ByteLRU } from "./cache.ts";
import { PartDecoder } from "./codec.ts";
import type { ChunkData, EncodedPart, Frame, StepMeta } from "../shared/types.ts";

export interface StoreBudgets {
  /** Encoded chunks (payloads plus meta). */
  encoded: number;
  /** Inflated parts being decoded. */
  inflated: number;
  /** Decoded RGBA frames. */
  decoded: number;
}

const MiB = 2 ** 20;
/**
 * 64 MB of encoded chunks holds a 10,000-step Pong episode (~3 MB) many times
 * over, so most episodes are filled in whole in the background. The other two
 * start at their floors and follow the playback speed and frame size
 * (`fitPlayback`): 16 + 8 MB for Pong at 60 fps, 64 + 16 MB at most.
 */
const DEFAULT_BUDGETS: StoreBudgets = { encoded: 64 * MiB, inflated: 8 * MiB, decoded: 8 * MiB };

/**
 * Budgets of decoded frames (RGBA) for `DECODED_SECONDS` of playback and of
 * inflated parts for `INFLATED_SECONDS`, each between a floor and a ceiling.
 *
 * Frames are decoded ahead of the playhead at most ~0.5 s (32 frames), and
 * stepping back re-decodes from an inflated part in about 1 ms, so 2 s of frames
 * serves playback and scrubbing nearby; more only held memory (fixed 48 + 32 MB
 * budgets made a Pong view hold 77 MB for a 300 KB episode). The floors keep two
 * parts of frames up to 1.7 MB (a part inflates to its first frame and at most
 * 320 KiB of changes, docs/contributing/file-format.md) and a few 480x480 frames; the ceilings
 * bound a view at 4K frames or 240 fps.
 */
export function playbackBudgets(fps: number, frameBytes: number): Pick<StoreBudgets, "inflated" | "decoded"> {
  const clamp = (bytes: number, floor: number, ceiling: number) => Math.max(floor, Math.min(ceiling, Math.ceil(bytes)));
  const rgb = (frameBytes * 3) / 4;
  return {
    decoded: clamp(DECODED_SECONDS * fps * frameBytes, 8 * MiB, 64 * MiB),
    inflated: clamp(INFLATED_SECONDS * fps * rgb, 8 * MiB, 16 * MiB),
  };
}

const DECODED_SECONDS = 2;
/** Evicted frames' buffers kept for reuse (a few: frames are evicted one per frame decoded). */
const SPARE_FRAMES = 4;
const INFLATED_SECONDS = 1;

export class FrameStore {
  readonly chunks: ByteLRU<number, ChunkData>;
  private readonly decoders: ByteLRU<EncodedPart, PartDecoder>;
  private readonly frames: ByteLRU<number, Frame>;
  /** Parts of dropped chunks: decodes still running for them must not fill the cache. */
  private retired = new WeakSet<EncodedPart>();
  /** Frames sent ahead of their chunks (`preview`) being decoded, by position; retired with their chunk. */
  private previews = new Map<number, { part: EncodedPart; done: Promise<void> }>();
  /** The readout data that came with a preview, by chunk, until the chunk itself comes. */
  private previewSteps = new Map<number, Map<number, StepMeta>>();
  /**
   * RGBA buffers of frames evicted from the cache, for the next frames decoded. During
   * playback a frame is evicted for every frame decoded; allocating 0.9 MB a frame
   * instead (480x480 at 30 fps: 28 MB/s) made the garbage collector pause playback.
   * Safe because no one keeps a frame: each is painted (copied) as soon as it is got.
   */
  private spare: Uint8ClampedArray[] = [];
  private received = 0;
  private receivedBytes = 0;

  constructor(
    private readonly chunkSize: () => number,
    budgets: StoreBudgets = DEFAULT_BUDGETS,
  ) {
    this.chunks = new ByteLRU(budgets.encoded, (data) => data.bytes);
    this.decoders = new ByteLRU(budgets.inflated, (decoder) => decoder.bytes);
    this.frames = new ByteLRU(
      budgets.decoded,
      (frame) => frame.rgba.byteLength,
      (frame) => this.spare.length < SPARE_FRAMES && this.spare.push(frame.rgba),
    );
  }

  get budgets(): StoreBudgets {
    return { encoded: this.chunks.budget, inflated: this.decoders.budget, decoded: this.frames.budget };
  }

  /** Sizes the caches of inflated parts and decoded frames to playback at `fps` of frames of `frameBytes` RGBA. */
  fitPlayback(fps: number, frameBytes: number): void {
    const { inflated, decoded } = playbackBudgets(fps, frameBytes);
    this.decoders.resize(inflated);
    this.frames.resize(decoded);
  }

  /** Average bytes of the chunks received so far (0 before the first, at least 1 after). */
  get averageChunkBytes(): number {
    return this.received === 0 ? 0 : Math.max(1, this.receivedBytes / this.received);
  }

  /**
   * Caches a chunk unless the cached copy already reaches as far: while the episode
   * grows the same chunk arrives again and again (pushed, or answering a request),
   * and a copy cut short must never replace a longer one. Returns whether it was kept.
   * A copy reaching exactly as far is the newer (the kernel sends in order): its
   * steps' readouts replace the cached ones, whose frames stay decoded. The kernel
   * re-sends a chunk so when its last position, then the episode's, gained a step
   * (a step appended at a chunk's end): that position's readout is the step's now.
   */
  put(data: ChunkData): boolean {
    const cached = this.chunks.peek(data.chunk);
    if (cached !== undefined && reach(cached) >= reach(data)) {
      if (reach(cached) === reach(data)) for (const [t, meta] of data.steps) cached.steps.set(t, meta);
      return false;
    }
    if (cached !== undefined) this.drop(data.chunk);
    this.previewSteps.delete(data.chunk);
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

  /**
   * Decodes a one-frame part sent ahead of its chunk into the cache of frames, so that
   * the paint waiting for it need not wait for the chunk; the chunk, when it comes,
   * is cached as usual (meanwhile `frame` waits for this rather than inflating the
   * chunk's part beside it). Nothing is kept if the chunk was dropped meanwhile.
   */
  preview(part: EncodedPart, steps: Map<number, StepMeta> = new Map()): Promise<void> {
    const t = part.start;
    this.previewSteps.set(part.chunk, steps);
    const decoder = new PartDecoder(part);
    const done = decoder.load().then(() => {
      if (!this.frames.has(t)) this.keep(t, part, decoder.frame(t, this.spareFor(part)));
    });
    this.previews.set(t, { part, done });
    const forget = () => this.previews.get(t)?.done === done && this.previews.delete(t);
    done.then(forget, forget);
    return done;
  }

  /** Forgets chunk `k` and everything decoded from it (its data changed, e.g. the episode grew). */
  drop(k: number): void {
    const data = this.chunks.peek(k);
    if (data !== undefined) for (const part of data.parts) this.retired.add(part);
    for (const { part } of this.previews.values()) if (part.chunk === k) this.retired.add(part);
    this.previewSteps.delete(k);
    this.chunks.delete(k);
    this.decoders.deleteWhere((part) => part.chunk === k);
    this.frames.deleteWhere((t) => Math.floor(t / this.chunkSize()) === k);
  }

  clear(): void {
    for (const k of [...this.chunks.keys()]) this.drop(k);
    this.frames.clear();
    this.decoders.clear();
    this.previewSteps.clear();
    this.retired = new WeakSet([...this.previews.values()].map(({ part }) => part));
  }

  /** Whether the RGBA frame at `t` is decoded and cached. */
  isDecoded(t: number): boolean {
    return this.frames.has(t);
  }

  /** The kernel's action text and info for position `t`, if its chunk is cached or previewed. */
  meta(t: number): StepMeta | undefined {
    const k = Math.floor(t / this.chunkSize());
    return (this.chunks.peek(k)?.steps ?? this.previewSteps.get(k))?.get(t);
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
    return decoder?.ready ? this.keep(t, part, decoder.frame(t, this.spareFor(part))) : undefined;
  }

  /**
   * The frame at `t`, inflating its part if need be; `undefined` when its chunk is
   * not cached.
   */
  async frame(t: number): Promise<Frame | null | undefined> {
    const previewed = this.previews.get(t)?.done.catch(() => undefined);
    if (previewed !== undefined) await previewed;
    const ready = this.frameNow(t);
    if (ready !== undefined) return ready;
    const part = this.partOf(t);
    if (part === undefined || part === null) return part;
    let decoder = this.decoders.get(part);
    if (decoder === undefined) {
      decoder = new PartDecoder(part);
      if (!this.retired.has(part)) this.decoders.set(part, decoder);
    }
    await decoder.load();
    // Inflated, it holds more than its payload: weigh it again.
    if (this.decoders.peek(part) === decoder) this.decoders.set(part, decoder);
    return this.frames.get(t) ?? this.keep(t, part, decoder.frame(t, this.spareFor(part)));
  }

  /** The part holding frame `t`; null when there is no frame at `t` (none was recorded:
   * no part, or a part of 0x0 frames), undefined when its chunk is not cached. */
  private partOf(t: number): EncodedPart | null | undefined {
    const data = this.chunks.get(Math.floor(t / this.chunkSize()));
    if (data === undefined) return undefined;
    const part = data.parts.find((p) => t >= p.start && t < p.start + p.count);
    return part === undefined || part.width === 0 || part.height === 0 ? null : part;
  }

  /** A spare RGBA buffer the size of `part`'s frames, if there is one. */
  private spareFor(part: EncodedPart): Uint8ClampedArray | undefined {
    const bytes = part.width * part.height * 4;
    const i = this.spare.findIndex((rgba) => rgba.length === bytes);
    return i < 0 ? undefined : this.spare.splice(i, 1)[0];
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
