/**
 * The anywidget entry point of Moments: the steps a query over a run library found,
 * one row each (or one per stretch of consecutive steps). Clicking a row (or Enter on
 * it) asks the kernel to open that episode at that step; the viewer it opens is shown
 * under the list, the found steps marked on its timeline. Every cell is written with
 * textContent, never as HTML.
 */
import { type ChildView, ChildTrait, mountChild } from "../shared/children.ts";
import { el } from "../shared/dom.ts";
import { ModelListeners } from "../shared/listeners.ts";
import type { Model } from "../shared/types.ts";
import viewer from "../viewer/widget.ts";
import { asCells, countText, NUMERIC } from "./rows.ts";

class MomentsView {
  private readonly root: HTMLDivElement;
  private readonly count: HTMLDivElement;
  private readonly head: HTMLTableRowElement;
  private readonly body: HTMLTableSectionElement;
  private readonly message: HTMLDivElement;
  private readonly opened: HTMLDivElement;
  private readonly listeners: ModelListeners;
  private openedView: ChildView | undefined;
  /** Bumped on each change of `opened`, so a slow view creation never shows a stale one. */
  private readonly openedChild: ChildTrait;

  constructor(
    private readonly model: Model,
    parent: HTMLElement,
  ) {
    this.openedChild = new ChildTrait(model, "opened");
    this.root = parent.appendChild(el("div", "aw-moments"));
    this.count = this.root.appendChild(el("div", "aw-count"));
    const scroll = this.root.appendChild(el("div", "aw-table-scroll"));
    scroll.setAttribute("role", "region");
    scroll.setAttribute("aria-label", "Moments found");
    const table = scroll.appendChild(el("table", "aw-moment-list"));
    this.head = table.createTHead().insertRow();
    this.body = table.createTBody();
    this.message = this.root.appendChild(el("div", "aw-message"));
    this.opened = this.root.appendChild(el("div", "aw-opened"));
    // The notebook must not take the keys that move through the list.
    this.root.addEventListener("keydown", (event) => event.stopPropagation());
    this.root.dataset.lmSuppressShortcuts = "true";

    this.listeners = new ModelListeners(model);
    this.listeners.on("change:rows", () => this.draw());
    this.listeners.on("change:columns", () => this.draw());
    this.listeners.on("change:chosen", () => this.mark());
    this.listeners.on("change:message", () => (this.message.textContent = String(model.get("message") ?? "")));
    this.listeners.on("change:opened", () => this.showOpened());
    this.message.textContent = String(model.get("message") ?? "");
    this.draw();
    this.showOpened();
  }

  dispose(): void {
    this.listeners.dispose();
    this.openedView?.remove();
    this.root.remove();
  }

  private draw(): void {
    const columns = asCells(this.model.get("columns"));
    const rows = (Array.isArray(this.model.get("rows")) ? (this.model.get("rows") as unknown[]) : []).map(asCells);
    const found = Number(this.model.get("found") ?? rows.length);
    this.count.textContent = countText(rows.length, found, Number(this.model.get("steps") ?? found));
    this.head.textContent = "";
    for (const column of columns) {
      this.head.appendChild(el("th", NUMERIC.has(column) ? "aw-number" : "")).textContent = column;
    }
    this.body.textContent = "";
    rows.forEach((cells, index) => {
      const tr = this.body.insertRow();
      tr.className = "aw-moment";
      tr.tabIndex = 0;
      tr.dataset.index = String(index);
      cells.forEach((text, i) => {
        const td = tr.insertCell();
        td.textContent = text;
        if (NUMERIC.has(columns[i] ?? "")) td.className = "aw-number";
      });
      const open = () => this.model.send({ type: "open", index });
      tr.addEventListener("click", open);
      tr.addEventListener("keydown", (event) => {
        if (event.key === "Enter") open();
      });
    });
    this.mark();
  }

  /** The row opened last, highlighted. */
  private mark(): void {
    const chosen = Number(this.model.get("chosen") ?? -1);
    for (const tr of this.body.rows) tr.classList.toggle("aw-chosen", tr.dataset.index === String(chosen));
  }

  private async showOpened(): Promise<void> {
    const child = await this.openedChild.latest();
    if (child === undefined) return;
    this.openedView?.remove();
    this.openedView = child === null ? undefined : mountChild(child, viewer.render);
    if (this.openedView !== undefined) this.opened.appendChild(this.openedView.el);
  }
}

function render({ model, el }: { model: Model; el: HTMLElement }): () => void {
  const view = new MomentsView(model, el);
  return () => view.dispose();
}

export default { render };
