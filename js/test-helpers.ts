/** Test doubles and fixtures shared by the vitest specs (not part of the bundle). */
import { deflateSync } from "node:zlib";
import type { EncodedPart, Model } from "./types.ts";

type Callback = (...args: any[]) => void;

/** A stand-in for the anywidget model: records `send`s and lets a test play the kernel. */
export class FakeModel implements Model {
  readonly sent: any[] = [];
  readonly state = new Map<string, unknown>();
  private readonly handlers = new Map<string, Set<Callback>>();

  get(name: string): unknown {
    return this.state.get(name);
  }
  set(name: string, value: unknown): void {
    this.state.set(name, value);
    this.emit(`change:${name}`);
  }
  save_changes(): void {}
  on(event: string, callback: Callback): void {
    if (!this.handlers.has(event)) this.handlers.set(event, new Set());
    this.handlers.get(event)!.add(callback);
  }
  off(event?: string | null, callback?: Callback | null): void {
    if (event && callback) this.handlers.get(event)?.delete(callback);
  }
  send(content: unknown): void {
    this.sent.push(content);
  }
  emit(event: string, ...args: unknown[]): void {
    for (const callback of this.handlers.get(event) ?? []) callback(...args);
  }
  /** Delivers a kernel message to the front end, buffers as DataViews like anywidget does. */
  reply(content: unknown, buffers: Uint8Array[] = []): void {
    this.emit(
      "msg:custom",
      content,
      buffers.map((b) => new DataView(b.buffer, b.byteOffset, b.byteLength)),
    );
  }
  listeners(event: string): number {
    return this.handlers.get(event)?.size ?? 0;
  }
}

/** `count` frames of `height`x`width` RGB, each pixel byte a function of (frame, byte index). */
export function makeFrames(count: number, height: number, width: number): Uint8Array[] {
  return Array.from({ length: count }, (_, f) =>
    Uint8Array.from({ length: height * width * 3 }, (_, i) => (f * 37 + i * 11 + (i % 7) * f) & 0xff),
  );
}

/** The zlib-xor payload of `frames`, produced the way the kernel does (node:zlib). */
export function zlibXor(frames: Uint8Array[]): Uint8Array {
  const size = frames[0].length;
  const deltas = new Uint8Array(frames.length * size);
  frames.forEach((frame, i) => {
    for (let j = 0; j < size; j++) deltas[i * size + j] = i === 0 ? frame[j] : frame[j] ^ frames[i - 1][j];
  });
  return new Uint8Array(deflateSync(deltas));
}

export function raw(frames: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(frames.reduce((n, f) => n + f.length, 0));
  let offset = 0;
  for (const f of frames) {
    out.set(f, offset);
    offset += f.length;
  }
  return out;
}

export function part(
  frames: Uint8Array[],
  start: number,
  height: number,
  width: number,
  encoding: "zlib-xor" | "raw" = "zlib-xor",
  chunkSize = 16,
): EncodedPart {
  const payload = encoding === "raw" ? raw(frames) : zlibXor(frames);
  return { chunk: Math.floor(start / chunkSize), start, count: frames.length, height, width, encoding, payload };
}

/** The RGBA a frame must decode to: its RGB with alpha 255. */
export function rgba(rgb: Uint8Array): Uint8ClampedArray {
  const out = new Uint8ClampedArray((rgb.length / 3) * 4);
  for (let p = 0; p < rgb.length / 3; p++) {
    out.set(rgb.subarray(p * 3, p * 3 + 3), p * 4);
    out[p * 4 + 3] = 255;
  }
  return out;
}

/** The readout buffer that ends a chunk reply, as the kernel makes it: zlib-compressed JSON, per chunk. */
export function readout(table: Record<number, { actions: string[]; infos: unknown[] }> = {}): Uint8Array {
  return new Uint8Array(deflateSync(JSON.stringify(table)));
}

/** A series as the kernel packs it: the dtype's numpy name padded to 4 bytes, then little-endian values. */
export function packSeries(dtype: "|u1" | "|i1" | "<i2" | "<f4" | "<f8", values: number[], offset = 0): DataView {
  const size = { "|u1": 1, "|i1": 1, "<i2": 2, "<f4": 4, "<f8": 8 }[dtype];
  const bytes = new Uint8Array(offset + 4 + values.length * size);
  const view = new DataView(bytes.buffer, offset);
  [...dtype.padEnd(4)].forEach((c, i) => view.setUint8(i, c.charCodeAt(0)));
  const write = {
    "|u1": (o: number, v: number) => view.setUint8(o, v),
    "|i1": (o: number, v: number) => view.setInt8(o, v),
    "<i2": (o: number, v: number) => view.setInt16(o, v, true),
    "<f4": (o: number, v: number) => view.setFloat32(o, v, true),
    "<f8": (o: number, v: number) => view.setFloat64(o, v, true),
  }[dtype];
  values.forEach((v, i) => write(4 + i * size, v));
  return new DataView(bytes.buffer, offset);
}
