// The table's DOM (text only, header clicks) is checked in Chromium: tests/tensorboard/test_agent_tab.py.
import { describe, expect, it } from "vitest";
import { cellText, type EpisodeRow, sortedRows } from "./table.ts";

const row = (file: string, values: Partial<EpisodeRow> = {}): EpisodeRow => ({
  run: "dqn",
  path: `dqn/${file}`,
  file,
  growing: false,
  version: "1-1",
  ...values,
});

describe("the episodes' table", () => {
  it("sorts numbers as numbers, blanks last both ways", () => {
    const rows = [row("a", { return: 10 }), row("b", { return: null }), row("c", { return: 9 }), row("d", { return: -2 })];
    expect(sortedRows(rows, "return").map((r) => r.file)).toEqual(["d", "c", "a", "b"]);
    expect(sortedRows(rows, "return", true).map((r) => r.file)).toEqual(["a", "c", "d", "b"]);
  });

  it("sorts text with the numbers in it as numbers", () => {
    const files = [row("episode-10.rollout"), row("episode-9.rollout")];
    expect(sortedRows(files, "file").map((r) => r.file)).toEqual(["episode-9.rollout", "episode-10.rollout"]);
  });

  it("writes returns to 6 significant digits, a growing file as recording, blanks empty", () => {
    expect(cellText(row("a", { return: 1 / 3 }), "return")).toBe("0.333333");
    expect(cellText(row("a.rollout.part", { growing: true }), "file")).toBe("a.rollout.part (recording)");
    expect(cellText(row("a", { seed: null }), "seed")).toBe("");
  });
});
