/**
 * A reply's infos, rebuilt from the columns the kernel sends them in
 * (agent_widget/viewer/_transport.py `info_columns`): zlib compresses a column's
 * step-to-step repeats (Pong's lives) far better than rows, and a column of integers
 * comes as its first value and differences, so a counter is one number repeated.
 */

/** Position j's info has the keys `keys[key_set[j]]`, in order, each taking the next value of its column. */
export interface InfoColumns {
  keys: string[][];
  key_set: number[];
  columns: Record<string, unknown[] | { delta: number[] }>;
}

/** The infos, one per position; an Error when the columns do not add up. */
export function infoRows(table: InfoColumns): Record<string, unknown>[] {
  const { keys, key_set: keySet, columns } = table;
  if (!Array.isArray(keys) || !Array.isArray(keySet) || columns === null || typeof columns !== "object") {
    throw new Error("infos are not columns (keys, key_set, columns)");
  }
  const values = new Map<string, unknown[]>();
  const used = new Map<string, number>();
  const next = (key: string): unknown => {
    if (!values.has(key)) values.set(key, unpacked(key, Object.hasOwn(columns, key) ? columns[key] : undefined));
    const column = values.get(key)!;
    const i = used.get(key) ?? 0;
    if (i >= column.length) throw new Error(`the info column ${JSON.stringify(key)} runs out`);
    used.set(key, i + 1);
    return column[i];
  };
  return keySet.map((s) => {
    const names = keys[s];
    if (!Array.isArray(names)) throw new Error(`no info key set ${s}`);
    // fromEntries defines own properties: a key such as "__proto__" stays plain data.
    return Object.fromEntries(names.map((key) => [key, next(String(key))]));
  });
}

/** A column's values: as sent, or summed up from its first value and differences. */
function unpacked(key: string, column: unknown): unknown[] {
  if (Array.isArray(column)) return column;
  const delta = (column as { delta?: unknown } | undefined)?.delta;
  if (!Array.isArray(delta)) return [];
  let value = 0;
  return delta.map((d: unknown) => {
    if (!Number.isSafeInteger(d)) throw new Error(`the info column ${JSON.stringify(key)} has a bad difference`);
    value += d as number;
    return value;
  });
}
