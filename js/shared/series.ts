/**
 * The per-step series that come once, up front, in the `series` trait: per
 * name, a 4-byte header naming the dtype as numpy does ("|u1 ", "|i1 ", "<f4 ",
 * ...) and the little-endian values. The kernel picks the narrowest dtype that
 * holds the values exactly (100,000 Pong steps: 400 KB instead of 4 MB as
 * float64), and sends no returns: they are summed here from the rewards.
 */

export interface Series {
  /** Reward of action t (length T). */
  rewards: Float64Array;
  /** Return collected before position t (length n): the sum of the rewards before it. */
  returns: Float64Array;
  terminated: Float64Array;
  truncated: Float64Array;
  /** Scalar actions (length T), when actions are scalar. */
  actions: Float64Array | undefined;
  /** The user's scalar extras, by name without the "extra:" prefix. */
  extras: Map<string, Float64Array>;
}

const EMPTY = new Float64Array(0);
const HEADER = 4;

/** Bytes per value and how a DataView reads one, by dtype name. */
const DTYPES: Record<string, [number, (view: DataView, offset: number) => number]> = {
  "|u1": [1, (v, o) => v.getUint8(o)],
  "|i1": [1, (v, o) => v.getInt8(o)],
  "<u2": [2, (v, o) => v.getUint16(o, true)],
  "<i2": [2, (v, o) => v.getInt16(o, true)],
  "<u4": [4, (v, o) => v.getUint32(o, true)],
  "<i4": [4, (v, o) => v.getInt32(o, true)],
  "<f4": [4, (v, o) => v.getFloat32(o, true)],
  "<f8": [8, (v, o) => v.getFloat64(o, true)],
};

/** The bytes of a DataView, ArrayBuffer or typed array; undefined for anything else. */
export function bytesOf(value: unknown): Uint8Array | undefined {
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  return undefined;
}

/** Reads packed float64 bytes (DataView, ArrayBuffer or typed array) into a Float64Array. */
export function toFloat64(value: unknown): Float64Array {
  const bytes = bytesOf(value);
  if (bytes === undefined) return EMPTY;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Float64Array(Math.floor(bytes.byteLength / 8));
  // Explicit little-endian reads: the view may be unaligned, and the wire order is fixed.
  for (let i = 0; i < out.length; i++) out[i] = view.getFloat64(i * 8, true);
  return out;
}

/** Reads one series value (header and values); a missing or unreadable one is empty. */
export function readSeries(value: unknown): Float64Array {
  const bytes = bytesOf(value);
  if (bytes === undefined || bytes.byteLength < HEADER) return EMPTY;
  const name = String.fromCharCode(...bytes.subarray(0, HEADER)).trim();
  const dtype = DTYPES[name];
  if (dtype === undefined) {
    console.warn(`agent-widget: a series in unknown dtype ${JSON.stringify(name)} is left out`);
    return EMPTY;
  }
  const [size, read] = dtype;
  const view = new DataView(bytes.buffer, bytes.byteOffset + HEADER, bytes.byteLength - HEADER);
  const out = new Float64Array(Math.floor(view.byteLength / size));
  for (let i = 0; i < out.length; i++) out[i] = read(view, i * size);
  return out;
}

/**
 * `length` returns: 0, then the running sum of the rewards (in float64, in order, as
 * the kernel sums them). A NaN or infinite reward is left out of the sum, so the
 * return line goes on past it (the timeline marks its step instead).
 */
export function returnsOf(rewards: Float64Array, length: number): Float64Array {
  const out = new Float64Array(Math.max(0, length));
  for (let t = 1; t < out.length; t++) {
    const reward = t - 1 < rewards.length ? rewards[t - 1] : 0;
    out[t] = out[t - 1] + (Number.isFinite(reward) ? reward : 0);
  }
  return out;
}

/** The steps whose value is NaN or infinite. */
export function nonFiniteSteps(values: Float64Array): number[] {
  const steps: number[] = [];
  for (let t = 0; t < values.length; t++) if (!Number.isFinite(values[t])) steps.push(t);
  return steps;
}

/**
 * Parses the `series` trait value of an episode of `length` positions. Missing names
 * become empty arrays, the returns too when the rewards are missing (a long episode's
 * state carries a summary instead): summing no rewards over 100,000 positions would be
 * zeros, shown as the return, and time spent before the first frame is painted.
 */
export function parseSeries(raw: unknown, length: number): Series {
  const dict = (raw ?? {}) as Record<string, unknown>;
  const extras = new Map<string, Float64Array>();
  for (const [name, value] of Object.entries(dict)) {
    if (name.startsWith("extra:")) extras.set(name.slice("extra:".length), readSeries(value));
  }
  const rewards = readSeries(dict.rewards);
  return {
    rewards,
    returns: "rewards" in dict ? returnsOf(rewards, length) : EMPTY,
    terminated: readSeries(dict.terminated),
    truncated: readSeries(dict.truncated),
    actions: "actions" in dict ? readSeries(dict.actions) : undefined,
    extras,
  };
}
