// js/children.ts
function manager(model) {
  return model.widget_manager;
}
function childModel(model, ref) {
  return manager(model).get_model(ref.replace(/^IPY_MODEL_/, ""));
}
function childView(model, child) {
  return manager(model).create_view(child);
}

// js/dom.ts
function el(tag, className) {
  const element = document.createElement(tag);
  element.className = className;
  return element;
}
function button(className, text2, title) {
  const b = el("button", className);
  b.type = "button";
  b.textContent = text2;
  b.title = title;
  return b;
}
function input(className, type) {
  const i = el("input", className);
  i.type = type;
  return i;
}

// js/readout.ts
function formatNumber(x) {
  if (x === void 0) return "-";
  if (Number.isInteger(x) || !Number.isFinite(x)) return String(x);
  if (Math.abs(x) < 1e-3) return x.toPrecision(4);
  return String(Number.parseFloat(x.toFixed(4)));
}

// js/leaderboard-table.ts
var COLUMNS = [
  { title: "run", key: "run" },
  { title: "episodes", key: "episodes" },
  { title: "return (mean \xB1 std)", key: "return_mean" },
  { title: "success", key: "success_rate" },
  { title: "steps", key: "steps" },
  { title: "date", key: "created" },
  { title: "params", key: "params" }
];
var text = (value) => typeof value === "string" ? value : "";
var number = (value) => typeof value === "number" && Number.isFinite(value) ? value : null;
function asRows(raw) {
  if (!Array.isArray(raw)) return [];
  return raw.filter((r) => typeof r === "object" && r !== null && typeof r.id === "string").map((r) => ({
    id: r.id,
    env_id: text(r.env_id),
    algorithm: text(r.algorithm),
    run: text(r.run),
    episodes: number(r.episodes) ?? 0,
    return_mean: number(r.return_mean),
    return_std: number(r.return_std),
    success_rate: number(r.success_rate),
    steps: number(r.steps) ?? 0,
    created: text(r.created),
    params: typeof r.params === "object" && r.params !== null ? r.params : {}
  }));
}
function paramsText(params) {
  return Object.entries(params).map(([key, value]) => `${key}=${typeof value === "number" ? formatNumber(value) : JSON.stringify(value)}`).join(", ");
}
function matches(row, query) {
  const haystack = [row.env_id, row.algorithm, row.run, paramsText(row.params)].join(" ").toLowerCase();
  return query.toLowerCase().split(/\s+/).every((word) => haystack.includes(word));
}
function sortValue(row, key) {
  return key === "params" ? paramsText(row.params) : row[key];
}
function compareRows(a, b, sort) {
  const x = sortValue(a, sort.key);
  const y = sortValue(b, sort.key);
  if (x === null || y === null) return x === y ? 0 : x === null ? 1 : -1;
  const order = typeof x === "number" && typeof y === "number" ? x - y : String(x).localeCompare(String(y));
  return sort.descending ? -order : order;
}
function groupRows(rows, query, sort) {
  const groups = /* @__PURE__ */ new Map();
  for (const row of rows) {
    if (!matches(row, query)) continue;
    const key = JSON.stringify([row.env_id, row.algorithm]);
    let group = groups.get(key);
    if (group === void 0) groups.set(key, group = { env: row.env_id, algorithm: row.algorithm, rows: [] });
    group.rows.push(row);
  }
  const ordered = [...groups.values()].sort((a, b) => a.env.localeCompare(b.env) || a.algorithm.localeCompare(b.algorithm));
  for (const group of ordered) group.rows.sort((a, b) => compareRows(a, b, sort) || a.run.localeCompare(b.run));
  return ordered;
}
function cellTexts(row) {
  const mean = row.return_mean === null ? "-" : formatNumber(row.return_mean);
  const std = row.return_std === null ? "" : ` \xB1 ${formatNumber(row.return_std)}`;
  const success = row.success_rate === null ? "-" : `${Math.round(row.success_rate * 100)}%`;
  return [
    row.run,
    String(row.episodes),
    mean + std,
    success,
    row.steps.toLocaleString("en-US"),
    row.created.slice(0, 10),
    paramsText(row.params)
  ];
}

// js/leaderboard.ts
var LeaderboardView = class {
  constructor(model, parent) {
    this.model = model;
    this.root = parent.appendChild(el("div", "aw-leaderboard"));
    const bar = this.root.appendChild(el("div", "aw-toolbar"));
    this.filter = bar.appendChild(input("aw-filter", "search"));
    this.filter.placeholder = "filter: env, algorithm, run, params";
    this.count = bar.appendChild(el("span", "aw-count"));
    const episodeLabel = bar.appendChild(el("label", "aw-episode-label"));
    episodeLabel.append("episode ");
    this.episode = episodeLabel.appendChild(input("aw-episode", "number"));
    this.episode.min = "0";
    this.episode.step = "1";
    this.open = bar.appendChild(button("aw-open", "Open", "Show the ticked runs (several: side by side)"));
    const refresh = bar.appendChild(button("aw-refresh", "Refresh", "Read the library again"));
    const table = this.root.appendChild(el("table", "aw-runs"));
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
    this.open.addEventListener("click", () => model.send({ type: "open" }));
    refresh.addEventListener("click", () => model.send({ type: "refresh" }));
    this.root.addEventListener("keydown", (event) => event.stopPropagation());
    this.root.dataset.lmSuppressShortcuts = "true";
    this.listen("change:rows", () => this.onRows());
    this.listen("change:selected", () => this.draw());
    this.listen("change:episode", () => this.episode.value = String(model.get("episode") ?? 0));
    this.listen("change:errors", () => this.showErrors());
    this.listen("change:message", () => this.message.textContent = String(model.get("message") ?? ""));
    this.listen("change:opened", () => this.showOpened());
    this.episode.value = String(model.get("episode") ?? 0);
    this.message.textContent = String(model.get("message") ?? "");
    this.onRows();
    this.showErrors();
    this.showOpened();
  }
  model;
  root;
  filter;
  count;
  episode;
  open;
  head;
  body;
  errors;
  message;
  opened;
  listeners = [];
  rows = [];
  sort = { key: "return_mean", descending: true };
  openedView;
  /** Bumped on each change of `opened`, so a slow view creation never shows a stale one. */
  openedVersion = 0;
  dispose() {
    for (const [event, callback] of this.listeners) this.model.off(event, callback);
    this.openedView?.remove();
    this.root.remove();
  }
  listen(event, callback) {
    this.model.on(event, callback);
    this.listeners.push([event, callback]);
  }
  get selected() {
    const ids = this.model.get("selected");
    return new Set(Array.isArray(ids) ? ids.map(String) : []);
  }
  save(state) {
    for (const [name, value] of Object.entries(state)) this.model.set(name, value);
    this.model.save_changes();
  }
  toggle(id) {
    const selected = this.selected;
    if (!selected.delete(id)) selected.add(id);
    this.save({ selected: [...selected] });
  }
  onRows() {
    this.rows = asRows(this.model.get("rows"));
    this.draw();
  }
  draw() {
    this.drawHead();
    const groups = groupRows(this.rows, this.filter.value.trim(), this.sort);
    const selected = this.selected;
    const shown = groups.reduce((n, g) => n + g.rows.length, 0);
    this.count.textContent = `${shown} of ${this.rows.length} runs, ${selected.size} ticked`;
    this.open.disabled = selected.size === 0;
    this.body.textContent = "";
    for (const group of groups) {
      const header = this.body.insertRow();
      header.className = "aw-group";
      const cell = header.insertCell();
      cell.colSpan = COLUMNS.length + 1;
      const runs = group.rows.length;
      cell.textContent = `${group.env} \xB7 ${group.algorithm} (${runs} run${runs === 1 ? "" : "s"})`;
      for (const row of group.rows) this.drawRow(row, selected.has(row.id));
    }
  }
  drawHead() {
    this.head.textContent = "";
    this.head.appendChild(el("th", "aw-tick-column"));
    for (const column of COLUMNS) {
      const th = this.head.appendChild(el("th", "aw-sortable"));
      const sorted = this.sort.key === column.key;
      th.textContent = column.title + (sorted ? this.sort.descending ? " \u25BC" : " \u25B2" : "");
      th.setAttribute("aria-sort", sorted ? this.sort.descending ? "descending" : "ascending" : "none");
      th.dataset.key = column.key;
      th.addEventListener("click", () => {
        const descending = sorted ? !this.sort.descending : column.key !== "run" && column.key !== "params";
        this.sort = { key: column.key, descending };
        this.draw();
      });
    }
  }
  drawRow(row, ticked) {
    const tr = this.body.insertRow();
    tr.className = ticked ? "aw-run aw-ticked" : "aw-run";
    tr.dataset.id = row.id;
    tr.title = row.id;
    const tick = tr.insertCell().appendChild(input("aw-tick", "checkbox"));
    tick.checked = ticked;
    tick.addEventListener("change", () => this.toggle(row.id));
    for (const text2 of cellTexts(row)) tr.insertCell().textContent = text2;
    tr.addEventListener("click", (event) => {
      if (event.target !== tick) this.toggle(row.id);
    });
    tr.addEventListener("dblclick", () => {
      this.save({ selected: [row.id] });
      this.model.send({ type: "open" });
    });
  }
  showErrors() {
    const errors = this.model.get("errors");
    const list = Array.isArray(errors) ? errors : [];
    this.errors.textContent = "";
    if (list.length === 0) return;
    const details = this.errors.appendChild(el("details", "aw-error-list"));
    details.appendChild(el("summary", "")).textContent = `${list.length} run(s) could not be read and are not listed`;
    for (const error of list) details.appendChild(el("div", "aw-error")).textContent = String(error.message ?? "");
  }
  async showOpened() {
    const version = ++this.openedVersion;
    const ref = this.model.get("opened");
    const view = typeof ref === "string" ? await childView(this.model, await childModel(this.model, ref)) : void 0;
    if (version !== this.openedVersion) {
      view?.remove();
      return;
    }
    this.openedView?.remove();
    this.openedView = view;
    if (view !== void 0) this.opened.appendChild(view.el);
  }
};
function render({ model, el: el2 }) {
  const view = new LeaderboardView(model, el2);
  return () => view.dispose();
}
var leaderboard_default = { render };
export {
  leaderboard_default as default
};
