import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { asRows, cellTexts, COLUMNS, columnOrder, columnsOf, compareRows, DEFAULT_SORT, type Group, groupRows, matches, paramsText, parseGroupBy, returnDecimals, type Row, tableText } from "./table.ts";

function row(fields: Partial<Row>): Row {
  return asRows([
    {
      id: `${fields.env_id ?? "E-v0"}/${fields.algorithm ?? "a"}/${fields.run ?? "r"}`,
      env_id: "E-v0",
      algorithm: "a",
      run: "r",
      episodes: 10,
      return_mean: 1,
      return_std: 0,
      success_rate: null,
      steps: 100,
      created: "2026-11-29T12:00:00+00:00",
      params: {},
      ...fields,
    },
  ])[0];
}

describe("asRows", () => {
  it("keeps rows with an id and reads odd fields as missing", () => {
    const rows = asRows([{ id: "x", return_mean: "high", params: null }, { run: "no id" }, 7]);
    expect(rows).toHaveLength(1);
    expect(rows[0].return_mean).toBeNull();
    expect(rows[0].params).toEqual({});
  });

  it("reads anything but a list as no rows", () => {
    expect(asRows({ id: "x" })).toEqual([]);
  });
});

describe("paramsText / matches", () => {
  it("writes the params on one line", () => {
    expect(paramsText({ alpha: 0.1, layers: [64, 64], name: "big" })).toBe('alpha=0.1, layers=[64,64], name="big"');
  });

  it("matches when every word appears in the env, algorithm, run or params, in any case", () => {
    const r = row({ env_id: "CartPole-v1", algorithm: "dqn", run: "seed3", params: { lr: 0.001 } });
    expect(matches(r, "")).toBe(true);
    expect(matches(r, "cartpole DQN")).toBe(true);
    expect(matches(r, "lr=0.001")).toBe(true);
    expect(matches(r, "dqn ppo")).toBe(false);
  });
});

describe("compareRows", () => {
  it("sorts numbers both ways and puts missing values last either way", () => {
    const [hi, lo, none] = [row({ success_rate: 0.9 }), row({ success_rate: 0.1 }), row({ success_rate: null })];
    const asc = [none, hi, lo].sort((a, b) => compareRows(a, b, { key: "success_rate", descending: false }));
    const desc = [none, lo, hi].sort((a, b) => compareRows(a, b, { key: "success_rate", descending: true }));
    expect(asc).toEqual([lo, hi, none]);
    expect(desc).toEqual([hi, lo, none]);
  });
});

describe("groupRows", () => {
  const rows = [
    row({ env_id: "B-v0", algorithm: "x", run: "1", return_mean: 150 }),
    row({ env_id: "A-v0", algorithm: "y", run: "2", return_mean: 9 }),
    row({ env_id: "A-v0", algorithm: "x", run: "3", return_mean: 16 }),
    row({ env_id: "A-v0", algorithm: "x", run: "4", return_mean: 200 }),
  ];
  const best = { key: "return_mean", descending: true } as const;
  const runs = (groups: Group[]) => groups.map((g) => [g.name, g.rows.map((r) => r.run)]);

  it("ungrouped, follows the sorted column across the whole table", () => {
    expect(runs(groupRows(rows, "", best, null))).toEqual([[null, ["4", "1", "3", "2"]]]);
  });

  it("grouped by env or algorithm, names the groups alphabetically and keeps the order in each", () => {
    expect(runs(groupRows(rows, "", best, "env"))).toEqual([
      ["A-v0", ["4", "3", "2"]],
      ["B-v0", ["1"]],
    ]);
    expect(runs(groupRows(rows, "", best, "algorithm"))).toEqual([
      ["x", ["4", "1", "3"]],
      ["y", ["2"]],
    ]);
  });

  it("leaves out the rows the filter does not match, and then empty groups", () => {
    expect(runs(groupRows(rows, "y", best, "algorithm"))).toEqual([["y", ["2"]]]);
    expect(groupRows(rows, "nothing", best, null)).toEqual([]);
  });
});

describe("parseGroupBy", () => {
  it("reads env and algorithm, and anything else as no grouping", () => {
    expect(["env", "algorithm", null, "run", 3].map(parseGroupBy)).toEqual(["env", "algorithm", null, null, null]);
  });
});

describe("cellTexts", () => {
  it("formats a row for the table", () => {
    const r = row({ run: "alpha0.1", return_mean: 0.74, return_std: 0.1234567, success_rate: 0.745, steps: 12345 });
    expect(cellTexts(r)).toEqual(["alpha0.1", "E-v0", "a", "10", "0.74 ± 0.1235", "75%", "12,345", "2026-11-29", ""]);
  });

  it("prints an env's returns to the same decimals, so its column lines up", () => {
    const rows = [row({ return_mean: 14.66666666, return_std: 14.72714 }), row({ return_mean: 98, return_std: 9.79796 })];
    const decimals = returnDecimals(rows).get("E-v0");
    expect(rows.map((r) => cellTexts(r, decimals)[4])).toEqual(["14.7 ± 14.7", "98.0 ± 9.8"]);
  });

  it("prints integer returns as integers", () => {
    const rows = [row({ return_mean: 19, return_std: 0 }), row({ return_mean: 200, return_std: 3 })];
    expect(rows.map((r) => cellTexts(r, returnDecimals(rows).get("E-v0"))[4])).toEqual(["19 ± 0", "200 ± 3"]);
  });

  it("gives each env the decimals of its own returns", () => {
    const rows = [row({ env_id: "CartPole-v1", return_mean: 300 }), row({ env_id: "FrozenLake-v1", return_mean: 0.65 })];
    expect([...returnDecimals(rows)]).toEqual([
      ["CartPole-v1", 0],
      ["FrozenLake-v1", 2],
    ]);
  });

  it("shows a dash for what a run does not have", () => {
    expect(cellTexts(row({ return_mean: null, return_std: null }))[4]).toBe("-");
    expect(cellTexts(row({ success_rate: null }))[5]).toBe("-");
  });
});

describe("a multi-agent run's returns per agent", () => {
  const duel = (run: string, agent_returns: Record<string, unknown>) => row({ run, agent_returns } as Partial<Row>);

  it("adds a column per agent after the return, and ranks runs by one agent's", () => {
    const rows = [duel("a", { player_0: 0.5, player_1: -0.5 }), duel("b", { player_0: -1, player_1: 1 }), row({ run: "solo" })];
    const columns = columnsOf(rows);
    expect(columns.map((c) => c.title).slice(3, 8)).toEqual(["episodes", "return (mean ± std)", "return · player_0", "return · player_1", "success"]);
    const byPlayer1 = groupRows(rows, "", { key: "agent:player_1", descending: true }, null)[0].rows.map((r) => r.run);
    expect(byPlayer1).toEqual(["b", "a", "solo"]); // a run without agents last
    expect(cellTexts(rows[1], 1, columns).slice(4, 7)).toEqual(["1.0 ± 0.0", "-1.0", "1.0"]);
    expect(cellTexts(rows[2], 1, columns).slice(5, 7)).toEqual(["-", "-"]);
  });

  it("reads odd per-agent values as missing and adds no column without agents", () => {
    expect(duel("a", { player_0: "high", player_1: 2 }).agent_returns).toEqual({ player_1: 2 });
    expect(columnsOf([row({})]).map((c) => c.key)).not.toContain("agent:player_0");
    expect(columnsOf([row({})])).toHaveLength(9);
  });
});

describe("a run of games with a winner: each agent's wins, draws and losses", () => {
  const games = (run: string, agent_outcomes: Record<string, unknown>) => row({ run, return_mean: null, return_std: null, agent_returns: { p0: 0, p1: 0 }, agent_outcomes } as Partial<Row>);

  it("adds a W–D–L column per agent after the returns, and ranks runs by an agent's score", () => {
    const rows = [games("even", { p0: { win: 1, draw: 2, loss: 1 }, p1: { win: 1, draw: 2, loss: 1 } }), games("strong", { p0: { win: 3, draw: 0, loss: 1 }, p1: { win: 1, draw: 0, loss: 3 } }), row({ run: "solo" })];
    const columns = columnsOf(rows);
    expect(columns.map((c) => c.title).slice(4, 9)).toEqual(["return (mean ± std)", "return · p0", "return · p1", "W–D–L · p0", "W–D–L · p1"]);
    const byP0 = groupRows(rows, "", { key: "outcome:p0", descending: true }, null)[0].rows.map((r) => r.run);
    expect(byP0).toEqual(["strong", "even", "solo"]); // 0.75 above 0.5 (a draw half a win); none last
    expect(cellTexts(rows[1], 0, columns).slice(4, 9)).toEqual(["-", "0", "0", "3–0–1", "1–0–3"]);
    expect(cellTexts(rows[2], 0, columns).slice(7, 9)).toEqual(["-", "-"]);
  });

  it("drops an agent whose counts are not whole numbers", () => {
    expect(games("odd", { p0: { win: 1, draw: 0, loss: "x" }, p1: { win: 1, draw: 0, loss: 0 } }).agent_outcomes).toEqual({ p1: { win: 1, draw: 0, loss: 0 } });
  });
});

describe("the table's text, as the kernel's saved copy writes it too", () => {
  // The same cases test agent_widget/library/_board_text.py (tests/library/test_board_text.py).
  const cases = JSON.parse(readFileSync(new URL("./table.cases.json", import.meta.url), "utf8")) as {
    name: string;
    rows: unknown;
    group_by: unknown;
    head: string[];
    lines: (string[] | { group: string })[];
  }[];

  it.each(cases.map((c) => [c.name, c] as const))("%s", (_name, c) => {
    const text = tableText(asRows(c.rows), "", DEFAULT_SORT, parseGroupBy(c.group_by));
    expect(text.head).toEqual(c.head);
    expect(text.lines.map((line) => ("group" in line ? { group: line.group } : line.cells))).toEqual(c.lines);
  });

  it("ranks each env's runs within its group and prints each env's returns to its own decimals", () => {
    const [cartpole, lake] = [row({ env_id: "CartPole-v1", run: "c", return_mean: 300, return_std: 0 }), row({ env_id: "FrozenLake-v1", run: "f", return_mean: 0.65, return_std: 0.25 })];
    const { lines } = tableText([lake, cartpole], "", DEFAULT_SORT, "env");
    expect(lines.map((line) => ("group" in line ? line.group : line.cells[4]))).toEqual(["CartPole-v1 (1 run)", "300 ± 0", "FrozenLake-v1 (1 run)", "0.65 ± 0.25"]);
  });
});

describe("columnOrder", () => {
  const columns = COLUMNS.map((c) => ({ ...c }));
  const keys = (order: number[]) => order.map((i) => columns[i].key);

  it("keeps the table's order where the sorted column fits", () => {
    expect(keys(columnOrder(columns, { key: "steps", descending: true }, false))).toEqual(COLUMNS.map((c) => c.key));
  });

  it("shows the sorted column next to the run's name where it would be out of view", () => {
    expect(keys(columnOrder(columns, { key: "steps", descending: true }, true)).slice(0, 3)).toEqual(["run", "steps", "env_id"]);
    expect(keys(columnOrder(columns, { key: "run", descending: false }, true))).toEqual(COLUMNS.map((c) => c.key));
  });
});
