/**
 * Numbers as people read them, the one formatter of every widget's readouts, legends,
 * cards and tables: 4 decimals without float noise (0.1 + 0.2 -> 0.3,
 * 0.33333333333333337 -> 0.3333), 4 significant digits for small ones, integers plain;
 * and the values of one series or column printed to one common number of decimals, so
 * they line up when right-aligned and a legend's "0.25 to 12.50" reads like the
 * readout's "3.75". The kernel writes its saved copies by the same rules
 * (agent_widget/panels/_numbers.py); numbers.cases.json holds the cases both are
 * tested against.
 */

/** `x` rounded to what `formatNumber` prints. */
export function roundNumber(x: number): number {
  if (Number.isInteger(x) || !Number.isFinite(x)) return x;
  if (Math.abs(x) < 1e-3) return Number(x.toPrecision(4));
  return Number.parseFloat(x.toFixed(4));
}

/** A number as people read it: integers plain, others to 4 decimals without float noise. */
export function formatNumber(x: number | undefined): string {
  return x === undefined ? "-" : String(roundNumber(x));
}

/** `x` to `decimals` decimals (a series' or column's, see `commonDecimals`); as `formatNumber` prints it without them. */
export function formatFixed(x: number | undefined, decimals: number | undefined): string {
  if (x === undefined || decimals === undefined || !Number.isFinite(x)) return formatNumber(x);
  return x.toFixed(decimals);
}

/** Each series' decimals, worked out once (a series is replaced, never changed, when it grows). */
const seriesDecimalsOf = new WeakMap<Float64Array, number>();

/** `commonDecimals` of a whole series (an episode's rewards or returns), remembered. */
export function seriesDecimals(values: Float64Array): number {
  let decimals = seriesDecimalsOf.get(values);
  if (decimals === undefined) seriesDecimalsOf.set(values, (decimals = commonDecimals(values)));
  return decimals;
}

/** JSON (of an info dict, say) with every number in it rounded as `formatNumber` does. */
export function roundedJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === "number" ? roundNumber(v) : v));
}

const MAX_DECIMALS = 4;

/**
 * The decimals a column of `values` is printed with: enough for three significant
 * digits of its smallest non-zero magnitude, no more than any value needs (a column of
 * integers has none), at most 4.
 */
export function commonDecimals(values: ArrayLike<number>): number {
  // Loops, not Math.max(...values): an episode's rewards are too many arguments for a call.
  let needed = 0;
  let smallest = Infinity;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (!Number.isFinite(v)) continue;
    if (needed < MAX_DECIMALS) needed = Math.max(needed, decimalsOf(v));
    if (v !== 0) smallest = Math.min(smallest, Math.abs(v));
  }
  if (smallest === Infinity) return 0;
  const forThreeDigits = Math.max(0, 2 - Math.floor(Math.log10(smallest)));
  return Math.min(MAX_DECIMALS, needed, forThreeDigits);
}

/** How many decimals `x` has once rounded to 4 (0.25 -> 2, 3 -> 0). */
function decimalsOf(x: number): number {
  const text = Number.parseFloat(x.toFixed(MAX_DECIMALS)).toString();
  const point = text.indexOf(".");
  return point < 0 ? 0 : text.length - point - 1;
}
