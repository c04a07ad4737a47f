/**
 * Which panel cards to ask the kernel for, and which card each panel shows.
 *
 * Each panel has at most one request in flight: a new step is asked for only
 * once the previous answer arrived (or was given up), so a slow panel is asked
 * for the newest step at the rate it sustains, and the kernel never queues up
 * steps the user has left. One exception keeps a fast panel from waiting on a
 * slow one twice: a request the kernel says it has queued (not started: it
 * waits behind another panel's call) is asked again for the newest step, at
 * most every `reaskMs`; the kernel replaces the queued one (answering it
 * "skipped"), so when the running call returns, the worker computes the step
 * the user is on. Answers are kept in a byte-bounded cache, so going
 * back to a recent step shows its card at once. A card shows the newest answer
 * it has; the view dims it while that answer is for another step, so an old
 * step's result is never taken for the current one's.
 *
 * Pure logic (no DOM): the cards module draws what this decides.
 */
import { ByteLRU } from "../frames/cache.ts";

export type CardKind = "bars" | "image" | "heatmap" | "text" | "empty" | "error";

/** A panel as the `panels` trait describes it. */
export interface PanelSpec {
  name: string;
  overlay: boolean;
  precompute: boolean;
  /** Changes when the panel's function is replaced: its old cards are void. */
  version: number;
}

/** One panel's result for one step, as the kernel sent it. */
export interface CardData {
  name: string;
  step: number;
  version: number;
  kind: CardKind;
  /** The message's other fields (labels, min, max, text, error, ...). */
  meta: Record<string, unknown>;
  buffers: Uint8Array[];
}

export interface Progress {
  done: number;
  total: number;
}

export interface PanelStateOptions {
  /** Sends one request for `names` at `step`. */
  request(step: number, names: string[]): void;
  /** Panel `name` now shows `card` (or nothing, after its function was replaced). */
  show(name: string, card: CardData | undefined): void;
  /** A request not answered within this is given up and may be sent again. */
  timeoutMs?: number;
  /** A queued request is replaced by one for the newest step at most this often. */
  reaskMs?: number;
  cacheBytes?: number;
  now?: () => number;
}

const KINDS: readonly string[] = ["bars", "image", "heatmap", "text", "empty", "error"];
const HEADER = new Set(["type", "id", "name", "step", "version", "kind"]);

interface Panel {
  spec: PanelSpec;
  active: boolean;
  shown: CardData | undefined;
  /** The shown card's step changed since it was computed (the episode grew). */
  outdated: boolean;
  /** The request awaiting its answer; `queued` once the kernel said it waits behind another call. */
  inFlight: { step: number; at: number; queued: boolean } | undefined;
  progress: Progress | undefined;
}

export class PanelState {
  private readonly panels = new Map<string, Panel>();
  private readonly cache: ByteLRU<string, CardData>;
  private step = -1;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly options: PanelStateOptions) {
    this.cache = new ByteLRU(options.cacheBytes ?? 32 * 2 ** 20, cardBytes);
  }

  /** The panels in the kernel's order. */
  get specs(): PanelSpec[] {
    return [...this.panels.values()].map((panel) => panel.spec);
  }

  /** The card panel `name` shows, if any. */
  shown(name: string): CardData | undefined {
    return this.panels.get(name)?.shown;
  }

  /** Whether panel `name` shows the current step's result (else it is updating). */
  isCurrent(name: string): boolean {
    const panel = this.panels.get(name);
    return panel?.shown !== undefined && panel.shown.step === this.step && !panel.outdated;
  }

  progress(name: string): Progress | undefined {
    return this.panels.get(name)?.progress;
  }

  /**
   * Takes the kernel's panel list. New panels and replaced functions (a new
   * version) start afresh; removed ones are forgotten. Then asks for what is missing.
   */
  setPanels(specs: PanelSpec[]): void {
    const old = new Map(this.panels);
    this.panels.clear();
    for (const spec of specs) {
      const previous = old.get(spec.name);
      if (previous !== undefined && previous.spec.version === spec.version) {
        previous.spec = spec;
        this.panels.set(spec.name, previous);
        continue;
      }
      this.cache.deleteWhere((key) => key.startsWith(`${spec.name}\n`));
      this.panels.set(spec.name, { spec, active: previous?.active ?? true, shown: undefined, outdated: false, inFlight: undefined, progress: undefined });
      if (previous !== undefined) this.options.show(spec.name, undefined);
    }
    for (const name of old.keys()) {
      if (!this.panels.has(name)) this.cache.deleteWhere((key) => key.startsWith(`${name}\n`));
    }
    this.refresh();
  }

  /** Hidden (or collapsed) panels are not asked for; shown again, they catch up. */
  setActive(name: string, active: boolean): void {
    const panel = this.panels.get(name);
    if (panel === undefined || panel.active === active) return;
    panel.active = active;
    if (active) this.refresh();
  }

  /** The view moved to `step`: show cached cards at once, ask for the others. */
  setStep(step: number): void {
    this.step = step;
    this.refresh();
  }

  /** Position `t` changed (it gained an action as the episode grew): its cards are redone. */
  forgetStep(t: number): void {
    for (const [name, panel] of this.panels) {
      this.cache.delete(key(name, t));
      if (panel.shown?.step === t) panel.outdated = true;
    }
    this.refresh();
  }

  /** Stops the pending re-ask, if any (the view is gone). */
  dispose(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Handles a kernel message about panels; returns whether it was one. */
  receive(message: unknown, buffers: DataView[]): boolean {
    const msg = message as Record<string, unknown> | null;
    if (msg === null || typeof msg !== "object") return false;
    if (msg.type === "panel-queued") {
      const names = Array.isArray(msg.names) ? msg.names : [];
      for (const name of names) {
        const inFlight = this.panels.get(String(name))?.inFlight;
        if (inFlight !== undefined && inFlight.step === msg.step) inFlight.queued = true;
      }
      this.refresh();
      return true;
    }
    if (msg.type === "panel-progress") {
      const panel = this.panels.get(String(msg.name));
      if (panel !== undefined && panel.spec.version === msg.version) {
        panel.progress = { done: Number(msg.done), total: Number(msg.total) };
      }
      return true;
    }
    if (msg.type !== "panel") return false;
    const panel = this.panels.get(String(msg.name));
    const step = Number(msg.step);
    if (panel === undefined || panel.spec.version !== msg.version) return true;
    if (panel.inFlight?.step === step) panel.inFlight = undefined;
    if (KINDS.includes(String(msg.kind))) {
      const card = toCard(msg, buffers);
      // A "no answer after N s" card (a panel past its time limit) is no result: it is not
      // kept, so the step is asked for again, and the panel's next result replaces it.
      const retry = card.meta.retry === true;
      if (!retry) this.cache.set(key(card.name, step), card);
      const replacesRetry = !retry && panel.shown?.meta.retry === true;
      // The newest answer is better than an older one, even for another step (it is dimmed).
      if (step === this.step || !this.isCurrent(card.name) || replacesRetry) this.display(panel, card);
    }
    this.refresh();
    return true;
  }

  private display(panel: Panel, card: CardData): void {
    panel.shown = card;
    panel.outdated = false;
    this.options.show(card.name, card);
  }

  /**
   * Shows cached cards of the current step and asks for the missing ones not in
   * flight, or queued in the kernel for another step.
   */
  private refresh(): void {
    if (this.step < 0) return;
    const now = (this.options.now ?? performance.now.bind(performance))();
    const timeout = this.options.timeoutMs ?? 20_000;
    const reask = this.options.reaskMs ?? 100;
    const missing: string[] = [];
    let retryIn = Number.POSITIVE_INFINITY;
    for (const [name, panel] of this.panels) {
      if (!panel.active || this.isCurrent(name)) continue;
      const cached = this.cache.get(key(name, this.step));
      if (cached !== undefined) {
        this.display(panel, cached);
        continue;
      }
      const inFlight = panel.inFlight;
      if (inFlight !== undefined && now - inFlight.at < timeout) {
        if (!inFlight.queued || inFlight.step === this.step) continue;
        const wait = inFlight.at + reask - now;
        if (wait > 0) {
          retryIn = Math.min(retryIn, wait);
          continue;
        }
      }
      panel.inFlight = { step: this.step, at: now, queued: false };
      missing.push(name);
    }
    if (missing.length > 0) this.options.request(this.step, missing);
    if (retryIn < Number.POSITIVE_INFINITY && this.timer === undefined) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.refresh();
      }, retryIn);
    }
  }
}

function key(name: string, step: number): string {
  return `${name}\n${step}`;
}

function toCard(msg: Record<string, unknown>, buffers: DataView[]): CardData {
  const meta: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(msg)) if (!HEADER.has(field)) meta[field] = value;
  return {
    name: String(msg.name),
    step: Number(msg.step),
    version: Number(msg.version),
    kind: msg.kind as CardKind,
    meta,
    // Own copies: a small view must not keep a whole websocket message alive in the cache.
    buffers: buffers.map((view) => new Uint8Array(view.buffer, view.byteOffset, view.byteLength).slice()),
  };
}

function cardBytes(card: CardData): number {
  return card.buffers.reduce((sum, buffer) => sum + buffer.byteLength, 0) + 2 * JSON.stringify(card.meta).length;
}
