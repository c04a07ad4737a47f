/**
 * The anywidget entry point of Moments: the steps a query over a run library found,
 * one row each (or one per stretch of consecutive steps). Clicking a row (or Enter on
 * it) asks the kernel to open that episode at that step; the viewer it opens is shown
 * under the list, the found steps marked on its timeline. Every cell is written with
 * textContent, never as HTML.
 */
import { OpenedChild } from "../shared/children.ts";
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
  private readonly listeners: ModelListeners;
  private readonly opened: OpenedChild;

  constructor(
    private readonly model: Model,
    parent: HTMLElement,
  ) {
    this.root = parent.appendChild(el("div", "aw-moments"));
    this.count = this.root.appendChild(el("div", "aw-count"));
    const scroll = this.root.appendChild(el("div", "aw-table-scroll"));
    scroll.setAttribute("role", "region");
    scroll.setAttribute("aria-label", "Moments found");
    const table = scroll.appendChild(el("table", "aw-moment-list"));
    this.head = table.createTHead().insertRow();
    this.body = table.createTBody();
    this.message = this.root.appendChild(el("div", "aw-message"));
    this.opened = new OpenedChild(model, "opened", this.root.appendChild(el("div", "aw-opened")), () => viewer.render);
    // The notebook must not take the keys that move through the list.
    this.root.addEventListener("keydown", (event) => event.stopPropagation());
    this.root.dataset.lmSuppressShortcuts = "true";

    this.listeners = new ModelListeners(model);
    this.listeners.on("change:rows", () => this.draw());
    this.listeners.on("change:columns", () => this.draw());
    this.listeners.on("change:chosen", () => this.mark());
    this.listeners.on("change:message", () => (this.message.textContent = String(model.get("message") ?? "")));
    this.listeners.on("change:opened", () => this.opened.show());
    this.message.textContent = String(model.get("message") ?? "");
    this.draw();
    this.opened.show();
  }

  dispose(): void {
    this.listeners.dispose();
    this.opened.remove();
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

}

function render({ model, el }: { model: Model; el: HTMLElement }): () => void {
  const view = new MomentsView(model, el);
  return () => view.dispose();
}

export default { render };
