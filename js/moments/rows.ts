/** What the moments list shows, apart from the DOM (tested in rows.test.ts). */

/** The columns drawn right-aligned in figures of one width. */
export const NUMERIC = new Set(["episode", "t", "last"]);

/** A row (or the header) from the model as strings, whatever the model holds. */
export function asCells(value: unknown): string[] {
  return Array.isArray(value) ? value.map((cell) => String(cell)) : [];
}

/** "12 moments", or "the first 10,000 of 25,000 moments" when the list is cut. */
export function countText(listed: number, found: number): string {
  const noun = found === 1 ? "moment" : "moments";
  if (found > listed) return `the first ${listed.toLocaleString("en")} of ${found.toLocaleString("en")} ${noun}`;
  return `${found.toLocaleString("en")} ${noun}`;
}
