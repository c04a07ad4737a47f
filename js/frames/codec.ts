/**
 * Frame part decoding: inflate, replay the runs of changed bytes, expand RGB to RGBA.
 *
 * A zlib-runs part (docs/contributing/file-format.md) inflates to frame 0 followed by each
 * later frame's changed bytes: about one frame's worth of bytes (a Pong part:
 * 110 KB, not the 1.6 MB of its 16 frames), so it is inflated whole, natively
 * (`inflateNative`). Frames are then replayed in order into one working
 * frame only as far as asked (a frame before the working one starts over from
 * frame 0: a copy of one frame), and each is expanded to RGBA only when asked for.
 */
import { inflateNative } from "../shared/inflate.ts";
import type { EncodedPart, Frame } from "../shared/types.ts";

/**
 * The most a zlib-runs part of `count` frames of `frameBytes` may inflate to: frame 0,
 * then per frame its run count, one run header and twice the frame's bytes. An encoder
 * merging runs fewer than 9 bytes apart writes at most `12 + B` bytes a frame, so this
 * leaves room; without the run header (`B + (n-1)(4+2B)`), a changed frame of one or
 * two pixels (`B` = 3 or 6) would be refused.
 */
function maxRunsBytes(frameBytes: number, count: number): number {
  return frameBytes + (count - 1) * (12 + 2 * frameBytes);
}

/**
 * Where each frame's change starts in an inflated zlib-runs part (entry `i` for
 * frame `i >= 1`), after checking that every run is non-empty and inside the frame,
 * and that the bytes end exactly after the last frame: replaying then needs no check.
 */
function indexRuns(data: Uint8Array, frameBytes: number, count: number): number[] {
  if (data.byteLength < frameBytes) throw new Error(`holds ${data.byteLength} bytes, fewer than frame 0's ${frameBytes}`);
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const starts = [0];
  let at = frameBytes;
  for (let i = 1; i < count; i++) {
    starts.push(at);
    if (at + 4 > data.byteLength) throw new Error(`ends before frame ${i}'s run count`);
    const runs = view.getUint32(at, true);
    const header = at + 4;
    if (header + 8 * runs > data.byteLength) throw new Error(`ends inside the headers of frame ${i}'s ${runs} runs`);
    let end = 0;
    let changed = 0;
    for (let r = 0; r < runs; r++) {
      const start = end + view.getUint32(header + 8 * r, true);
      const length = view.getUint32(header + 8 * r + 4, true);
      end = start + length;
      if (length === 0) throw new Error(`run ${r} of frame ${i} is empty`);
      if (end > frameBytes) {
        throw new Error(`run ${r} of frame ${i} (bytes ${start} to ${end}) ends past the frame's ${frameBytes} bytes`);
      }
      changed += length;
    }
    at = header + 8 * runs + changed;
    if (at > data.byteLength) throw new Error(`ends inside frame ${i}'s changed bytes`);
  }
  if (at !== data.byteLength) throw new Error(`has ${data.byteLength - at} bytes after its last frame`);
  return starts;
}

/** Writes the runs at `data[at..]` (indexed by `indexRuns`) into `frame`: frame i-1 becomes frame i. */
function applyRuns(data: Uint8Array, view: DataView, at: number, frame: Uint8Array): void {
  const runs = view.getUint32(at, true);
  let source = at + 4 + 8 * runs;
  let end = 0;
  for (let header = at + 4; header < at + 4 + 8 * runs; header += 8) {
    const start = end + view.getUint32(header, true);
    const length = view.getUint32(header + 4, true);
    end = start + length;
    frame.set(data.subarray(source, source + length), start);
    source += length;
  }
}

/** Whether this machine stores numbers little-endian (every browser's does): the word-wise expansion needs it. */
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/**
 * Expands `width*height` RGB pixels from `rgb[offset..]` into an opaque RGBA frame,
 * written into `into` when given (a buffer of exactly `width*height*4` bytes), else a new one.
 *
 * Four pixels at a time, as three 32-bit words in and four out, where the RGB bytes
 * start on a word boundary (a part's inflated frames do): a 480x480 frame in 0.3 ms
 * instead of 1.1 ms byte by byte in Chromium, a jump's paint waiting on it.
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
  let p = 0;
  if (LITTLE_ENDIAN && (rgb.byteOffset + offset) % 4 === 0 && rgba.byteOffset % 4 === 0) {
    const quads = Math.floor(pixels / 4);
    const source = new Uint32Array(rgb.buffer, rgb.byteOffset + offset, quads * 3);
    const target = new Uint32Array(rgba.buffer, rgba.byteOffset, quads * 4);
    for (let s = 0; p < quads * 4; s += 3, p += 4) {
      const a = source[s]; // r0 g0 b0 r1, low byte first
      const b = source[s + 1]; // g1 b1 r2 g2
      const c = source[s + 2]; // b2 r3 g3 b3
      target[p] = 0xff000000 | a;
      target[p + 1] = 0xff000000 | (a >>> 24) | (b << 8);
      target[p + 2] = 0xff000000 | (b >>> 16) | (c << 16);
      target[p + 3] = 0xff000000 | (c >>> 8);
    }
  }
  for (let s = offset + 3 * p, d = 4 * p; p < pixels; p++, s += 3, d += 4) {
    rgba[d] = rgb[s];
    rgba[d + 1] = rgb[s + 1];
    rgba[d + 2] = rgb[s + 2];
    rgba[d + 3] = 255;
  }
  return { width, height, rgba };
}

/**
 * Random access to the frames of one part. A zlib-runs part is inflated whole
 * (`load`) and checked before any frame is read.
 */
export class PartDecoder {
  private readonly frameBytes: number;
  /** A raw part's frames, or a zlib-runs part inflated: frame 0, then each later frame's runs. */
  private data: Uint8Array | undefined;
  private view: DataView | undefined;
  /** zlib-runs only: where each frame's runs start in `data` (`indexRuns`). */
  private changes: number[] | undefined;
  private loading: Promise<void> | undefined;
  /** zlib-runs only: frame `at` (>= 1), replayed from frame 0. */
  private working: Uint8Array | undefined;
  private at = 0;

  /** Checks the header (and a raw part's size); throws an Error naming the part's position when wrong. */
  constructor(readonly part: EncodedPart) {
    const { start, count, width, height, encoding, payload } = part;
    if (!(count > 0 && width > 0 && height > 0)) {
      throw new Error(`invalid part at position ${start}: ${count} frames of ${width}x${height}`);
    }
    this.frameBytes = width * height * 3;
    if (encoding === "raw") {
      if (payload.byteLength !== count * this.frameBytes) {
        throw new Error(`raw part at position ${start} holds ${payload.byteLength} bytes, expected ${count * this.frameBytes}`);
      }
      this.data = payload;
    } else if (encoding !== "zlib-runs") {
      throw new Error(`unknown frame encoding ${JSON.stringify(encoding)} at position ${start}`);
    }
  }

  /** Memory held: the part's payload until inflated, then its inflated bytes and the working frame. */
  get bytes(): number {
    if (this.data === undefined) return this.part.payload.byteLength;
    const working = this.changes !== undefined && this.part.count > 1 ? this.frameBytes : 0;
    return this.data.byteLength + working;
  }

  /** Whether `frame` can run now (the part is inflated). */
  get ready(): boolean {
    return this.data !== undefined;
  }

  /** Inflates and checks the part (once, however often it is asked). */
  load(): Promise<void> {
    this.loading ??= this.inflate();
    return this.loading;
  }

  /** The RGBA frame at absolute position `t` (written into `into` if it fits); it must be `ready`. */
  frame(t: number, into?: Uint8ClampedArray): Frame {
    const index = t - this.part.start;
    if (!(index >= 0 && index < this.part.count)) {
      throw new RangeError(`position ${t} is not in the part starting at ${this.part.start}`);
    }
    if (this.data === undefined) throw new Error(`frame ${t} is not inflated yet`);
    const { width, height } = this.part;
    if (this.changes === undefined) return rgbToFrame(this.data, index * this.frameBytes, width, height, into);
    if (index === 0) return rgbToFrame(this.data, 0, width, height, into);
    return rgbToFrame(this.replay(this.data, this.changes, index), 0, width, height, into);
  }

  private async inflate(): Promise<void> {
    const { start, count, payload } = this.part;
    try {
      const data = await inflateNative(payload, maxRunsBytes(this.frameBytes, count));
      this.changes = indexRuns(data, this.frameBytes, count);
      this.view = new DataView(data.buffer, data.byteOffset, data.byteLength);
      this.data = data;
    } catch (error) {
      throw new Error(`zlib-runs part at position ${start}: ${(error as Error).message}`);
    }
  }

  /** The working frame moved to frame `index`: forward from where it is, else from frame 0. */
  private replay(data: Uint8Array, changes: number[], index: number): Uint8Array {
    if (this.working === undefined || this.at > index) {
      this.working ??= new Uint8Array(this.frameBytes);
      this.working.set(data.subarray(0, this.frameBytes));
      this.at = 0;
    }
    for (; this.at < index; this.at++) applyRuns(data, this.view!, changes[this.at + 1], this.working);
    return this.working;
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
