/**
 * The pure parts of the comparison view: which position of each episode a shared
 * position shows, how an episode's end is labelled, and how many grid columns fit.
 */
import type { Series } from "../shared/series.ts";

/** Reads packed little-endian int32 bytes (DataView, ArrayBuffer or typed array). */
export function toInt32(value: unknown): Int32Array {
  let bytes: Uint8Array;
  if (ArrayBuffer.isView(value)) bytes = new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  else if (value instanceof ArrayBuffer) bytes = new Uint8Array(value);
  else return new Int32Array(0);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Int32Array(Math.floor(bytes.byteLength / 4));
  for (let i = 0; i < out.length; i++) out[i] = view.getInt32(i * 4, true);
  return out;
}

/**
 * Shared position -> each episode's position. Without maps (aligned by step),
 * position p of every episode, held at its last one; with maps, the kernel's.
 */
export class Alignment {
  constructor(
    private readonly maps: readonly Int32Array[],
    private readonly lengths: readonly number[],
  ) {}

  at(child: number, p: number): number {
    const map = this.maps[child];
    const t = map === undefined || map.length === 0 ? p : map[Math.max(0, Math.min(p, map.length - 1))];
    return Math.max(0, Math.min(this.lengths[child] - 1, t));
  }

  /** Episode `child`'s series value at each shared position (e.g. its return), length `length`. */
  aligned(child: number, values: Float64Array, length: number): Float64Array {
    const out = new Float64Array(length);
    for (let p = 0; p < length; p++) {
      const t = this.at(child, p);
      out[p] = t < values.length ? values[t] : Number.NaN;
    }
    return out;
  }
}

/**
 * "" while an episode has positions left; at its last position, how it ended:
 * "terminated at t = 57", "truncated at t = 500" or "ended at t = 12".
 */
export function endLabel(series: Series, t: number, length: number): string {
  if (length === 0 || t < length - 1) return "";
  const last = series.terminated.length - 1;
  let how = "ended";
  if (last >= 0 && series.terminated[last] > 0) how = "terminated";
  else if (last >= 0 && series.truncated[last] > 0) how = "truncated";
  return `${how} at t = ${length - 1}`;
}

/** Cells narrower than this wrap to the next row... */
const MIN_CELL_PX = 280;
/** ...except in a narrow cell (below two of them), where smaller frames side by side beat a
 * stack whose last frame is screens away from the shared slider. */
const NARROW_CELL_PX = 150;

/** The narrowest a column may be in a comparison `width` px wide. */
export function minCellWidth(width: number): number {
  return width < 2 * MIN_CELL_PX ? NARROW_CELL_PX : MIN_CELL_PX;
}

/**
 * Columns for `count` cells in `width` px: `fixed` when set, else as many as fit
 * cells of at least `minWidth`, then evened out (4 cells in room for 3 -> 2 x 2).
 */
export function gridColumns(count: number, width: number, minWidth: number, fixed: number): number {
  if (count <= 1) return 1;
  if (fixed > 0) return Math.min(fixed, count);
  const fit = Math.max(1, Math.min(count, Math.floor(width / minWidth)));
  const rows = Math.ceil(count / fit);
  return Math.max(1, Math.ceil(count / rows));
}
