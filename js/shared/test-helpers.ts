/** Test doubles and fixtures shared by the vitest specs (not part of the bundle). */
import { deflateSync } from "node:zlib";
import { luminance } from "./theme.ts";
import type { EncodedPart, Encoding, Model, PartHeader } from "./types.ts";

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

/** Runs of changed bytes at most this many unchanged bytes apart are written as one (fewer 8-byte headers). */
const RUNS_GAP = 8;

/** The zlib-runs payload of `frames`, encoded as the kernel does (zlib level 6): frame 0, then each frame's runs. */
export function zlibRuns(frames: Uint8Array[]): Uint8Array {
  const changes = frames.slice(1).map((frame, i) => changeOf(frames[i], frame));
  return new Uint8Array(deflateSync(concat([frames[0], ...changes]), { level: 6 }));
}

/** The change from `prev` to `next`: the run count, (skip, length) per run, then the runs' new bytes. */
function changeOf(prev: Uint8Array, next: Uint8Array): Uint8Array {
  const runs: { start: number; end: number }[] = [];
  for (let j = 0; j < next.length; j++) {
    if (prev[j] === next[j]) continue;
    const last = runs.at(-1);
    if (last !== undefined && j - last.end <= RUNS_GAP) last.end = j + 1;
    else runs.push({ start: j, end: j + 1 });
  }
  const header = runs.flatMap((run, r) => [run.start - (r === 0 ? 0 : runs[r - 1].end), run.end - run.start]);
  return concat([u32(runs.length, ...header), ...runs.map((run) => next.subarray(run.start, run.end))]);
}

/** Little-endian u32s, the integers of a zlib-runs change. */
export function u32(...values: number[]): Uint8Array {
  const out = new Uint8Array(4 * values.length);
  const view = new DataView(out.buffer);
  values.forEach((v, i) => view.setUint32(4 * i, v, true));
  return out;
}

/** The pieces' bytes one after the other. */
export function concat(pieces: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(pieces.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const p of pieces) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}

export function part(
  frames: Uint8Array[],
  start: number,
  height: number,
  width: number,
  encoding: Encoding = "zlib-runs",
  chunkSize = 16,
): EncodedPart {
  const payload = encoding === "raw" ? concat(frames) : zlibRuns(frames);
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

/** Readout data of a reply, per chunk: its positions' infos and, for vector actions, their texts. */
export type ReadoutTable = Record<number, { actions?: string[]; infos: unknown[] }>;

/**
 * A chunk message as the kernel sends it, from `content` as the tests write it
 * (with its part headers in `parts`): the content without them, and the
 * buffers: the payloads, then the index (agent_widget/viewer/_transport.py `reply_index`)
 * holding the headers and `table`'s readout data, infos in columns.
 */
export function kernelReply(
  content: { parts?: PartHeader[] | object[] } & Record<string, unknown>,
  payloads: Uint8Array[] = [],
  table: ReadoutTable = {},
): [Record<string, unknown>, Uint8Array[]] {
  const { parts = [], ...rest } = content;
  const chunks = [...new Set([...(parts as PartHeader[]).map((p) => p.chunk), ...Object.keys(table).map(Number)])];
  chunks.sort((a, b) => a - b);
  const rows = chunks.flatMap((k) => table[k]?.infos ?? []) as Record<string, unknown>[];
  const keys: string[][] = [];
  const columns: Record<string, unknown[]> = {};
  const keySet = rows.map((info) => {
    const names = Object.keys(info);
    let s = keys.findIndex((known) => known.join("\0") === names.join("\0"));
    if (s < 0) s = keys.push(names) - 1;
    for (const name of names) (columns[name] ??= []).push(info[name]);
    return s;
  });
  const index: Record<string, unknown> = {
    chunks,
    counts: chunks.map((k) => table[k]?.infos.length ?? 0),
    parts,
    infos: { keys, key_set: keySet, columns },
  };
  if (chunks.some((k) => table[k]?.actions !== undefined)) index.actions = chunks.flatMap((k) => table[k]?.actions ?? []);
  return [rest, [...payloads, new Uint8Array(deflateSync(JSON.stringify(index)))]];
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

/**
 * The two themes a chart is drawn in: JupyterLab Light's and Dark's text (what
 * `readPalette` reads the theme from) and layout background (`--jp-layout-color1`).
 */
export const THEMES = {
  light: { text: "rgba(0, 0, 0, 0.87)", background: "#ffffff" },
  dark: { text: "rgba(255, 255, 255, 1)", background: "#212121" },
} as const;

/** The WCAG contrast ratio of two colours (1 to 21). */
export function contrast(a: string, b: string): number {
  const [x, y] = [luminance(a), luminance(b)];
  if (x === null || y === null) throw new Error(`unreadable colour: ${x === null ? a : b}`);
  return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05);
}
