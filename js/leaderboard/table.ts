/**
 * The leaderboard's rows: read from the kernel defensively, filtered by a query,
 * sorted by the chosen column, grouped by env by default (returns of different envs
 * do not compare: CartPole's 300 is not "above" FrozenLake's 0.65) or by algorithm or
 * not at all, formatted as text. The kernel's saved copy of the table
 * (agent_widget/library/_board_text.py) follows the same rules; table.cases.json
 * holds the cases both are tested against.
 */
import { commonDecimals, formatFixed, formatNumber } from "../shared/numbers.ts";

export interface Row {
  id: string;
  env_id: string;
  algorithm: string;
  run: string;
  episodes: number;
  return_mean: number | null;
  return_std: number | null;
  success_rate: number | null;
  steps: number;
  created: string;
  params: Record<string, unknown>;
  /** A multi-agent run's mean return per agent, by name ({} for one agent). */
  agent_returns: Record<string, number>;
  /** A run of games with a winner: each agent's count of wins, draws and losses, by name ({} else). */
  agent_outcomes: Record<string, Outcomes>;
}

/** An agent's wins, draws and losses over a run's games. */
export interface Outcomes {
  win: number;
  draw: number;
  loss: number;
}

type BaseKey = "run" | "env_id" | "algorithm" | "episodes" | "return_mean" | "success_rate" | "steps" | "created" | "params";
/**
 * A column of the table: one of the base columns, `agent:<name>`, an agent's mean
 * return, or `outcome:<name>`, its wins–draws–losses (sorted by its score, a draw half a win).
 */
export type SortKey = BaseKey | `agent:${string}` | `outcome:${string}`;

export interface Column {
  title: string;
  key: SortKey;
  numeric: boolean;
}

export interface Sort {
  key: SortKey;
  descending: boolean;
}

/** What rows are grouped by: nothing (one table in the sorted column's order), env or algorithm. */
export type GroupBy = "env" | "algorithm" | null;

export const GROUP_BY: readonly Exclude<GroupBy, null>[] = ["env", "algorithm"];

/** The `group_by` trait checked: anything but "env" or "algorithm" groups nothing. */
export function parseGroupBy(value: unknown): GroupBy {
  return GROUP_BY.find((g) => g === value) ?? null;
}

/** A group of rows and its name; `name` is null for the one group of an ungrouped table (no header row). */
export interface Group {
  name: string | null;
  rows: Row[];
}

/** The columns after the selection box: header text, what sorts them, whether they hold numbers (right-aligned). */
export const COLUMNS: readonly (Column & { key: BaseKey })[] = [
  { title: "run", key: "run", numeric: false },
  { title: "env", key: "env_id", numeric: false },
  { title: "algorithm", key: "algorithm", numeric: false },
  { title: "episodes", key: "episodes", numeric: true },
  { title: "return (mean ± std)", key: "return_mean", numeric: true },
  { title: "success", key: "success_rate", numeric: true },
  { title: "steps", key: "steps", numeric: true },
  { title: "date", key: "created", numeric: false },
  { title: "params", key: "params", numeric: false },
];

const text = (value: unknown): string => (typeof value === "string" ? value : "");
const number = (value: unknown): number | null => (typeof value === "number" && Number.isFinite(value) ? value : null);
const AGENT = "agent:";
const OUTCOME = "outcome:";

/**
 * The columns of `rows`: the base ones, and after the return a column per agent of the
 * multi-agent runs (names in order), so the table ranks runs by any one agent's return,
 * then one per agent of games with a winner, its wins–draws–losses.
 */
export function columnsOf(rows: readonly Row[]): Column[] {
  const names = (of: (row: Row) => object) => [...new Set(rows.flatMap((row) => Object.keys(of(row))))].sort();
  const after = COLUMNS.findIndex((column) => column.key === "return_mean") + 1;
  const perAgent = names((row) => row.agent_returns).map((agent): Column => ({ title: `return · ${agent}`, key: `${AGENT}${agent}`, numeric: true }));
  const outcomes = names((row) => row.agent_outcomes).map((agent): Column => ({ title: `W–D–L · ${agent}`, key: `${OUTCOME}${agent}`, numeric: true }));
  return [...COLUMNS.slice(0, after), ...perAgent, ...outcomes, ...COLUMNS.slice(after)];
}

/** The `agent_outcomes` of a row as read: counts by name, an agent with any count not a whole number ≥ 0 dropped. */
function agentOutcomes(value: unknown): Record<string, Outcomes> {
  if (typeof value !== "object" || value === null) return {};
  const count = (x: unknown) => (typeof x === "number" && Number.isInteger(x) && x >= 0 ? x : null);
  const read = Object.entries(value).map(([agent, counts]): [string, Outcomes | null] => {
    const c = typeof counts === "object" && counts !== null ? (counts as Record<string, unknown>) : {};
    const [win, draw, loss] = [count(c.win), count(c.draw), count(c.loss)];
    return [agent, win === null || draw === null || loss === null ? null : { win, draw, loss }];
  });
  return Object.fromEntries(read.filter((entry): entry is [string, Outcomes] => entry[1] !== null));
}

/** An agent's score: its share of the games won, a draw counting half (null without games). */
function score(outcomes: Outcomes | undefined): number | null {
  const games = outcomes === undefined ? 0 : outcomes.win + outcomes.draw + outcomes.loss;
  return outcomes === undefined || games === 0 ? null : (outcomes.win + outcomes.draw / 2) / games;
}

/** The `agent_returns` of a row as read: finite numbers by name, anything else dropped. */
function agentReturns(value: unknown): Record<string, number> {
  if (typeof value !== "object" || value === null) return {};
  const entries = Object.entries(value).map(([agent, total]) => [agent, number(total)] as const);
  return Object.fromEntries(entries.filter((entry): entry is readonly [string, number] => entry[1] !== null));
}

/** The `rows` trait as rows; entries without an id are dropped, odd fields read as missing. */
export function asRows(raw: unknown): Row[] {
  if (!Array.isArray(raw)) return [];
  return raw
    .filter((r): r is Record<string, unknown> => typeof r === "object" && r !== null && typeof r.id === "string")
    .map((r) => ({
      id: r.id as string,
      env_id: text(r.env_id),
      algorithm: text(r.algorithm),
      run: text(r.run),
      episodes: number(r.episodes) ?? 0,
      return_mean: number(r.return_mean),
      return_std: number(r.return_std),
      success_rate: number(r.success_rate),
      steps: number(r.steps) ?? 0,
      created: text(r.created),
      params: typeof r.params === "object" && r.params !== null ? (r.params as Record<string, unknown>) : {},
      agent_returns: agentReturns(r.agent_returns),
      agent_outcomes: agentOutcomes(r.agent_outcomes),
    }));
}

/** `alpha=0.1, layers=[64,64]`: the params as one line. */
export function paramsText(params: Record<string, unknown>): string {
  return Object.entries(params)
    .map(([key, value]) => `${key}=${typeof value === "number" ? formatNumber(value) : JSON.stringify(value)}`)
    .join(", ");
}

/** Every word of `query` appears (any case) in the row's env, algorithm, run or params. */
export function matches(row: Row, query: string): boolean {
  const haystack = [row.env_id, row.algorithm, row.run, paramsText(row.params)].join(" ").toLowerCase();
  return query
    .toLowerCase()
    .split(/\s+/)
    .every((word) => haystack.includes(word));
}

function sortValue(row: Row, key: SortKey): number | string | null {
  if (key.startsWith(AGENT)) return row.agent_returns[key.slice(AGENT.length)] ?? null;
  if (key.startsWith(OUTCOME)) return score(row.agent_outcomes[key.slice(OUTCOME.length)]);
  return key === "params" ? paramsText(row.params) : row[key as Exclude<BaseKey, "params">];
}

/** Order of two rows by `sort`; missing values (no success rate, say) always last. */
export function compareRows(a: Row, b: Row, sort: Sort): number {
  const x = sortValue(a, sort.key);
  const y = sortValue(b, sort.key);
  if (x === null || y === null) return x === y ? 0 : x === null ? 1 : -1;
  const order = typeof x === "number" && typeof y === "number" ? x - y : textOrder(String(x), String(y));
  return sort.descending ? -order : order;
}

/**
 * The rows matching `query` in `sort`'s order (ties by run), in one group, or in
 * groups by `groupBy` named alphabetically, each group keeping that order.
 */
export function groupRows(rows: readonly Row[], query: string, sort: Sort, groupBy: GroupBy): Group[] {
  const shown = rows.filter((row) => matches(row, query));
  shown.sort((a, b) => compareRows(a, b, sort) || textOrder(a.run, b.run));
  if (groupBy === null) return shown.length === 0 ? [] : [{ name: null, rows: shown }];
  const groups = new Map<string, Row[]>();
  for (const row of shown) {
    const name = groupBy === "env" ? row.env_id : row.algorithm;
    const members = groups.get(name);
    if (members === undefined) groups.set(name, [row]);
    else members.push(row);
  }
  return [...groups.entries()].sort(([a], [b]) => textOrder(a, b)).map(([name, members]) => ({ name, rows: members }));
}

/**
 * Text in order ignoring case, then by UTF-16 code units: not `localeCompare`, whose
 * order depends on the browser's locale data, so that Python can sort the same.
 */
export function textOrder(a: string, b: string): number {
  const [x, y] = [a.toLowerCase(), b.toLowerCase()];
  if (x !== y) return x < y ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The decimals each env's returns are printed with (means, stds and agents' returns
 * alike), from its mean returns (commonDecimals): CartPole's 187.4 and 500 as 187 and
 * 500, FrozenLake's 0.65 as 0.65, whatever else the table holds.
 */
export function returnDecimals(rows: readonly Row[]): Map<string, number> {
  const means = new Map<string, number[]>();
  for (const row of rows) {
    const values = [row.return_mean, ...Object.values(row.agent_returns)].filter((v): v is number => v !== null);
    means.set(row.env_id, [...(means.get(row.env_id) ?? []), ...values]);
  }
  return new Map([...means].map(([env, values]) => [env, commonDecimals(values)]));
}

/**
 * A rate as a whole percentage (0.745 -> "75%"), "-" for none; one that is neither 0
 * nor 1 never reads 0% or 100% (0.999 -> "99.9%", 0.0001 -> "<0.1%").
 */
export function percentText(rate: number | null): string {
  if (rate === null) return "-";
  const whole = Math.round(rate * 100);
  if ((whole !== 0 && whole !== 100) || rate === 0 || rate === 1) return `${whole}%`;
  const tenth = (rate * 100).toFixed(1);
  return tenth === "0.0" ? "<0.1%" : tenth === "100.0" ? ">99.9%" : `${tenth}%`;
}

/**
 * The text of each of `columns` (by default the base ones) of a row; its returns to
 * `decimals` (see `returnDecimals`), or as `formatNumber` prints them when not given.
 */
export function cellTexts(row: Row, decimals?: number, columns: readonly Column[] = COLUMNS): string[] {
  const number = (x: number | null | undefined) => (x === null || x === undefined ? "-" : formatFixed(x, decimals));
  const std = row.return_std === null ? "" : ` ± ${number(row.return_std)}`;
  const base: Record<BaseKey, string> = {
    run: row.run,
    env_id: row.env_id,
    algorithm: row.algorithm,
    episodes: String(row.episodes),
    return_mean: row.return_mean === null ? "-" : number(row.return_mean) + std,
    success_rate: percentText(row.success_rate),
    steps: row.steps.toLocaleString("en-US"),
    created: row.created.slice(0, 10),
    params: paramsText(row.params),
  };
  const outcomes = (o: Outcomes | undefined) => (o === undefined ? "-" : `${o.win}–${o.draw}–${o.loss}`);
  return columns.map(({ key }) => {
    if (key.startsWith(AGENT)) return number(row.agent_returns[key.slice(AGENT.length)]);
    if (key.startsWith(OUTCOME)) return outcomes(row.agent_outcomes[key.slice(OUTCOME.length)]);
    return base[key as BaseKey];
  });
}

/** A line of the table as text: a run's cells, or a group's header. */
export type TextLine = { id: string; cells: string[] } | { group: string };

/** The table as it reads: each column's header (the sorted one with its arrow), then its lines. */
export interface TableText {
  head: string[];
  lines: TextLine[];
}

/** The header of a column: its title, with ▼ or ▲ when the table is sorted by it. */
export function headerText(column: Column, sort: Sort): string {
  return column.key === sort.key ? `${column.title} ${sort.descending ? "▼" : "▲"}` : column.title;
}

/** What the table shows of `rows` filtered by `query`, in `sort`'s order, grouped by `groupBy`. */
export function tableText(rows: readonly Row[], query: string, sort: Sort, groupBy: GroupBy): TableText {
  const columns = columnsOf(rows);
  const decimals = returnDecimals(rows);
  const lines: TextLine[] = [];
  for (const group of groupRows(rows, query, sort, groupBy)) {
    if (group.name !== null) lines.push({ group: `${group.name} (${group.rows.length} run${group.rows.length === 1 ? "" : "s"})` });
    for (const row of group.rows) lines.push({ id: row.id, cells: cellTexts(row, decimals.get(row.env_id), columns) });
  }
  return { head: columns.map((column) => headerText(column, sort)), lines };
}

/**
 * The order the columns are shown in (indices into `columns`): as they are, or, where
 * the sorted column would be out of view (a narrow cell), the run's name, the sorted
 * column, then the others, so that the column the runs are ranked by shows without
 * scrolling (the saved table keeps its order).
 */
export function columnOrder(columns: readonly Column[], sort: Sort, sortedNext: boolean): number[] {
  const order = columns.map((_, i) => i);
  if (!sortedNext) return order;
  const first = [columns.findIndex((c) => c.key === "run"), columns.findIndex((c) => c.key === sort.key)];
  const lead = [...new Set(first.filter((i) => i >= 0))];
  return [...lead, ...order.filter((i) => !lead.includes(i))];
}

/** How the table is sorted until a header is clicked: best mean return first. */
export const DEFAULT_SORT: Sort = { key: "return_mean", descending: true };
