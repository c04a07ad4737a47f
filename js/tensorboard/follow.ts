/**
 * What became of the episode file the tab shows, by the runs TensorBoard's reload
 * lists: a recording under way (`record(path=)`'s `<path>.part`) grows between two
 * reloads, and once whole is renamed to `<path>`. The tab reads a grown file's state
 * again (the view then shows the positions written since, as a notebook's viewer of a
 * growing episode does) and opens a finished one in the recording's place.
 *
 * Example:
 *   const change = changeOf(runs, "ppo/car.rollout.part", opened.version);
 *   if (change.kind === "finished") void tab.open(change.path, step);
 */
import type { Runs } from "./table.ts";

export type Change =
  | { kind: "same" }
  /** The file is at another version: it grew (or was written again). */
  | { kind: "changed" }
  /** The recording ended: its finished file is listed at `path`. */
  | { kind: "finished"; path: string }
  | { kind: "gone" };

const PART = ".part";

/** What the listing `runs` says of the file `path`, opened at `version`. */
export function changeOf(runs: Runs, path: string, version: string): Change {
  const rows = runs.runs.flatMap((run) => run.episodes);
  const row = rows.find((r) => r.path === path);
  if (row !== undefined) return row.version === version ? { kind: "same" } : { kind: "changed" };
  const finished = finishedPath(path);
  if (finished !== undefined && rows.some((r) => r.path === finished)) return { kind: "finished", path: finished };
  return { kind: "gone" };
}

/** The name a recording's `<path>.part` takes once whole; undefined for any other file. */
export function finishedPath(path: string): string | undefined {
  return path.endsWith(PART) ? path.slice(0, -PART.length) : undefined;
}
