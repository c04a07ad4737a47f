/**
 * Frame part decoding: inflate, undo the XOR chain, expand RGB to RGBA.
 *
 * Inflating is streamed a slice of input at a time: the browser's
 * `DecompressionStream` inflates each written chunk in one go on the main
 * thread (~40 ms for a 480x480 chunk), so slicing keeps every task short, and
 * lets a random jump stop as soon as the frame it needs is out. A zlib-xor part
 * is then un-XORed in place lazily (frame i = frame i-1 XOR delta i), and each
 * frame is expanded to RGBA only when asked for.
 */
import type { EncodedPart, Frame } from "./types.ts";

/**
 * Inflated bytes per input slice: ~0.5 ms of work, short enough not to hold up a
 * paint, and fine enough that a random frame is inflated barely past its end
 * (a random Pong frame decodes in ~3.7 ms instead of ~5.3 with 512 KB slices).
 */
const SLICE_OUTPUT_BYTES = 128 * 1024;

/** Streams a zlib (RFC 1950) payload into `out`, only as far as asked. */
export class StreamInflater {
  private filled = 0;
  private demand = 0;
  private urgent = false;
  private error: Error | undefined;
  private wake: (() => void) | undefined;
  private waiters: { target: number; resolve: () => void; reject: (error: Error) => void }[] = [];

  constructor(
    private readonly payload: Uint8Array,
    private readonly out: Uint8Array,
  ) {
    const stream = new DecompressionStream("deflate");
    void this.write(stream.writable.getWriter());
    void this.read(stream.readable.getReader());
  }

  /** Bytes of `out` inflated so far. */
  get bytes(): number {
    return this.filled;
  }

  /**
   * Resolves once `out[0, target)` is inflated. `urgent` (someone is waiting to
   * paint) inflates without yielding to the browser between slices.
   */
  fill(target: number, urgent: boolean): Promise<void> {
    if (this.error !== undefined) return Promise.reject(this.error);
    if (this.filled >= target) return Promise.resolve();
    this.demand = Math.max(this.demand, target);
    this.urgent ||= urgent;
    this.wake?.();
    return new Promise((resolve, reject) => this.waiters.push({ target, resolve, reject }));
  }

  private async write(writer: WritableStreamDefaultWriter<BufferSource>): Promise<void> {
    const slice = Math.max(256, Math.ceil((this.payload.byteLength * SLICE_OUTPUT_BYTES) / Math.max(1, this.out.byteLength)));
    try {
      for (let sent = 0; sent < this.payload.byteLength; sent += slice) {
        while (this.filled >= this.demand) await new Promise<void>((resolve) => (this.wake = resolve));
        await writer.write(this.payload.subarray(sent, sent + slice) as Uint8Array<ArrayBuffer>);
        if (!this.urgent) await nextTask();
      }
      await writer.close();
    } catch (error) {
      this.fail(error as Error);
    }
  }

  private async read(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        if (this.filled + value.byteLength > this.out.byteLength) {
          void reader.cancel();
          throw new Error(`inflated data is larger than the expected ${this.out.byteLength} bytes`);
        }
        this.out.set(value, this.filled);
        this.filled += value.byteLength;
        this.settle();
      }
      if (this.filled !== this.out.byteLength) {
        throw new Error(`inflated ${this.filled} bytes, expected ${this.out.byteLength}`);
      }
    } catch (error) {
      this.fail(error as Error);
    }
  }

  private settle(): void {
    this.waiters = this.waiters.filter((w) => (this.filled >= w.target ? (w.resolve(), false) : true));
    if (this.waiters.length === 0) this.urgent = false;
  }

  private fail(error: Error): void {
    this.error ??= error;
    for (const w of this.waiters) w.reject(this.error);
    this.waiters = [];
  }
}

/** Turns delta `index` into frame `index` in place: `d_i ^= f_{i-1}` (frame `index-1` already undone). */
export function undoXor(data: Uint8Array, frameBytes: number, index: number): void {
  const begin = index * frameBytes;
  const prev = begin - frameBytes;
  if (frameBytes % 4 === 0 && data.byteOffset % 4 === 0) {
    // Word-wise XOR: 4x fewer iterations; frames of W*H*3 bytes are usually a multiple of 4.
    const words = new Uint32Array(data.buffer, data.byteOffset, data.byteLength >>> 2);
    const w0 = begin >>> 2;
    const p0 = prev >>> 2;
    for (let j = 0, n = frameBytes >>> 2; j < n; j++) words[w0 + j] ^= words[p0 + j];
    return;
  }
  for (let j = 0; j < frameBytes; j++) data[begin + j] ^= data[prev + j];
}

/**
 * Expands `width*height` RGB pixels from `rgb[offset..]` into an opaque RGBA frame,
 * written into `into` when given (a buffer of exactly `width*height*4` bytes), else a new one.
 */
export function rgbToFrame(
  rgb: Uint8Array,
  offset: number,
  width: number,
  height: number,
  into?: Uint8ClampedArray,
): Frame {
  const pixels = width * height;
  const rgba = into?.length === pixels * 4 ? into : new Uint8ClampedArray(pixels * 4);
  for (let p = 0, s = offset, d = 0; p < pixels; p++, s += 3, d += 4) {
    rgba[d] = rgb[s];
    rgba[d + 1] = rgb[s + 1];
    rgba[d + 2] = rgb[s + 2];
    rgba[d + 3] = 255;
  }
  return { width, height, rgba };
}

/** Random access to the frames of one part; inflates and decodes no further than asked. */
export class PartDecoder {
  /** Memory held: the part's inflated (or raw) RGB bytes. */
  readonly bytes: number;
  private readonly frameBytes: number;
  private readonly data: Uint8Array;
  private readonly inflater: StreamInflater | undefined;
  /** Frames 0..undone-1 of `data` are plain RGB; later ones are still XOR deltas. */
  private undone: number;

  /** Checks the header and payload size; throws an Error naming the part's position when wrong. */
  constructor(readonly part: EncodedPart) {
    const { start, count, width, height, encoding, payload } = part;
    if (!(count > 0 && width > 0 && height > 0)) {
      throw new Error(`invalid part at position ${start}: ${count} frames of ${width}x${height}`);
    }
    this.frameBytes = width * height * 3;
    const expected = count * this.frameBytes;
    if (encoding === "raw") {
      if (payload.byteLength !== expected) {
        throw new Error(`raw part at position ${start} holds ${payload.byteLength} bytes, expected ${expected}`);
      }
      this.data = payload;
      this.undone = count;
    } else if (encoding === "zlib-xor") {
      this.data = new Uint8Array(expected);
      this.inflater = new StreamInflater(payload, this.data);
      this.undone = 1;
    } else {
      throw new Error(`unknown frame encoding ${JSON.stringify(encoding)} at position ${start}`);
    }
    this.bytes = this.data.byteLength;
  }

  /** Whether `frame(t)` can run now, without inflating more. */
  ready(t: number): boolean {
    return this.inflater === undefined || this.inflater.bytes >= (this.index(t) + 1) * this.frameBytes;
  }

  /** Inflates as far as frame `t`; `urgent` when someone waits to paint it. */
  async load(t: number, urgent: boolean): Promise<void> {
    try {
      await this.inflater?.fill((this.index(t) + 1) * this.frameBytes, urgent);
    } catch (error) {
      throw new Error(`zlib-xor part at position ${this.part.start}: ${(error as Error).message}`);
    }
  }

  /** The RGBA frame at absolute position `t` (written into `into` if it fits); it must be `ready`. */
  frame(t: number, into?: Uint8ClampedArray): Frame {
    const index = this.index(t);
    if (!this.ready(t)) throw new Error(`frame ${t} is not inflated yet`);
    for (; this.undone <= index; this.undone++) undoXor(this.data, this.frameBytes, this.undone);
    return rgbToFrame(this.data, index * this.frameBytes, this.part.width, this.part.height, into);
  }

  private index(t: number): number {
    const index = t - this.part.start;
    if (!(index >= 0 && index < this.part.count)) {
      throw new RangeError(`position ${t} is not in the part starting at ${this.part.start}`);
    }
    return index;
  }
}

interface TaskScheduler {
  postTask(callback: () => void, options: { priority: "background" }): Promise<void>;
}

/**
 * Resolves in a new task (not a microtask), letting the browser handle input,
 * paint and arriving messages first. Where the browser has a task scheduler
 * (Chromium), the task has background priority: a panel's card or a chunk that
 * arrives while frames are decoded ahead is handled before the next frame's
 * decode, not after every queued one.
 */
export function nextTask(): Promise<void> {
  const scheduler = (globalThis as { scheduler?: TaskScheduler }).scheduler;
  if (scheduler !== undefined) return scheduler.postTask(() => undefined, { priority: "background" });
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      resolve();
    };
    channel.port2.postMessage(null);
  });
}
