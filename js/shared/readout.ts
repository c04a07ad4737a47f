/**
 * The readout of the current position: key-value rows (a definition list laid out as
 * two columns), the info dict as a tree that opens (`<details>`) with a one-line
 * preview. Written with `textContent` only: infos and action names come from user
 * data and must never become HTML. Reward and return are printed to one precision
 * across the episode (`commonDecimals` of their series), so that stepping never
 * changes the number of decimals (0.036 beside 0.0454).
 */
import { el } from "./dom.ts";
import { commonDecimals, formatNumber, roundedJson } from "./numbers.ts";
import type { Series } from "./series.ts";
import type { AgentStep, StepMeta } from "./types.ts";

export interface ReadoutFields {
  t: number;
  /** Number of actions in the episode. */
  T: number;
  action: string;
  /** Undefined at a position without an action (the last one). */
  reward: number | undefined;
  return: number | undefined;
  terminated: boolean | undefined;
  truncated: boolean | undefined;
  info: unknown;
  /** False while the position's chunk (which carries its info) has not arrived. */
  infoLoaded: boolean;
  /** The decimals of the reward and return across the episode, where its series are known. */
  decimals?: { reward: number; return: number };
  /** A multi-agent episode's step per agent, once the position's chunk has arrived. */
  agents?: AgentStep;
}

/** A row of the readout: a key and its value, text or an object drawn as a tree (an info). */
export interface ReadoutRow {
  key: string;
  value: unknown;
}

const flag = (value: boolean | undefined): string => (value === undefined ? "-" : String(value));

function fixed(x: number | undefined, decimals: number | undefined): string {
  if (x === undefined || decimals === undefined || !Number.isFinite(x)) return formatNumber(x);
  return x.toFixed(decimals);
}

/**
 * The rows of an env step: t / T, action, reward, return, how it ended, its info. In a
 * multi-agent episode the action row gives way to who acted and a row per agent present
 * (its action, reward and return); reward and return are then the agents' sums.
 */
export function readoutRows(f: ReadoutFields): ReadoutRow[] {
  const nonFinite = f.reward !== undefined && !Number.isFinite(f.reward);
  const actions = f.agents === undefined ? [{ key: "action", value: f.action === "" ? "-" : f.action }] : agentRows(f.agents, f.decimals);
  return [
    { key: "t", value: `${f.t} / ${f.T}` },
    ...actions,
    { key: "reward", value: `${fixed(f.reward, f.decimals?.reward)}${nonFinite ? " (not a finite number: left out of the return)" : ""}` },
    { key: "return", value: fixed(f.return, f.decimals?.return) },
    { key: "terminated", value: flag(f.terminated) },
    { key: "truncated", value: flag(f.truncated) },
    { key: "info", value: f.infoLoaded ? f.info : "…" },
  ];
}

/** Who acted (turn-taking envs), then each agent present: "action 3 · reward 1 · return 2", and "· legal 0 3 4" where the env gives action masks. */
export function agentRows(step: AgentStep, decimals: ReadoutFields["decimals"]): ReadoutRow[] {
  const rows: ReadoutRow[] = step.acting === null ? [] : [{ key: "acted", value: step.acting }];
  for (const [name, action, reward, total, legal] of step.agents) {
    const number = (x: number | null, d: number | undefined) => (x === null ? "-" : fixed(x, d));
    const moves = legal === "" ? "" : ` · legal ${legal}`;
    const value = `action ${action === "" ? "-" : action}${moves} · reward ${number(reward, decimals?.reward)} · return ${number(total, decimals?.return)}`;
    rows.push({ key: name, value });
  }
  return rows;
}

/**
 * The action text: a scalar action from the `actions` series, with its name;
 * the kernel's text for the others (vectors), once the chunk has arrived.
 */
export function actionText(t: number, meta: StepMeta | undefined, series: Series, names: readonly string[]): string {
  if (meta?.action !== undefined) return meta.action;
  const actions = series.actions;
  if (actions === undefined || t >= actions.length) return namedAction(meta?.values?.action, names);
  return namedAction(actions[t], names);
}

/** A scalar action with its name, when it has one; "" for none. */
function namedAction(a: number | undefined, names: readonly string[]): string {
  if (a === undefined) return "";
  const name = Number.isInteger(a) ? names[a] : undefined;
  return name === undefined ? formatNumber(a) : `${formatNumber(a)} (${name})`;
}

/**
 * Everything the readout shows at position `t`. At the last position (no action)
 * reward is "-" and terminated/truncated tell how the episode ended.
 */
export function readoutFields(
  t: number,
  series: Series,
  meta: StepMeta | undefined,
  names: readonly string[],
  length: number,
): ReadoutFields {
  const values = meta?.values;
  if (values !== undefined) {
    // A long episode: its state holds a summary, and each position's values come with its chunk.
    const { steps: T, reward, terminated, truncated } = values;
    return { t, T, action: actionText(t, meta, series, names), reward, return: values.return, terminated, truncated, info: meta?.info, infoLoaded: true };
  }
  const T = series.rewards.length > 0 ? series.rewards.length : Math.max(0, length - 1);
  const decimals = series.rewards.length > 0 ? { reward: columnDecimals(series.rewards), return: columnDecimals(series.returns) } : undefined;
  const outcome = Math.min(t, T - 1);
  const bool = (values: Float64Array) => (outcome >= 0 && outcome < values.length ? values[outcome] !== 0 : undefined);
  return {
    t,
    T,
    action: actionText(t, meta, series, names),
    reward: t < series.rewards.length ? series.rewards[t] : undefined,
    return: t < series.returns.length ? series.returns[t] : undefined,
    terminated: bool(series.terminated),
    truncated: bool(series.truncated),
    info: meta?.info,
    infoLoaded: meta !== undefined,
    decimals,
    agents: meta?.agents,
  };
}

/** Each series' decimals, worked out once (a series is replaced, never changed, when it grows). */
const decimalsOf = new WeakMap<Float64Array, number>();

function columnDecimals(values: Float64Array): number {
  let decimals = decimalsOf.get(values);
  if (decimals === undefined) decimalsOf.set(values, (decimals = commonDecimals(values)));
  return decimals;
}

/**
 * The rows of a position that is not an env step (a training snapshot): the position,
 * then its info's entries (numbers rounded, null as "-"), so that it says nothing of
 * actions or rewards that are not there. "…" until the position's chunk (which carries
 * its info) arrives.
 */
export function infoReadoutRows(t: number, length: number, info: unknown, infoLoaded: boolean): ReadoutRow[] {
  const rows: ReadoutRow[] = [{ key: "position", value: `${t} / ${Math.max(0, length - 1)}` }];
  if (!infoLoaded) rows.push({ key: "info", value: "…" });
  else if (isRecord(info)) rows.push(...Object.entries(info).map(([key, value]) => ({ key, value })));
  else if (info !== undefined) rows.push({ key: "info", value: info });
  return rows;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value);

/** A leaf of the tree as text: numbers rounded, strings as they are, null as "-". */
function leafText(value: unknown): string {
  if (value === null || value === undefined) return "-";
  if (typeof value === "number") return formatNumber(value);
  return typeof value === "string" ? value : roundedJson(value);
}

export class Readout {
  readonly element: HTMLDivElement;
  /** The paths of the tree's branches the user opened: kept open from step to step. */
  private readonly opened = new Set<string>();

  constructor(parent: HTMLElement) {
    this.element = parent.appendChild(el("div", "aw-readout"));
  }

  show(fields: ReadoutFields): void {
    this.draw(readoutRows(fields));
  }

  /** Position `t`'s info alone (see `infoReadoutRows`). */
  showInfo(t: number, length: number, meta: StepMeta | undefined): void {
    this.draw(infoReadoutRows(t, length, meta?.info, meta !== undefined));
  }

  private draw(rows: ReadoutRow[]): void {
    const list = el("dl", "aw-readout-rows");
    for (const row of rows) list.append(this.row(row.key, row.value, row.key));
    this.element.replaceChildren(list);
  }

  /** A key and its value: text, or a branch that opens on the value's entries. */
  private row(key: string, value: unknown, path: string): HTMLDivElement {
    const row = el("div", "aw-readout-row");
    row.appendChild(el("dt", "")).textContent = key;
    const cell = row.appendChild(el("dd", ""));
    const entries = value === null || typeof value !== "object" ? [] : Object.entries(value);
    if (entries.length === 0) cell.textContent = leafText(value);
    else cell.appendChild(this.branch(value, entries, path));
    return row;
  }

  private branch(value: unknown, entries: [string, unknown][], path: string): HTMLDetailsElement {
    const details = el("details", "aw-tree");
    details.open = this.opened.has(path);
    details.addEventListener("toggle", () => (details.open ? this.opened.add(path) : this.opened.delete(path)));
    details.appendChild(el("summary", "aw-tree-preview")).textContent = roundedJson(value);
    const list = details.appendChild(el("dl", "aw-readout-rows"));
    for (const [key, item] of entries) list.append(this.row(key, item, `${path}.${key}`));
    return details;
  }
}
