/**
 * The panel cards of one view: a card per panel beside the frame (below it when
 * the widget is narrow: the layout is CSS flex-wrap), a "Panels" menu to show
 * hidden ones again, and the overlay canvases stacked over the frame (drawn at
 * the size of the stage's frame canvas).
 *
 * Requests and staleness are decided by `PanelState`; card order by `card-order`;
 * this module wires them to the model and the DOM. Collapsing, moving and hiding
 * are per view and never reach the kernel, except that hidden cards (and collapsed
 * ones without an overlay) are no longer computed.
 */
import { arrange, move } from "./card-order.ts";
import { CardView, type Wait } from "./card-view.ts";
import { el, input } from "../shared/dom.ts";
import { NoAnswer } from "../shared/no-answer.ts";
import type { Outbox } from "../shared/outbox.ts";
import { COMM_LIVE_EVENT, isSavedCopy } from "../shared/saved-copy.ts";
import { PanelState, type PanelSpec } from "./state.ts";
import type { Model } from "../shared/types.ts";

export class PanelCards {
  readonly element: HTMLDivElement;
  private readonly menu: HTMLDetailsElement;
  private readonly menuList: HTMLDivElement;
  private readonly list: HTMLDivElement;
  private readonly state: PanelState;
  private readonly views = new Map<string, CardView>();
  private readonly hidden = new Set<string>();
  private readonly collapsed = new Set<string>();
  private order: string[] = [];
  private nextId = 1;
  private disposed = false;
  private readonly noAnswer = new NoAnswer(() => this.showWait());
  /** No kernel will ever answer: a saved copy (see shared/saved-copy.ts). */
  private savedCopy = false;
  private readonly onCommLive = () => {
    this.savedCopy = isSavedCopy(this.model, this.element);
    this.showWait();
  };
  private readonly onMessage = (msg: unknown, buffers?: DataView[]) => {
    // Any message shows the kernel is there; "panel-queued" says it has our request.
    this.noAnswer.answered();
    if (this.state.receive(msg, buffers ?? [])) this.refresh();
  };
  private readonly onPanels = () => this.setPanels();

  constructor(
    private readonly model: Model,
    parent: HTMLElement,
    /** The frame's container: overlay canvases are stacked in it. */
    private readonly stage: HTMLElement,
    /** Panel requests leave after the frame requests, never holding them up. */
    outbox: Outbox,
  ) {
    this.element = parent.appendChild(el("div", "aw-panels"));
    this.menu = this.element.appendChild(el("details", "aw-panel-menu"));
    this.menu.appendChild(el("summary", "aw-panel-menu-title")).textContent = "Panels";
    this.menuList = this.menu.appendChild(el("div", "aw-panel-menu-list"));
    this.list = this.element.appendChild(el("div", "aw-cards"));
    this.state = new PanelState({
      request: (step, names) =>
        outbox.send(() => {
          if (this.disposed) return;
          model.send({ type: "panel", id: this.nextId++, step, names });
          this.noAnswer.asked();
        }),
      show: (name, card) => this.views.get(name)?.show(card),
    });
    model.on("msg:custom", this.onMessage);
    model.on("change:panels", this.onPanels);
    model.on(COMM_LIVE_EVENT, this.onCommLive);
    this.savedCopy = isSavedCopy(model, this.element);
    this.setPanels();
  }

  /** The view shows position `t`. */
  setStep(t: number): void {
    this.state.setStep(t);
    this.refresh();
  }

  /** The episode grew from `oldLength` positions: the old last one gained an action. */
  grown(oldLength: number): void {
    this.state.forgetStep(oldLength - 1);
    this.refresh();
  }

  dispose(): void {
    this.disposed = true;
    this.state.dispose();
    this.noAnswer.dispose();
    this.model.off("msg:custom", this.onMessage);
    this.model.off("change:panels", this.onPanels);
    this.model.off(COMM_LIVE_EVENT, this.onCommLive);
    for (const view of this.views.values()) this.removeView(view);
    this.element.remove();
  }

  private setPanels(): void {
    const specs = readSpecs(this.model.get("panels"));
    for (const spec of specs) {
      const view = this.views.get(spec.name);
      // A panel that became (or stopped being) an overlay needs another card.
      if (view !== undefined && view.hasOverlay !== spec.overlay) this.removeView(view);
      const kept = this.views.get(spec.name);
      if (kept !== undefined) kept.setSpec(spec);
      else this.views.set(spec.name, this.createView(spec));
    }
    const names = new Set(specs.map((spec) => spec.name));
    for (const [name, view] of this.views) if (!names.has(name)) this.removeView(view);
    this.order = arrange(this.order, specs.map((spec) => spec.name));
    this.state.setPanels(specs);
    this.layout();
    this.refresh();
  }

  private createView(spec: PanelSpec): CardView {
    const frame = this.stage.querySelector<HTMLCanvasElement>("canvas.aw-frame");
    let overlay: HTMLCanvasElement | undefined;
    if (spec.overlay) {
      overlay = this.stage.appendChild(el("canvas", "aw-overlay"));
      overlay.dataset.name = spec.name;
    }
    const name = spec.name;
    const view = new CardView(
      spec,
      {
        move: (delta) => {
          this.order = move(this.order, name, delta);
          this.layout();
        },
        hide: () => this.setHidden(name, true),
        collapse: (collapsed) => {
          if (collapsed) this.collapsed.add(name);
          else this.collapsed.delete(name);
          this.updateActive(name);
        },
      },
      overlay,
      () => (frame === null ? undefined : { width: frame.width, height: frame.height }),
    );
    // A card that keeps its DOM across a version change shows what the state holds.
    view.show(this.state.shown(name));
    view.setWait(this.wait());
    return view;
  }

  /** Why the cards wait: a saved copy has no kernel; else the kernel is late, or asked. */
  private wait(): Wait {
    if (this.savedCopy) return "saved";
    return this.noAnswer.isLate ? "late" : "asking";
  }

  private showWait(): void {
    const wait = this.wait();
    for (const view of this.views.values()) view.setWait(wait);
  }

  private removeView(view: CardView): void {
    this.views.delete(view.name);
    view.remove();
  }

  private setHidden(name: string, hidden: boolean): void {
    if (hidden) this.hidden.add(name);
    else this.hidden.delete(name);
    this.views.get(name)?.setHidden(hidden);
    this.updateActive(name);
    this.layoutMenu();
  }

  /** Hidden cards are not computed; collapsed ones only when their overlay is still drawn. */
  private updateActive(name: string): void {
    const overlay = this.state.specs.find((spec) => spec.name === name)?.overlay ?? false;
    const active = !this.hidden.has(name) && (overlay || !this.collapsed.has(name));
    this.state.setActive(name, active);
    this.refresh();
  }

  /** Puts the cards in order and rebuilds the menu. */
  private layout(): void {
    for (const name of this.order) {
      const view = this.views.get(name);
      if (view === undefined) continue;
      this.list.append(view.element);
      view.setHidden(this.hidden.has(name));
    }
    for (const name of this.order) this.updateActive(name);
    this.element.hidden = this.order.length === 0;
    this.layoutMenu();
  }

  private layoutMenu(): void {
    this.menuList.replaceChildren(
      ...this.order.map((name) => {
        const label = el("label", "aw-panel-menu-item");
        const box = label.appendChild(input("aw-show", "checkbox"));
        box.dataset.name = name;
        box.setAttribute("aria-label", `Show panel ${name}`);
        box.checked = !this.hidden.has(name);
        box.addEventListener("change", () => this.setHidden(name, !box.checked));
        label.append(` ${name}`);
        return label;
      }),
    );
  }

  /** Brings every card's staleness and progress up to date with the state. */
  private refresh(): void {
    for (const [name, view] of this.views) {
      view.setCurrent(this.state.isCurrent(name));
      view.setProgress(this.state.progress(name));
    }
  }
}

/** The `panels` trait, read defensively. */
export function readSpecs(value: unknown): PanelSpec[] {
  if (!Array.isArray(value)) return [];
  return value
    .filter((spec) => spec !== null && typeof spec === "object" && typeof spec.name === "string")
    .map((spec) => ({
      name: spec.name,
      overlay: spec.overlay === true,
      precompute: spec.precompute === true,
      version: Number(spec.version) || 0,
    }));
}
