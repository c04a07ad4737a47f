/**
 * The anywidget entry point of Leaderboard: a run library's table in the order of
 * the column sorted by, grouped by env (or algorithm, or nothing: the user picks), filtered
 * as you type. It scrolls inside its own box, so a narrow cell never cuts it off.
 * Ticked runs open (in the kernel) in an EpisodeViewer or a CompareViewer, shown
 * under the table. Every string from the library is written with textContent, never
 * as HTML.
 */
import compare from "../compare/compare.ts";
import { type ChildView, ChildTrait, mountChild, type Render } from "../shared/children.ts";
import viewer from "../viewer/widget.ts";
import { button, el, input } from "../shared/dom.ts";
import { ModelListeners } from "../shared/listeners.ts";
import { asRows, type Column, columnsOf, DEFAULT_SORT, GROUP_BY, parseGroupBy, type Row, type Sort, tableText } from "./table.ts";
import type { Model } from "../shared/types.ts";

class LeaderboardView {
  private readonly root: HTMLDivElement;
  private readonly filter: HTMLInputElement;
  private readonly count: HTMLSpanElement;
  private readonly episode: HTMLInputElement;
  private readonly open: HTMLButtonElement;
  private readonly groupBy: HTMLSelectElement;
  private readonly head: HTMLTableRowElement;
  private readonly body: HTMLTableSectionElement;
  private readonly errors: HTMLDivElement;
  private readonly message: HTMLDivElement;
  private readonly opened: HTMLDivElement;
  private readonly listeners: ModelListeners;
  private rows: Row[] = [];
  private sort: Sort = DEFAULT_SORT;
  private openedView: ChildView | undefined;
  /** Bumped on each change of `opened`, so a slow view creation never shows a stale one. */
  private readonly openedChild: ChildTrait;

  constructor(
    private readonly model: Model,
    parent: HTMLElement,
  ) {
    this.openedChild = new ChildTrait(model, "opened");
    this.root = parent.appendChild(el("div", "aw-leaderboard"));
    const bar = this.root.appendChild(el("div", "aw-toolbar"));
    this.filter = bar.appendChild(input("aw-filter", "search"));
    this.filter.placeholder = "filter: env, algorithm, run, params";
    this.filter.setAttribute("aria-label", "Filter runs by env, algorithm, run or params");
    this.count = bar.appendChild(el("span", "aw-count"));
    const episodeLabel = bar.appendChild(el("label", "aw-episode-label"));
    episodeLabel.append("episode ");
    this.episode = episodeLabel.appendChild(input("aw-episode", "number"));
    this.episode.min = "0";
    this.episode.step = "1";
    const groupLabel = bar.appendChild(el("label", "aw-group-label"));
    groupLabel.append("group by ");
    this.groupBy = groupLabel.appendChild(el("select", "aw-group-by"));
    this.groupBy.append(new Option("nothing", ""), ...GROUP_BY.map((g) => new Option(g, g)));
    this.open = bar.appendChild(button("aw-open", "Open", "Show the ticked runs (several: side by side)"));
    const refresh = bar.appendChild(button("aw-refresh", "Refresh", "Read the library again"));
    const scroll = this.root.appendChild(el("div", "aw-table-scroll"));
    scroll.tabIndex = 0; // a box that scrolls is reachable by keys
    scroll.setAttribute("role", "region");
    scroll.setAttribute("aria-label", "Runs");
    const table = scroll.appendChild(el("table", "aw-runs"));
    this.head = table.createTHead().insertRow();
    this.body = table.createTBody();
    this.errors = this.root.appendChild(el("div", "aw-errors"));
    this.message = this.root.appendChild(el("div", "aw-message"));
    this.opened = this.root.appendChild(el("div", "aw-opened"));

    this.filter.addEventListener("input", () => this.draw());
    this.episode.addEventListener("change", () => {
      const k = this.episode.valueAsNumber;
      if (Number.isInteger(k)) this.save({ episode: k });
    });
    this.groupBy.addEventListener("change", () => this.save({ group_by: parseGroupBy(this.groupBy.value) }));
    this.open.addEventListener("click", () => model.send({ type: "open" }));
    refresh.addEventListener("click", () => model.send({ type: "refresh" }));
    // The notebook must not take keys typed into the filter or the episode box.
    this.root.addEventListener("keydown", (event) => event.stopPropagation());
    this.root.dataset.lmSuppressShortcuts = "true";

    this.listeners = new ModelListeners(model);
    this.listeners.on("change:rows", () => this.onRows());
    this.listeners.on("change:selected", () => this.draw());
    this.listeners.on("change:group_by", () => this.draw());
    this.listeners.on("change:episode", () => (this.episode.value = String(model.get("episode") ?? 0)));
    this.listeners.on("change:errors", () => this.showErrors());
    this.listeners.on("change:message", () => (this.message.textContent = String(model.get("message") ?? "")));
    this.listeners.on("change:opened", () => this.showOpened());
    this.episode.value = String(model.get("episode") ?? 0);
    this.message.textContent = String(model.get("message") ?? "");
    this.onRows();
    this.showErrors();
    this.showOpened();
  }

  dispose(): void {
    this.listeners.dispose();
    this.openedView?.remove();
    this.root.remove();
  }

  private get selected(): Set<string> {
    const ids = this.model.get("selected");
    return new Set(Array.isArray(ids) ? ids.map(String) : []);
  }

  private save(state: Record<string, unknown>): void {
    for (const [name, value] of Object.entries(state)) this.model.set(name, value);
    this.model.save_changes();
  }

  private toggle(id: string): void {
    const selected = this.selected;
    if (!selected.delete(id)) selected.add(id);
    this.save({ selected: [...selected] });
  }

  private onRows(): void {
    this.rows = asRows(this.model.get("rows"));
    this.draw();
  }

  private draw(): void {
    const columns = columnsOf(this.rows);
    this.drawHead(columns);
    const groupBy = parseGroupBy(this.model.get("group_by"));
    this.groupBy.value = groupBy ?? "";
    const { lines } = tableText(this.rows, this.filter.value.trim(), this.sort, groupBy);
    const selected = this.selected;
    const byId = new Map(this.rows.map((row) => [row.id, row]));
    const shown = lines.filter((line) => "cells" in line).length;
    this.count.textContent = `${shown} of ${this.rows.length} runs, ${selected.size} ticked`;
    this.open.disabled = selected.size === 0;
    this.body.textContent = "";
    for (const line of lines) {
      if ("group" in line) {
        const header = this.body.insertRow();
        header.className = "aw-group";
        const cell = header.insertCell();
        cell.colSpan = columns.length + 1;
        cell.textContent = line.group;
      } else this.drawRow(byId.get(line.id)!, line.cells, selected.has(line.id), columns);
    }
  }

  private drawHead(columns: readonly Column[]): void {
    this.head.textContent = "";
    const tickHeader = this.head.appendChild(el("th", "aw-tick-column"));
    tickHeader.appendChild(el("span", "aw-visually-hidden")).textContent = "ticked";
    for (const column of columns) {
      const th = this.head.appendChild(el("th", column.numeric ? "aw-sortable aw-number" : "aw-sortable"));
      const sorted = this.sort.key === column.key;
      th.setAttribute("aria-sort", sorted ? (this.sort.descending ? "descending" : "ascending") : "none");
      th.dataset.key = column.key;
      // A button, so that keys sort too; the arrow is the aria-sort's picture, hidden from readers.
      const sort = th.appendChild(button("aw-sort", column.title, `Sort by ${column.title}`));
      if (sorted) {
        const arrow = sort.appendChild(el("span", "aw-sort-arrow"));
        arrow.textContent = this.sort.descending ? " ▼" : " ▲";
        arrow.setAttribute("aria-hidden", "true");
      }
      sort.addEventListener("click", () => {
        // A new column sorts numbers best-first (descending), dates newest first, text alphabetically.
        const descending = sorted ? !this.sort.descending : column.numeric || column.key === "created";
        this.sort = { key: column.key, descending };
        this.draw();
        this.head.querySelector<HTMLButtonElement>(`th[data-key="${CSS.escape(column.key)}"] button`)?.focus();
      });
    }
  }

  private drawRow(row: Row, cells: readonly string[], ticked: boolean, columns: readonly Column[]): void {
    const tr = this.body.insertRow();
    tr.className = ticked ? "aw-run aw-ticked" : "aw-run";
    tr.dataset.id = row.id;
    tr.title = row.id;
    const tick = tr.insertCell().appendChild(input("aw-tick", "checkbox"));
    tick.checked = ticked;
    tick.setAttribute("aria-label", `Tick run ${row.run} (${row.env_id} · ${row.algorithm})`);
    tick.addEventListener("change", () => this.toggle(row.id));
    cells.forEach((text, i) => {
      const td = tr.insertCell();
      td.textContent = text;
      if (columns[i].numeric) td.className = "aw-number";
    });
    tr.addEventListener("click", (event) => {
      if (event.target !== tick) this.toggle(row.id);
    });
    tr.addEventListener("dblclick", () => {
      this.save({ selected: [row.id] });
      this.model.send({ type: "open" });
    });
  }

  private showErrors(): void {
    const errors = this.model.get("errors");
    const list = Array.isArray(errors) ? (errors as { path?: unknown; message?: unknown }[]) : [];
    this.errors.textContent = "";
    if (list.length === 0) return;
    const details = this.errors.appendChild(el("details", "aw-error-list"));
    details.appendChild(el("summary", "")).textContent = `${list.length} run(s) could not be read and are not listed`;
    for (const error of list) details.appendChild(el("div", "aw-error")).textContent = String(error.message ?? "");
  }

  private async showOpened(): Promise<void> {
    const child = await this.openedChild.latest();
    if (child === undefined) return;
    this.openedView?.remove();
    this.openedView = child === null ? undefined : mountChild(child, renderOf(child));
    if (this.openedView !== undefined) this.opened.appendChild(this.openedView.el);
  }
}

/** The render function of an opened run: a CompareViewer (it has `viewers`) or an EpisodeViewer. */
function renderOf(child: Model): Render {
  return Array.isArray(child.get("viewers")) ? compare.render : viewer.render;
}

function render({ model, el }: { model: Model; el: HTMLElement }): () => void {
  const view = new LeaderboardView(model, el);
  return () => view.dispose();
}

export default { render };
