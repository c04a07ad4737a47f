/**
 * The order of a view's panel cards: the kernel's order, with the user's moves
 * on top. Moves are per view (two views of one viewer may differ) and survive
 * panels being added, replaced or removed.
 */

/** `previous` order kept for the panels still there; new panels go last, in the kernel's order. */
export function arrange(previous: readonly string[], names: readonly string[]): string[] {
  const present = new Set(names);
  const kept = previous.filter((name) => present.has(name));
  const known = new Set(kept);
  return [...kept, ...names.filter((name) => !known.has(name))];
}

/** `order` with `name` moved `delta` places (clamped to the ends). */
export function move(order: readonly string[], name: string, delta: number): string[] {
  const from = order.indexOf(name);
  if (from < 0) return [...order];
  const to = Math.max(0, Math.min(order.length - 1, from + delta));
  const moved = order.filter((other) => other !== name);
  moved.splice(to, 0, name);
  return moved;
}
