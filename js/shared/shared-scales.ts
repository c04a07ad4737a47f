/**
 * One value axis for the cards of the same panel shown side by side (a comparison's
 * columns), so that their bars compare at a glance: random's 0.127 drawn shorter than
 * greedy's 0.609, not as long.
 *
 * A widget that lays out several viewers provides a `SharedScales` on its root
 * element; a card finds it by walking up from its own element, so the viewer needs
 * no knowledge of who contains it. Each card joins under its panel's name with the
 * extent it would draw alone; every member of a name is drawn on the union of the
 * extents. Changes are gathered and the members redrawn once, in a microtask: a card
 * that shows a new step leaves with its old extent and joins with the new one.
 */

export interface ScaleMember {
  /** The low and high end this card would draw on by itself. */
  readonly extent: readonly [number, number];
  /** Draws again on the group's (new) range. */
  draw(): void;
}

const provided = new WeakMap<Element, SharedScales>();

export class SharedScales {
  private readonly groups = new Map<string, Set<ScaleMember>>();
  private readonly changed = new Set<string>();
  private enabled: boolean;

  constructor(enabled: boolean) {
    this.enabled = enabled;
  }

  /** Makes this the scales of the cards drawn inside `root`. */
  provide(root: Element): void {
    provided.set(root, this);
  }

  /** Turns sharing on or off; every member is drawn again. */
  setEnabled(enabled: boolean): void {
    if (enabled === this.enabled) return;
    this.enabled = enabled;
    for (const name of this.groups.keys()) this.touch(name);
  }

  /** Adds `member` to panel `name`'s group; returns the function that takes it out. */
  join(name: string, member: ScaleMember): () => void {
    let group = this.groups.get(name);
    if (group === undefined) this.groups.set(name, (group = new Set()));
    group.add(member);
    this.touch(name);
    return () => {
      group.delete(member);
      if (group.size === 0) this.groups.delete(name);
      else this.touch(name);
    };
  }

  /** The range panel `name`'s cards share: the union of their extents; null when not shared. */
  range(name: string): [number, number] | null {
    const group = this.groups.get(name);
    if (!this.enabled || group === undefined) return null;
    let low = Number.POSITIVE_INFINITY;
    let high = Number.NEGATIVE_INFINITY;
    for (const { extent } of group) {
      low = Math.min(low, extent[0]);
      high = Math.max(high, extent[1]);
    }
    return low <= high ? [low, high] : null;
  }

  private touch(name: string): void {
    if (this.changed.size === 0) queueMicrotask(() => this.redrawChanged());
    this.changed.add(name);
  }

  private redrawChanged(): void {
    const names = [...this.changed];
    this.changed.clear();
    for (const name of names) for (const member of this.groups.get(name) ?? []) member.draw();
  }
}

/** The scales provided by the nearest enclosing widget, if any. */
export function sharedScalesFor(element: Element): SharedScales | undefined {
  for (let node: Element | null = element; node !== null; node = node.parentElement) {
    const scales = provided.get(node);
    if (scales !== undefined) return scales;
  }
  return undefined;
}
