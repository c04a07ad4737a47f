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

/**
 * The infos, one per position; an Error when the columns do not add up. Each key set's
 * columns are looked up once, not per position: a 100,000-step fill rebuilds 100,000 infos.
 */
export function infoRows(table: InfoColumns): Record<string, unknown>[] {
  const { keys, key_set: keySet, columns } = table;
  if (!Array.isArray(keys) || !Array.isArray(keySet) || columns === null || typeof columns !== "object") {
    throw new Error("infos are not columns (keys, key_set, columns)");
  }
  const byKey = new Map<string, { key: string; values: unknown[]; used: number }>();
  const column = (key: string) => {
    let found = byKey.get(key);
    if (found === undefined) {
      found = { key, values: unpacked(key, Object.hasOwn(columns, key) ? columns[key] : undefined), used: 0 };
      byKey.set(key, found);
    }
    return found;
  };
  const sets = keys.map((names) => (Array.isArray(names) ? names.map((key) => column(String(key))) : undefined));
  return keySet.map((s) => {
    const set = Number.isInteger(s) ? sets[s] : undefined;
    if (set === undefined) throw new Error(`no info key set ${s}`);
    const row: Record<string, unknown> = {};
    for (const c of set) {
      if (c.used >= c.values.length) throw new Error(`the info column ${JSON.stringify(c.key)} runs out`);
      const value = c.values[c.used++];
      // A key such as "__proto__" stays plain data, an own property, not the prototype.
      if (c.key === "__proto__") Object.defineProperty(row, c.key, { value, enumerable: true, writable: true, configurable: true });
      else row[c.key] = value;
    }
    return row;
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
