/**
 * Which axis each of the timeline's series is drawn on, every one of them labelled: the
 * return (and a multi-agent episode's `return[<agent>]` lines with it) on the main
 * band's left axis, the rewards on its right axis, and each other extra on a band of
 * its own under it, named by it: "value", "td_error", Pendulum's `mean[0]` and `mean[1]`
 * together under "mean", a rate on 0-1. Every axis is fitted to what the strip shows,
 * so a zoom rescales the labels with the drawing.
 *
 * Example:
 *   extraGroups(["mean[0]", "mean[1]", "return[player_0]", "success rate"]);  // ["mean", "success rate"]
 *   timelineAxes(columns, new Set(["success rate"]), false).groups.get("mean"); // a ValueAxis
 */
import { logAxis, rateAxis, type ValueAxis, valueAxis } from "./axis.ts";
import type { Bins, TimelineColumns } from "./columns.ts";

/** The group of a multi-agent episode's per-agent returns (agent_widget/viewer/_agents.py): the return's own axis. */
export const AGENT_RETURNS = "return";
/** Ticks on the main band's axes (50 px tall): 3, or 4 rather than 2. */
const MAIN_TICKS = 3;
/** Ticks on an extra's band (30 px tall): 2 or 3, four labels would touch. */
const BAND_TICKS = 3;

/** The name a series is grouped under: the components `mean[0]`, `mean[1]` of a vector extra are `mean`. */
export function groupOf(name: string): string {
  return name.replace(/\[[^\]]*\]$/, "");
}

/** The groups of extras that get a band of their own, in the extras' order (not the agents' returns). */
export function extraGroups(names: Iterable<string>): string[] {
  const groups = new Set<string>();
  for (const name of names) if (groupOf(name) !== AGENT_RETURNS) groups.add(groupOf(name));
  return [...groups];
}

/** The axes a drawing of the timeline uses. */
export interface TimelineAxes {
  returns: ValueAxis;
  rewards: ValueAxis;
  /** Each group of extras' axis (the agents' returns are on `returns`). */
  groups: Map<string, ValueAxis>;
}

/** The finite extent of some series: lowest, highest, and the lowest above zero (for a log axis). */
interface Extent {
  lo: number;
  hi: number;
  positive: number;
}

function extentOf(bins: readonly Bins[]): Extent {
  const extent = { lo: Infinity, hi: -Infinity, positive: Infinity };
  for (const { min, max } of bins) {
    for (let i = 0; i < min.length; i++) {
      if (min[i] < extent.lo) extent.lo = min[i];
      if (max[i] > extent.hi) extent.hi = max[i];
      // A column from -1 to 3 holds no smaller positive value we know of than 3.
      const positive = min[i] > 0 ? min[i] : max[i] > 0 ? max[i] : Infinity;
      if (positive < extent.positive) extent.positive = positive;
    }
  }
  return extent;
}

/**
 * A fitted axis over `extent` for a band (`main` or an extra's): logarithmic when asked
 * and any value is above zero (those at or below are left out).
 */
function fitted(extent: Extent, log: boolean, main: boolean): ValueAxis {
  if (log && Number.isFinite(extent.positive)) return logAxis(extent.positive, extent.hi, main ? MAIN_TICKS : BAND_TICKS);
  return main ? valueAxis(extent.lo, extent.hi, MAIN_TICKS) : valueAxis(extent.lo, extent.hi, BAND_TICKS, 2);
}

/**
 * The axes of `columns` (what the strip shows): rates (`rates`, by extra name) on 0-1,
 * each other group fitted to its components, the rewards from zero, the return to it
 * and the agents' returns; `log`, log axes where the values allow.
 */
export function timelineAxes(columns: TimelineColumns, rates: ReadonlySet<string>, log: boolean): TimelineAxes {
  const members = new Map<string, Bins[]>();
  const rated = new Set<string>();
  for (const [name, bins] of columns.extras) {
    const group = groupOf(name);
    members.set(group, [...(members.get(group) ?? []), bins]);
    if (rates.has(name) || rates.has(group)) rated.add(group);
  }
  const groups = new Map<string, ValueAxis>();
  for (const [group, bins] of members) {
    if (group === AGENT_RETURNS) continue;
    groups.set(group, rated.has(group) ? rateAxis() : fitted(extentOf(bins), log, false));
  }
  const rewards = extentOf([columns.rewards]);
  const fromZero = { ...rewards, lo: Math.min(rewards.lo, 0), hi: Math.max(rewards.hi, 0) };
  return {
    returns: fitted(extentOf([columns.returns, ...(members.get(AGENT_RETURNS) ?? [])]), log, true),
    rewards: fitted(Number.isFinite(rewards.lo) ? fromZero : rewards, log, true),
    groups,
  };
}
