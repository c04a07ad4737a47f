/**
 * The anywidget entry point of Leaderboard: a run library's table in the order of
 * the column sorted by, grouped by env (or algorithm, or nothing: the user picks), filtered
 * as you type. It scrolls inside its own box, so a narrow cell never cuts it off.
 * Ticked runs open (in the kernel) in an EpisodeViewer or a CompareViewer, shown
 * under the table. Every string from the library is written with textContent, never
 * as HTML.
 */
import compare from "../compare/compare.ts";
import { OpenedChild, type Render } from "../shared/children.ts";
import viewer from "../viewer/widget.ts";
import { button, el, input } from "../shared/dom.ts";
import { ModelListeners } from "../shared/listeners.ts";
import { asRows, type Column, columnOrder, columnsOf, DEFAULT_SORT, GROUP_BY, parseGroupBy, type Row, type Sort, tableText } from "./table.ts";
import type { Model } from "../shared/types.ts";

class LeaderboardView {
  private readonly root: HTMLDivElement;
  private readonly filter: HTMLInputElement;
  private readonly count: HTMLSpanElement;
  private readonly episode: HTMLInputElement;
  private readonly open: HTMLButtonElement;
  private readonly groupBy: HTMLSelectElement;
  private readonly scroll: HTMLDivElement;
  private readonly table: HTMLTableElement;
  private readonly head: HTMLTableRowElement;
  private readonly body: HTMLTableSectionElement;
  private readonly errors: HTMLDivElement;
  private readonly message: HTMLDivElement;
  private readonly listeners: ModelListeners;
  private readonly resizeObserver: ResizeObserver;
  private rows: Row[] = [];
  private sort: Sort = DEFAULT_SORT;
  /** The sorted column would be out of view in the table's own order: it is shown next to the run's name. */
  private sortedNext = false;
  private readonly opened: OpenedChild;

  constructor(
    private readonly model: Model,
    parent: HTMLElement,
  ) {
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
    const scroll = (this.scroll = this.root.appendChild(el("div", "aw-table-scroll")));
    scroll.tabIndex = 0; // a box that scrolls is reachable by keys
    scroll.setAttribute("role", "region");
    scroll.setAttribute("aria-label", "Runs");
    const table = (this.table = scroll.appendChild(el("table", "aw-runs")));
    this.head = table.createTHead().insertRow();
    this.body = table.createTBody();
    // Whenever the table or its box may have changed width: where the pinned columns end,
    // and whether the sorted column fits in view in the table's own order.
    this.resizeObserver = new ResizeObserver(() => this.fit());
    this.resizeObserver.observe(table);
    this.resizeObserver.observe(scroll);
    this.errors = this.root.appendChild(el("div", "aw-errors"));
    this.message = this.root.appendChild(el("div", "aw-message"));
    this.opened = new OpenedChild(model, "opened", this.root.appendChild(el("div", "aw-opened")), renderOf);

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
    this.listeners.on("change:opened", () => this.opened.show());
    this.episode.value = String(model.get("episode") ?? 0);
    this.message.textContent = String(model.get("message") ?? "");
    this.onRows();
    this.showErrors();
    this.opened.show();
  }

  dispose(): void {
    this.resizeObserver.disconnect();
    this.listeners.dispose();
    this.opened.remove();
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
    const all = columnsOf(this.rows);
    const order = columnOrder(all, this.sort, this.sortedNext);
    const columns = order.map((i) => all[i]);
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
        // In a span: the whole-row cell scrolls sideways, its name stays in view (leaderboard.css).
        cell.appendChild(el("span", "aw-group-name")).textContent = line.group;
      } else this.drawRow(byId.get(line.id)!, order.map((i) => line.cells[i]), selected.has(line.id), columns);
    }
    this.fit();
  }

  /**
   * Shows the sorted column next to the run's name when, in the table's own order, it
   * would be out of the box's view (a narrow cell), in its place when it fits; and
   * measures the pinned columns. Column widths do not depend on their order, so the
   * table's own order is measured in any order drawn.
   */
  private fit(): void {
    const widths = new Map([...this.head.cells].map((th) => [th.dataset.key, th.offsetWidth]));
    let right = this.head.cells[0]?.offsetWidth ?? 0; // the tick box
    for (const column of columnsOf(this.rows)) {
      right += widths.get(column.key) ?? 0;
      if (column.key === this.sort.key) break;
    }
    const sortedNext = right > this.scroll.clientWidth;
    if (this.scroll.clientWidth > 0 && sortedNext !== this.sortedNext) {
      this.sortedNext = sortedNext;
      this.draw();
    } else this.measurePinned();
  }

  /**
   * Where the pinned columns end: the run's name sticks after the tick box
   * (`--aw-tick-width`), the sorted column after both (`--aw-pinned`). Widths, not
   * offsets: a stuck cell's offset moves as the table scrolls.
   */
  private measurePinned(): void {
    const tick = this.head.querySelector<HTMLElement>(".aw-pin-tick");
    const run = this.head.querySelector<HTMLElement>(".aw-pin-run");
    if (tick === null || run === null) return;
    this.table.style.setProperty("--aw-tick-width", `${tick.offsetWidth}px`);
    this.table.style.setProperty("--aw-pinned", `${tick.offsetWidth + run.offsetWidth}px`);
  }

  private drawHead(columns: readonly Column[]): void {
    this.head.textContent = "";
    const tickHeader = this.head.appendChild(el("th", "aw-tick-column aw-pin-tick"));
    tickHeader.appendChild(el("span", "aw-visually-hidden")).textContent = "ticked";
    for (const column of columns) {
      const sorted = this.sort.key === column.key;
      const th = this.head.appendChild(el("th", ["aw-sortable", ...cellClasses(column, this.sort)].join(" ")));
      th.setAttribute("aria-sort", sorted ? (this.sort.descending ? "descending" : "ascending") : "none");
      th.dataset.key = column.key;
      // A button, so that keys sort too; the arrow is the aria-sort's picture, hidden from readers.
      const sort = th.appendChild(button("aw-sort aw-quiet", column.title, `Sort by ${column.title}`));
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
    const tickCell = tr.insertCell();
    tickCell.className = "aw-pin-tick";
    const tick = tickCell.appendChild(input("aw-tick", "checkbox"));
    tick.checked = ticked;
    tick.setAttribute("aria-label", `Tick run ${row.run} (${row.env_id} · ${row.algorithm})`);
    tick.addEventListener("change", () => this.toggle(row.id));
    cells.forEach((text, i) => {
      const td = tr.insertCell();
      td.textContent = text;
      td.className = cellClasses(columns[i], this.sort).join(" ");
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

}

/**
 * A column's cells' classes: numbers right-aligned; the run's name pinned at the left
 * and the sorted column sticky beside it, so that a table scrolled sideways still shows
 * which run ranks where (leaderboard.css).
 */
function cellClasses(column: Column, sort: Sort): string[] {
  const classes = column.numeric ? ["aw-number"] : [];
  if (column.key === "run") classes.push("aw-pin-run");
  else if (column.key === sort.key) classes.push("aw-pin-sorted");
  return classes;
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
