/**
 * The readout of the current position: key-value rows (a definition list laid out as
 * two columns), the info dict as a tree that opens (`<details>`) with a one-line
 * preview. Written with `textContent` only: infos and action names come from user
 * data and must never become HTML. Reward and return are printed to one precision
 * across the episode (`commonDecimals` of their series), so that stepping never
 * changes the number of decimals (0.036 beside 0.0454).
 *
 * Position t shows the state before action t, and its reward is what action t earned:
 * each value says which it is ("1 (of action 3)", "0 (before action 3)", "true (after
 * action 3)"), so a reward is never read as the state's. The last position took no
 * action: no reward, and the return and end flags are those after the action before it.
 */
import { el } from "./dom.ts";
import { formatFixed, formatNumber, roundedJson, seriesDecimals } from "./numbers.ts";
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

/**
 * A row of the readout: a key and its value, text or an object drawn as a tree (an
 * info), and a note after the value saying whose it is ("(of action 3)").
 */
export interface ReadoutRow {
  key: string;
  value: unknown;
  note?: string;
}

const flag = (value: boolean | undefined): string => (value === undefined ? "-" : String(value));

/**
 * The rows of an env step: t / T, action, reward, return, how it ended, its info. In a
 * multi-agent episode the action row gives way to who acted and a row per agent present
 * (its action, reward and return); reward and return are then the agents' sums.
 */
export function readoutRows(f: ReadoutFields): ReadoutRow[] {
  const acted = f.t < f.T;
  const notFinite = f.reward !== undefined && !Number.isFinite(f.reward) ? "; not a finite number: left out of the return" : "";
  const after = stepAfter(f.t, f.T);
  // A value the episode does not have (frames alone have no rewards) has no note.
  const when = (value: unknown, note: string | undefined) => (value === undefined || note === undefined ? undefined : `(${note})`);
  const action: ReadoutRow = { key: "action", value: f.action === "" ? "-" : f.action, note: acted ? undefined : "(none at the last position)" };
  return [
    { key: "t", value: `${f.t} / ${f.T}` },
    ...(f.agents === undefined ? [action] : agentRows(f.agents, f.decimals, f.t)),
    { key: "reward", value: formatFixed(f.reward, f.decimals?.reward), note: when(acted ? f.reward : undefined, `of action ${f.t}${notFinite}`) },
    { key: "return", value: formatFixed(f.return, f.decimals?.return), note: when(f.return, acted ? `before action ${f.t}` : after) },
    { key: "terminated", value: flag(f.terminated), note: when(f.terminated, after) },
    { key: "truncated", value: flag(f.truncated), note: when(f.truncated, after) },
    { key: "info", value: f.infoLoaded ? f.info : "…" },
  ];
}

/** The step whose end flags position `t` of `T` shows: its own action's, the last one's at the last position. */
function stepAfter(t: number, T: number): string | undefined {
  const step = Math.min(t, T - 1);
  return step < 0 ? undefined : `after action ${step}`;
}

/**
 * Who acted (turn-taking envs), then each agent present at position `t`: "action 3 ·
 * reward 1 · return 2", and "· legal 0 3 4" where the env gives action masks; each
 * agent's return is after action `t` (its reward in it), which the note says.
 */
export function agentRows(step: AgentStep, decimals: ReadoutFields["decimals"], t: number): ReadoutRow[] {
  const rows: ReadoutRow[] = step.acting === null ? [] : [{ key: "acted", value: step.acting }];
  for (const [name, action, reward, total, legal] of step.agents) {
    const number = (x: number | null, d: number | undefined) => (x === null ? "-" : formatFixed(x, d));
    const moves = legal === "" ? "" : ` · legal ${legal}`;
    const value = `action ${action === "" ? "-" : action}${moves} · reward ${number(reward, decimals?.reward)} · return ${number(total, decimals?.return)}`;
    rows.push({ key: name, value, note: total === null ? undefined : `(after action ${t})` });
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
  const decimals = series.rewards.length > 0 ? { reward: seriesDecimals(series.rewards), return: seriesDecimals(series.returns) } : undefined;
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
    for (const row of rows) list.append(this.row(row.key, row.value, row.key, row.note));
    this.element.replaceChildren(list);
  }

  /** A key and its value: text (then its note, muted), or a branch that opens on the value's entries. */
  private row(key: string, value: unknown, path: string, note?: string): HTMLDivElement {
    const row = el("div", "aw-readout-row");
    row.appendChild(el("dt", "")).textContent = key;
    const cell = row.appendChild(el("dd", ""));
    const entries = value === null || typeof value !== "object" ? [] : Object.entries(value);
    if (entries.length === 0) cell.textContent = leafText(value);
    else cell.appendChild(this.branch(value, entries, path));
    if (note !== undefined) {
      const muted = el("span", "aw-readout-note");
      muted.textContent = note;
      cell.append(" ", muted);
    }
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
