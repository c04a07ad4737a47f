/**
 * The learning curve on an axis of env steps (`TrainingViewer(x="steps")`). The kernel
 * sends the same points, one an episode, and `steps`: the env steps taken by the end
 * of each episode. Here the points' series are laid out on a point a step, each
 * episode's values held over the steps it took, so that the viewer's Timeline (whose
 * x is a position) draws each episode's return as a bar as wide as the episode was
 * long, its running total as a step at the episode's end, and ticks that count steps.
 */
import type { Series } from "../shared/series.ts";

/** Where each point sits in steps: 0 for the table before training, then each episode's end. */
export function pointSteps(steps: ArrayLike<number>): Float64Array {
  const ends = new Float64Array(steps.length + 1);
  for (let k = 0; k < steps.length; k++) ends[k + 1] = steps[k];
  return ends;
}

/**
 * `series`, a point an episode (rewards: each episode's return; returns: the total after
 * k episodes), laid out over the steps: the return and extras of episode k held over
 * steps `ends[k] .. ends[k + 1] - 1`, the total stepping up at each episode's end.
 * Its length is `ends[last] + 1` positions.
 */
export function inSteps(series: Series, ends: Float64Array): Series {
  const episodes = ends.length - 1;
  const total = ends[episodes];
  const held = (values: Float64Array, length: number, last = Number.NaN): Float64Array => {
    const out = new Float64Array(length).fill(last);
    for (let k = 0; k < episodes; k++) out.fill(k < values.length ? values[k] : Number.NaN, ends[k], ends[k + 1]);
    return out;
  };
  const extras = new Map([...series.extras].map(([name, values]) => [name, held(values, total)]));
  return {
    rewards: held(series.rewards, total),
    returns: held(series.returns, total + 1, series.returns[episodes] ?? 0),
    terminated: new Float64Array(0),
    truncated: new Float64Array(0),
    actions: undefined,
    extras,
  };
}
