import { describe, expect, it } from "vitest";
import { infoReadoutRows, type ReadoutFields, type ReadoutRow, readoutFields, readoutRows } from "./readout.ts";
import type { StepMeta } from "./types.ts";
import type { Series } from "./series.ts";

const series = (over: Partial<Series> = {}): Series => ({
  rewards: Float64Array.from([0, 1, 0.5]),
  returns: Float64Array.from([0, 0, 1, 1.5]),
  terminated: Float64Array.from([0, 0, 1]),
  truncated: Float64Array.from([0, 0, 0]),
  actions: Float64Array.from([0, 2, 1]),
  extras: new Map(),
  ...over,
});

/** The rows as "key: value" lines, as a reader reads them (a tree as its JSON preview). */
const lines = (rows: ReadoutRow[]): string =>
  rows
    .map(({ key, value, note }) => `${key}: ${typeof value === "string" ? value : JSON.stringify(value)}${note === undefined ? "" : ` ${note}`}`)
    .join("\n");
const formatReadout = (fields: ReadoutFields): string => lines(readoutRows(fields));

describe("readoutRows", () => {
  it("has the contract's rows: t / T, action, reward, return, each flag, the info as it is", () => {
    const rows = readoutRows({
      t: 12,
      T: 200,
      action: "2 (RIGHT)",
      reward: 1,
      return: 5,
      terminated: false,
      truncated: false,
      info: { lives: 3 },
      infoLoaded: true,
    });
    expect(rows).toStrictEqual([
      { key: "t", value: "12 / 200" },
      { key: "action", value: "2 (RIGHT)", note: undefined },
      { key: "reward", value: "1", note: "(of action 12)" },
      { key: "return", value: "5", note: "(before action 12)" },
      { key: "terminated", value: "false", note: "(after action 12)" },
      { key: "truncated", value: "false", note: "(after action 12)" },
      { key: "info", value: { lives: 3 } },
    ]);
  });

  it("prints reward and return to one precision across the episode", () => {
    const rewards = Float64Array.from([0.036, 0.0454, 1]);
    const returns = Float64Array.from([0, 0.036, 0.0814, 1.0814]);
    const at = (t: number) => formatReadout(readoutFields(t, series({ rewards, returns }), { info: {} }, [], 4));
    expect(at(0)).toContain("reward: 0.0360 (of action 0)\nreturn: 0.0000 (before action 0)\n");
    expect(at(1)).toContain("reward: 0.0454 (of action 1)\nreturn: 0.0360 (before action 1)\n");
    expect(at(2)).toContain("reward: 1.0000 (of action 2)\nreturn: 0.0814 (before action 2)\n");
    expect(at(3)).toContain("reward: -\nreturn: 1.0814 (after action 2)\n");
  });

  it("prints integer rewards as integers", () => {
    expect(formatReadout(readoutFields(1, series({ rewards: Float64Array.from([1, 1, 1]), returns: Float64Array.from([0, 1, 2, 3]) }), { info: {} }, [], 4))).toContain(
      "reward: 1 (of action 1)\nreturn: 1 (before action 1)\n",
    );
  });


  it("says a NaN or infinite reward is not a number and not in the return", () => {
    const fields = { t: 3, T: 9, action: "0", return: 2, terminated: false, truncated: false, info: {}, infoLoaded: true };
    expect(formatReadout({ ...fields, reward: Number.NaN })).toContain(
      "reward: NaN (of action 3; not a finite number: left out of the return)\nreturn: 2",
    );
    expect(formatReadout({ ...fields, reward: Number.NEGATIVE_INFINITY })).toContain("reward: -Infinity (of action 3; not a finite");
    expect(formatReadout({ ...fields, reward: 0.5 })).toContain("reward: 0.5 (of action 3)\n");
    expect(formatReadout({ ...fields, reward: Number.NaN, decimals: { reward: 2, return: 2 } })).toContain("reward: NaN (of action 3; not");
  });

  it("shows an ellipsis for the info until the position's chunk has arrived", () => {
    expect(readoutRows(readoutFields(1, series(), undefined, [], 4)).at(-1)).toEqual({ key: "info", value: "…" });
  });
});

describe("readoutFields", () => {
  it("reads reward, return and flags of position t from the series", () => {
    const f = readoutFields(2, series(), { action: "1 (FIRE)", info: {} }, [], 4);
    expect(f).toMatchObject({ t: 2, T: 3, action: "1 (FIRE)", reward: 0.5, return: 1, terminated: true, truncated: false });
  });

  it("has no reward at the last position and tells how the episode ended", () => {
    const f = readoutFields(3, series(), { action: "", info: {} }, [], 4);
    expect(f).toMatchObject({ t: 3, T: 3, action: "", reward: undefined, return: 1.5, terminated: true });
    expect(formatReadout(f)).toContain(
      "action: - (none at the last position)\nreward: -\nreturn: 1.5 (after action 2)\nterminated: true (after action 2)\ntruncated: false (after action 2)",
    );
  });

  it("says the last action's reward is its own, and the return before it, not after", () => {
    // Position 2 shows the state before the last action, which earned 0.5 and ended the episode.
    expect(formatReadout(readoutFields(2, series(), { info: {} }, [], 4))).toContain(
      "reward: 0.5 (of action 2)\nreturn: 1.0 (before action 2)\nterminated: true (after action 2)",
    );
  });

  it("prefers the kernel's action text, else names the scalar action from the series", () => {
    expect(readoutFields(1, series(), { action: "[0.1, -0.3]", info: {} }, ["NOOP", "FIRE", "RIGHT"], 4).action).toBe(
      "[0.1, -0.3]",
    );
    expect(readoutFields(1, series(), undefined, ["NOOP", "FIRE", "RIGHT"], 4).action).toBe("2 (RIGHT)");
    expect(readoutFields(1, series(), { info: {} }, ["NOOP", "FIRE", "RIGHT"], 4).action).toBe("2 (RIGHT)");
    expect(readoutFields(3, series(), { info: {} }, ["NOOP", "FIRE", "RIGHT"], 4).action).toBe("");
    expect(readoutFields(1, series(), undefined, [], 4).action).toBe("2");
    expect(readoutFields(1, series({ actions: undefined }), undefined, [], 4).action).toBe("");
  });
});

describe("readoutFields of a long episode", () => {
  const empty = series({ rewards: new Float64Array(0), returns: new Float64Array(0), actions: undefined });
  const values = { steps: 50_000, reward: -1, return: 7, terminated: false, truncated: true, action: 2 };

  it("reads the values its chunk brought, the state holding only the timeline's summary", () => {
    const fields = readoutFields(40_000, empty, { info: {}, values }, ["NOOP", "FIRE", "RIGHT"], 50_001);
    expect(formatReadout(fields)).toBe(
      "t: 40000 / 50000\naction: 2 (RIGHT)\nreward: -1 (of action 40000)\nreturn: 7 (before action 40000)\n" +
        "terminated: false (after action 40000)\ntruncated: true (after action 40000)\ninfo: {}",
    );
  });

  it("shows no reward at the last position, where the kernel sends none", () => {
    const last = { ...values, reward: undefined, action: undefined, terminated: true, truncated: false };
    const fields = readoutFields(50_000, empty, { info: {}, values: last }, [], 50_001);
    expect(formatReadout(fields)).toBe(
      "t: 50000 / 50000\naction: - (none at the last position)\nreward: -\nreturn: 7 (after action 49999)\n" +
        "terminated: true (after action 49999)\ntruncated: false (after action 49999)\ninfo: {}",
    );
  });

  it("says a non-finite reward as the series would", () => {
    const fields = readoutFields(3, empty, { info: {}, values: { ...values, reward: Number.NaN } }, [], 50_001);
    expect(formatReadout(fields)).toContain("reward: NaN (of action 3; not a finite number: left out of the return)");
  });
});

describe("infoReadoutRows", () => {
  it("has the position and each info entry as it is", () => {
    const info = { episode: 811, "moving average": 0.33333333333333337, note: "ok", window: [1, 2] };
    expect(infoReadoutRows(12, 41, info, true)).toEqual([
      { key: "position", value: "12 / 40" },
      { key: "episode", value: 811 },
      { key: "moving average", value: 0.33333333333333337 },
      { key: "note", value: "ok" },
      { key: "window", value: [1, 2] },
    ]);
  });

  it("says nothing of actions, rewards or returns", () => {
    const text = lines(infoReadoutRows(3, 10, { episode: 2 }, true));
    expect(text).not.toMatch(/action|reward|return|terminated/);
  });

  it("waits for the position's info", () => {
    expect(lines(infoReadoutRows(3, 10, undefined, false))).toBe("position: 3 / 9\ninfo: …");
  });
});

describe("a multi-agent episode's readout", () => {
  const fields = (meta: StepMeta, t = 1) => readoutFields(t, series(), meta, [], 4);

  it("says who acted and, per agent present, its action, reward and return, in place of the action row", () => {
    const meta: StepMeta = {
      info: {},
      agents: {
        acting: "player_1",
        agents: [
          ["player_0", "", 0, 1, ""],
          ["player_1", "3", 1, 1.5, "0 3 4"],
        ],
      },
    };
    expect(formatReadout(fields(meta))).toBe(
      [
        "t: 1 / 3",
        "acted: player_1",
        "player_0: action - · reward 0.0 · return 1.0 (after action 1)",
        "player_1: action 3 · legal 0 3 4 · reward 1.0 · return 1.5 (after action 1)",
        "reward: 1.0 (of action 1)",
        "return: 0.0 (before action 1)",
        "terminated: false (after action 1)",
        "truncated: false (after action 1)",
        "info: {}",
      ].join("\n"),
    );
  });

  it("names no acting agent where all move at once, and writes a missing reward as -", () => {
    const meta: StepMeta = { info: {}, agents: { acting: null, agents: [["piston_0", "[0.25]", null, null, ""]] } };
    const rows = readoutRows(fields(meta));
    expect(rows.map((row) => row.key)).toEqual(["t", "piston_0", "reward", "return", "terminated", "truncated", "info"]);
    expect(rows[1].value).toBe("action [0.25] · reward - · return -");
  });
});
