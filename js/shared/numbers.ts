/**
 * Numbers as people read them: 4 decimals without float noise (0.1 + 0.2 -> 0.3,
 * 0.33333333333333337 -> 0.3333), 4 significant digits for small ones, integers
 * plain; and columns of numbers printed to one common number of decimals, so they
 * line up when right-aligned.
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
