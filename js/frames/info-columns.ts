/**
 * A reply's infos, rebuilt from the columns the kernel sends them in
 * (agent_widget/viewer/_transport.py `info_columns`): zlib compresses a column's
 * step-to-step repeats (Pong's frame counters, its lives) far better than rows.
 */

/** Position j's info has the keys `keys[key_set[j]]`, in order, each taking the next value of its column. */
export interface InfoColumns {
  keys: string[][];
  key_set: number[];
  columns: Record<string, unknown[]>;
}

/** The infos, one per position; an Error when the columns do not add up. */
export function infoRows(table: InfoColumns): Record<string, unknown>[] {
  const { keys, key_set: keySet, columns } = table;
  if (!Array.isArray(keys) || !Array.isArray(keySet) || columns === null || typeof columns !== "object") {
    throw new Error("infos are not columns (keys, key_set, columns)");
  }
  const used = new Map<string, number>();
  const next = (key: string): unknown => {
    const column = Object.hasOwn(columns, key) ? columns[key] : undefined;
    const i = used.get(key) ?? 0;
    if (!Array.isArray(column) || i >= column.length) throw new Error(`the info column ${JSON.stringify(key)} runs out`);
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
