import { describe, expect, it } from "vitest";
import { changeOf, finishedPath } from "./follow.ts";
import type { EpisodeRow, Runs } from "./table.ts";

const row = (path: string, version: string): EpisodeRow => ({ run: "live", path, file: path.slice(5), growing: path.endsWith(".part"), version });
const runs = (...rows: EpisodeRow[]): Runs => ({ runs: [{ run: "live", scalars: null, episodes: rows }] });

describe("what became of the episode shown", () => {
  it("is the same at the version it was opened at, changed at another", () => {
    const listed = runs(row("live/car.rollout.part", "10-1"));
    expect(changeOf(listed, "live/car.rollout.part", "10-1")).toEqual({ kind: "same" });
    expect(changeOf(listed, "live/car.rollout.part", "5-0")).toEqual({ kind: "changed" });
  });

  it("is finished when a recording's .part is gone and its whole file is listed", () => {
    expect(changeOf(runs(row("live/car.rollout", "20-2")), "live/car.rollout.part", "10-1")).toEqual({
      kind: "finished",
      path: "live/car.rollout",
    });
  });

  it("is gone when neither is listed, or a finished file is", () => {
    expect(changeOf(runs(), "live/car.rollout.part", "10-1")).toEqual({ kind: "gone" });
    expect(changeOf(runs(row("live/car", "1-1")), "live/car.rollout", "10-1")).toEqual({ kind: "gone" });
  });

  it("names a recording's finished file, and no other file's", () => {
    expect(finishedPath("a/b.rollout.part")).toBe("a/b.rollout");
    expect(finishedPath("a/b.rollout")).toBeUndefined();
  });
});
