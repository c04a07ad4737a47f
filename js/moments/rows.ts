/** What the moments list shows, apart from the DOM (tested in rows.test.ts). */

/** The columns drawn right-aligned in figures of one width. */
export const NUMERIC = new Set(["episode", "t", "last"]);

/** A row (or the header) from the model as strings, whatever the model holds. */
export function asCells(value: unknown): string[] {
  return Array.isArray(value) ? value.map((cell) => String(cell)) : [];
}

/**
 * "12 moments", "the first 10,000 of 25,000 moments" when the list is cut, and the steps
 * they hold when a moment is a stretch of several: "4 moments (32 steps)".
 */
export function countText(listed: number, found: number, steps: number): string {
  const noun = found === 1 ? "moment" : "moments";
  const count = (n: number) => n.toLocaleString("en");
  const moments = found > listed ? `the first ${count(listed)} of ${count(found)} ${noun}` : `${count(found)} ${noun}`;
  return steps === found ? moments : `${moments} (${count(steps)} step${steps === 1 ? "" : "s"})`;
}
