/**
 * The Agent tab's table of runs and their episodes: one row per episode file, sortable
 * by any column (click its header; again to reverse), each name written as text (a
 * file's metadata is a stranger's string, never HTML). A row's episode opens with its
 * button; its run's scalars (the TensorBoard run beside it, when there is one) with its
 * link.
 *
 * Example:
 *   const table = new EpisodeTable(el, (row) => open(row.path), (run) => scalarsLink(page, run));
 *   table.show(await (await fetch("runs")).json());
 */
export interface EpisodeRow {
  run: string;
  path: string;
  file: string;
  growing: boolean;
  /** The file's size and modification time: it changes as a recording grows. */
  version: string;
  env_id?: string | null;
  algorithm?: string | null;
  seed?: number | null;
  training_step?: number | null;
  return?: number | null;
  length?: number;
  /** Why the file could not be read. */
  error?: string;
  /** The TensorBoard run of the scalars beside the episode's run (its run's). */
  scalars?: string | null;
}

export interface Runs {
  runs: { run: string; scalars: string | null; episodes: EpisodeRow[] }[];
  /** What went wrong running the `--agent_panels` file, if it failed. */
  panels_problem?: string | null;
}

type Key = "run" | "file" | "env_id" | "algorithm" | "seed" | "training_step" | "return" | "length" | "scalars";

export const COLUMNS: [Key, string][] = [
  ["run", "Run"],
  ["file", "Episode"],
  ["env_id", "Env"],
  ["algorithm", "Algorithm"],
  ["seed", "Seed"],
  ["training_step", "Training step"],
  ["return", "Return"],
  ["length", "Length"],
  ["scalars", "Scalars"],
];

/** `rows` sorted by `key` (numbers as numbers, text as text), blanks last either way. */
export function sortedRows(rows: readonly EpisodeRow[], key: Key, descending = false): EpisodeRow[] {
  const sign = descending ? -1 : 1;
  return [...rows].sort((a, b) => {
    const x = a[key];
    const y = b[key];
    if (x == null || y == null) return x == null ? (y == null ? 0 : 1) : -1;
    if (typeof x === "number" && typeof y === "number") return sign * (x - y);
    return sign * String(x).localeCompare(String(y), undefined, { numeric: true });
  });
}

/** What a row's cell says: a return to 6 significant digits, a growing file marked, blanks empty. */
export function cellText(row: EpisodeRow, key: Key): string {
  const value = row[key];
  if (value == null) return "";
  if (key === "return" && typeof value === "number") return String(Number(value.toPrecision(6)));
  if (key === "file" && row.growing) return `${value} (recording)`;
  return String(value);
}

export class EpisodeTable {
  private readonly table = document.createElement("table");
  private rows: EpisodeRow[] = [];
  private key: Key = "run";
  private descending = false;

  constructor(
    el: HTMLElement,
    private readonly open: (row: EpisodeRow) => void,
    private readonly scalarsHref: (run: string) => string,
  ) {
    this.table.className = "aw-tb-table";
    el.append(this.table);
  }

  show(runs: Runs): void {
    this.rows = runs.runs.flatMap((run) => run.episodes.map((row) => ({ ...row, scalars: run.scalars })));
    this.draw();
  }

  sortBy(key: Key): void {
    this.descending = this.key === key ? !this.descending : false;
    this.key = key;
    this.draw();
  }

  private draw(): void {
    const head = document.createElement("tr");
    for (const [key, label] of COLUMNS) {
      const th = document.createElement("th");
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = label;
      button.addEventListener("click", () => this.sortBy(key));
      th.append(button);
      if (key === this.key) th.setAttribute("aria-sort", this.descending ? "descending" : "ascending");
      th.dataset.key = key;
      head.append(th);
    }
    const body = document.createElement("tbody");
    for (const row of sortedRows(this.rows, this.key, this.descending)) body.append(this.rowElement(row));
    const thead = document.createElement("thead");
    thead.append(head);
    this.table.replaceChildren(thead, body);
  }

  private rowElement(row: EpisodeRow): HTMLTableRowElement {
    const tr = document.createElement("tr");
    tr.dataset.path = row.path;
    for (const [key] of COLUMNS) {
      const td = document.createElement("td");
      td.dataset.key = key;
      if (key === "file") {
        const button = document.createElement("button");
        button.type = "button";
        button.className = "aw-tb-open";
        button.textContent = cellText(row, key);
        button.disabled = row.error !== undefined;
        button.addEventListener("click", () => this.open(row));
        td.append(button);
      } else if (key === "scalars" && row.scalars != null) {
        const link = document.createElement("a");
        link.href = this.scalarsHref(row.scalars);
        link.target = "_top";
        link.textContent = row.scalars;
        td.append(link);
      } else {
        td.textContent = key === "env_id" && row.error !== undefined ? row.error : cellText(row, key);
      }
      tr.append(td);
    }
    return tr;
  }
}
