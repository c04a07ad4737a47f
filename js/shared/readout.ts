/**
 * The text readout of the current position. Written with `textContent` only:
 * infos and action names come from user data and must never become HTML.
 */
import { formatNumber, roundedJson } from "./numbers.ts";
import type { Series } from "./series.ts";
import type { StepMeta } from "./types.ts";

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
}

const flag = (value: boolean | undefined): string => (value === undefined ? "-" : String(value));

export function formatReadout(f: ReadoutFields): string {
  return [
    `t = ${f.t} / ${f.T}`,
    `action: ${f.action}`,
    `reward: ${formatNumber(f.reward)}${f.reward !== undefined && !Number.isFinite(f.reward) ? " (not a finite number: left out of the return)" : ""}`,
    `return: ${formatNumber(f.return)}`,
    `terminated: ${flag(f.terminated)}  truncated: ${flag(f.truncated)}`,
    `info: ${f.infoLoaded ? roundedJson(f.info) : "…"}`,
  ].join("\n");
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
  };
}

/**
 * The readout of a position that is not an env step (a training snapshot): the
 * position, then its info's entries one a line (numbers rounded, null as "-"), so
 * that it says nothing of actions or rewards that are not there. "…" until the
 * position's chunk (which carries its info) arrives.
 */
export function formatInfoReadout(t: number, length: number, info: unknown, infoLoaded: boolean): string {
  const lines = [`position ${t} / ${Math.max(0, length - 1)}`];
  if (!infoLoaded) lines.push("…");
  else if (info !== null && typeof info === "object" && !Array.isArray(info)) {
    for (const [key, value] of Object.entries(info)) lines.push(`${key}: ${entryText(value)}`);
  } else if (info !== undefined) lines.push(entryText(info));
  return lines.join("\n");
}

function entryText(value: unknown): string {
  if (value === null) return "-";
  if (typeof value === "number") return formatNumber(value);
  return typeof value === "string" ? value : roundedJson(value);
}

export class Readout {
  readonly element: HTMLPreElement;

  constructor(parent: HTMLElement) {
    this.element = parent.appendChild(document.createElement("pre"));
    this.element.className = "aw-readout";
  }

  show(fields: ReadoutFields): void {
    this.element.textContent = formatReadout(fields);
  }

  /** Position `t`'s info alone (see `formatInfoReadout`). */
  showInfo(t: number, length: number, meta: StepMeta | undefined): void {
    this.element.textContent = formatInfoReadout(t, length, meta?.info, meta !== undefined);
  }
}
