/**
 * The "What if…" bar of a comparison made by `what_if()`: at the shared step, pick an
 * action (or every other one) and ask the kernel for the branches; it says how far
 * they are and what went wrong, and can cancel. The kernel adds each branch to the
 * comparison as it finishes (a new column), so nothing here waits for it.
 */
import { button, el } from "../shared/dom.ts";
import type { Model } from "../shared/types.ts";

/** The `what_if` trait: what the kernel says of the bar. */
export interface WhatIfState {
  actions: string[];
  busy: boolean;
  done: number;
  total: number;
  status: string;
}

export const EVERY = "every";

/**
 * The trait's value checked, or null when the comparison has no bar: only `what_if()`
 * offers actions, and a bar with nothing to pick would promise a branching that was
 * never asked for (an empty `{}` from an older kernel included).
 */
export function parseState(value: unknown): WhatIfState | null {
  if (value === null || typeof value !== "object") return null;
  const v = value as Record<string, unknown>;
  if (!Array.isArray(v.actions) || v.actions.length === 0) return null;
  const actions = v.actions.map(String);
  const count = (x: unknown): number => (typeof x === "number" && Number.isFinite(x) ? x : 0);
  return { actions, busy: v.busy === true, done: count(v.done), total: count(v.total), status: String(v.status ?? "") };
}

/** An action as the bar offers it: its name and index, or the index alone when the
 * env names its actions by number (a board game's columns: "3", not "3 (3)"); the
 * action the episode took at the step says so, since branching on it gives the episode back. */
export function optionLabel(name: string, index: number, taken: number | null = null): string {
  const label = name === String(index) ? name : `${name} (${index})`;
  return index === taken ? `${label}, taken` : label;
}

/**
 * The choice the bar shows at a step where the episode took action `taken` (null: none
 * known, or the last position): the one picked (`current`) unless it is the action
 * taken, then the next action in the space, so that "Branch" never asks for the episode
 * itself unless the user picks it at that step.
 */
export function defaultChoice(current: string, taken: number | null, count: number): string {
  if (taken === null || count < 2 || current !== String(taken)) return current;
  return String((taken + 1) % count);
}

/** The message asking for the branches at `step` on `choice` (an action's index, or "every"). */
export function request(step: number, choice: string): { type: string; step: number; action: number | string } {
  return { type: "what-if", step, action: choice === EVERY ? EVERY : Number(choice) };
}

export class WhatIfBar {
  readonly element: HTMLDivElement;
  private readonly stepLabel: HTMLSpanElement;
  private readonly select: HTMLSelectElement;
  private readonly go: HTMLButtonElement;
  private readonly cancel: HTMLButtonElement;
  private readonly progress: HTMLProgressElement;
  private readonly status: HTMLSpanElement;
  private step = 0;
  /** The action the episode took at the step, where known. */
  private taken: number | null = null;
  /** The actions offered, and their JSON (to tell when the kernel offers others). */
  private actions: string[] = [];
  private shownActions = "";

  constructor(
    parent: HTMLElement,
    private readonly model: Model,
  ) {
    this.element = parent.appendChild(el("div", "aw-what-if"));
    const label = this.element.appendChild(el("label", "aw-what-if-label"));
    label.append("What if at ");
    this.stepLabel = label.appendChild(el("span", "aw-what-if-step"));
    label.append(" the agent took ");
    this.select = label.appendChild(el("select", "aw-what-if-action"));
    this.go = this.element.appendChild(button("aw-what-if-go", "Branch", "Compute the branch from this step"));
    this.cancel = this.element.appendChild(button("aw-what-if-cancel", "Cancel", "Stop computing branches"));
    this.progress = this.element.appendChild(el("progress", "aw-what-if-progress"));
    this.status = this.element.appendChild(el("span", "aw-what-if-status"));
    this.status.setAttribute("role", "status");
    this.go.addEventListener("click", () => this.model.send(request(this.step, this.select.value)));
    this.cancel.addEventListener("click", () => this.model.send({ type: "what-if-cancel" }));
    this.setStep(0, null);
  }

  /** The shared step, and the action the episode took there (null: none known, or the last position). */
  setStep(t: number, taken: number | null): void {
    this.step = t;
    this.taken = taken;
    this.stepLabel.textContent = `t = ${t}`;
    this.markTaken();
  }

  /** Marks the action taken among the options (`data-taken`) and moves the choice off it. */
  private markTaken(): void {
    this.actions.forEach((name, i) => {
      const option = this.select.options[i];
      option.text = optionLabel(name, i, this.taken);
      option.toggleAttribute("data-taken", i === this.taken);
    });
    this.select.value = defaultChoice(this.select.value, this.taken, this.actions.length);
  }

  show(state: WhatIfState | null): void {
    this.element.hidden = state === null;
    if (state === null) return;
    const actions = JSON.stringify(state.actions);
    if (actions !== this.shownActions) {
      this.shownActions = actions;
      this.actions = state.actions;
      this.select.replaceChildren(
        ...state.actions.map((name, i) => new Option(optionLabel(name, i), String(i))),
        new Option("every other action", EVERY),
      );
      this.markTaken();
    }
    this.element.dataset.busy = String(state.busy);
    this.go.disabled = state.busy;
    this.cancel.hidden = !state.busy;
    this.progress.hidden = !state.busy;
    this.progress.max = Math.max(1, state.total);
    this.progress.value = state.done;
    this.status.textContent = state.status; // text, never markup
  }
}
