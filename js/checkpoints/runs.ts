/**
 * Typed reads of a CheckpointViewer's traits: the checkpoints' training steps, the
 * seeds, each seed's evaluation return at each checkpoint, and what the controls say.
 */
import { tickLabels } from "../shared/axis.ts";
import { toFloat64 } from "../shared/series.ts";

/** Whole numbers of a list trait (anything else left out). */
export function integers(value: unknown): number[] {
  return Array.isArray(value) ? value.filter((x): x is number => Number.isInteger(x)) : [];
}

/** Each seed's returns over the checkpoints (NaN where it was not evaluated), `count` long. */
export function returnLines(value: unknown, count: number): Float64Array[] {
  if (!Array.isArray(value)) return [];
  return value.map((bytes) => {
    const line = new Float64Array(count).fill(Number.NaN);
    line.set(toFloat64(bytes).subarray(0, count));
    return line;
  });
}

/** What the training-step control says: "training step 12,000 (3 of 10)". */
export function stepLabel(steps: readonly number[], index: number): string {
  if (steps.length === 0) return "no checkpoint yet";
  const i = Math.min(Math.max(index, 0), steps.length - 1);
  return `training step ${steps[i].toLocaleString("en-US")} (${i + 1} of ${steps.length})`;
}

/** A seed's return at a checkpoint, as its legend entry says it ("seed 1: 187"). */
export function seedLabel(seed: number, value: number | undefined): string {
  const shown = value === undefined || Number.isNaN(value) ? "not evaluated" : String(Number.parseFloat(value.toFixed(2)));
  return `seed ${seed}: ${shown}`;
}

/** The returns chart's step axis: each tick (a checkpoint's position) as its training step ("20k"). */
export function trainingStepLabels(steps: readonly number[], ticks: readonly number[]): string[] {
  return tickLabels(ticks.map((t) => steps[t] ?? 0));
}
