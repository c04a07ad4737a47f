/**
 * The per-step series that come once, up front, as packed little-endian float64
 * bytes (a DataView per name in the `series` trait).
 */

export interface Series {
  /** Reward of action t (length T). */
  rewards: Float64Array;
  /** Return collected before position t (length n). */
  returns: Float64Array;
  terminated: Float64Array;
  truncated: Float64Array;
  /** Scalar actions (length T), when actions are scalar. */
  actions: Float64Array | undefined;
  /** The user's scalar extras, by name without the "extra:" prefix. */
  extras: Map<string, Float64Array>;
}

const EMPTY = new Float64Array(0);

/** Reads packed float64 bytes (DataView, ArrayBuffer or typed array) into a Float64Array. */
export function toFloat64(value: unknown): Float64Array {
  let bytes: Uint8Array;
  if (ArrayBuffer.isView(value)) bytes = new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  else if (value instanceof ArrayBuffer) bytes = new Uint8Array(value);
  else return EMPTY;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Float64Array(Math.floor(bytes.byteLength / 8));
  // Explicit little-endian reads: the view may be unaligned, and the wire order is fixed.
  for (let i = 0; i < out.length; i++) out[i] = view.getFloat64(i * 8, true);
  return out;
}

/** Parses the `series` trait value. Missing names become empty arrays. */
export function parseSeries(raw: unknown): Series {
  const dict = (raw ?? {}) as Record<string, unknown>;
  const extras = new Map<string, Float64Array>();
  for (const [name, value] of Object.entries(dict)) {
    if (name.startsWith("extra:")) extras.set(name.slice("extra:".length), toFloat64(value));
  }
  return {
    rewards: toFloat64(dict.rewards),
    returns: toFloat64(dict.returns),
    terminated: toFloat64(dict.terminated),
    truncated: toFloat64(dict.truncated),
    actions: "actions" in dict ? toFloat64(dict.actions) : undefined,
    extras,
  };
}
