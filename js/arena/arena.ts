/**
 * The anywidget entry point of ArenaBoard (`Arena.leaderboard()`): the ratings table,
 * each player's 95% interval a bar on one rating axis; the head-to-head matrix as a
 * heatmap (a cell the row's score rate against the column, and their wins, draws and
 * losses); a click on a cell lists the two players' games (the kernel answers the
 * `pairing` trait with `games`), a click on a game opens it (in the kernel) in an
 * EpisodeViewer shown under them. Every player's name is written with textContent,
 * never as HTML.
 */
import { OpenedChild } from "../shared/children.ts";
import { button, el } from "../shared/dom.ts";
import { ModelListeners } from "../shared/listeners.ts";
import { onAppearanceChange, readPalette } from "../shared/theme.ts";
import type { Model } from "../shared/types.ts";
import { percentText } from "../leaderboard/table.ts";
import viewer from "../viewer/widget.ts";
import type { ValueAxis } from "../shared/axis.ts";
import { asCells, asGames, asRatings, axisTicks, barOf, type Cell, HEADERS, heatColor, gameName, heatGradient, outcomeText, type Rating, ratingAxis, ratingTexts } from "./board.ts";

/** The interval bars' column is drawn before this column of the ratings' text (after the rating). */
const BARS_AFTER = 2;

class ArenaView {
  private readonly root: HTMLDivElement;
  private readonly ratings: HTMLTableElement;
  private readonly matrix: HTMLTableElement;
  private readonly key: HTMLDivElement;
  private readonly games: HTMLDivElement;
  private readonly message: HTMLDivElement;
  private readonly listeners: ModelListeners;
  private readonly opened: OpenedChild;
  private readonly stopTheme: () => void;

  constructor(
    private readonly model: Model,
    parent: HTMLElement,
  ) {
    this.root = parent.appendChild(el("div", "aw-arena"));
    const bar = this.root.appendChild(el("div", "aw-toolbar"));
    bar.appendChild(el("span", "aw-hint")).textContent = "Click a cell of the matrix for its games, a game to watch it.";
    bar.appendChild(button("aw-refresh", "Refresh", "Read the arena's games again")).addEventListener("click", () => model.send({ type: "refresh" }));
    this.ratings = this.section("Ratings").appendChild(el("table", "aw-ratings"));
    const matrixSection = this.section("Head to head: the row's score against the column (a draw half a win)");
    this.matrix = matrixSection.appendChild(el("table", "aw-matrix"));
    this.key = matrixSection.appendChild(el("div", "aw-key"));
    this.games = this.root.appendChild(el("div", "aw-games"));
    this.message = this.root.appendChild(el("div", "aw-message"));
    this.opened = new OpenedChild(model, "opened", this.root.appendChild(el("div", "aw-opened")), () => viewer.render);
    this.root.addEventListener("keydown", (event) => event.stopPropagation());
    this.root.dataset.lmSuppressShortcuts = "true";

    this.listeners = new ModelListeners(model);
    this.listeners.on("change:players", () => this.draw());
    this.listeners.on("change:cells", () => this.drawMatrix());
    this.listeners.on("change:pairing", () => this.drawMatrix());
    this.listeners.on("change:games", () => this.drawGames());
    this.listeners.on("change:message", () => this.showMessage());
    this.listeners.on("change:opened", () => this.opened.show());
    this.stopTheme = onAppearanceChange(() => this.drawMatrix());
    this.draw();
    this.showMessage();
    this.opened.show();
  }

  dispose(): void {
    this.stopTheme();
    this.listeners.dispose();
    this.opened.remove();
    this.root.remove();
  }

  private section(title: string): HTMLElement {
    const section = this.root.appendChild(el("section", "aw-section"));
    section.appendChild(el("h4", "aw-heading")).textContent = title;
    return section;
  }

  private draw(): void {
    this.drawRatings();
    this.drawMatrix();
    this.drawGames();
  }

  /**
   * The ratings table; the interval bars' column (its header the axis's tick labels) comes
   * right after the rating, so that a narrow cell still shows it beside the names.
   */
  private drawRatings(): void {
    const rows = asRatings(this.model.get("players"));
    const axis = ratingAxis(rows);
    const ticks = axisTicks(axis);
    this.ratings.textContent = "";
    const head = this.ratings.createTHead().insertRow();
    HEADERS.forEach((title, i) => {
      if (i === BARS_AFTER) {
        const scale = head.appendChild(el("th", "aw-interval")).appendChild(el("div", "aw-axis"));
        scale.setAttribute("aria-label", "ratings and 95% intervals on one axis");
        for (const tick of ticks) {
          const label = scale.appendChild(el("span", "aw-tick"));
          label.textContent = tick.label;
          label.style.left = `${tick.at}%`;
        }
      }
      head.appendChild(el("th", i === 0 ? "" : "aw-number")).textContent = title;
    });
    const body = this.ratings.createTBody();
    for (const row of rows) {
      const tr = body.insertRow();
      tr.dataset.player = row.player;
      ratingTexts(row).forEach((text, i) => {
        if (i === BARS_AFTER) tr.appendChild(this.intervalBar(row, axis));
        const td = tr.insertCell();
        td.textContent = text;
        if (i > 0) td.className = "aw-number";
      });
    }
  }

  /** A row's interval as a bar on `axis`, its rating a mark, the axis's ticks as gridlines. */
  private intervalBar(row: Rating, axis: ValueAxis): HTMLTableCellElement {
    const cell = el("td", "aw-interval");
    const track = cell.appendChild(el("div", "aw-track"));
    for (const tick of axisTicks(axis)) track.appendChild(el("span", "aw-grid")).style.left = `${tick.at}%`;
    const { left, width, mark } = barOf(row, axis);
    const span = track.appendChild(el("span", "aw-bar"));
    span.style.left = `${left}%`;
    span.style.width = `${width}%`;
    track.appendChild(el("span", "aw-mark")).style.left = `${mark}%`;
    const [, rating, range] = ratingTexts(row);
    track.title = `${row.player}: ${rating} (95% interval ${range})`;
    return cell;
  }

  private drawMatrix(): void {
    const players = asRatings(this.model.get("players")).map((r) => r.player);
    const cells = new Map(asCells(this.model.get("cells")).map((c) => [`${c.row}\u0000${c.column}`, c]));
    const pairing = this.model.get("pairing");
    const shown = Array.isArray(pairing) ? pairing.map(String) : [];
    const { dark } = readPalette(this.root);
    this.matrix.textContent = "";
    const head = this.matrix.createTHead().insertRow();
    head.appendChild(el("th", "aw-corner")).textContent = "row \\ column";
    for (const player of players) head.appendChild(el("th", "aw-column")).textContent = player;
    const body = this.matrix.createTBody();
    for (const row of players) {
      const tr = body.insertRow();
      tr.appendChild(el("th", "aw-row")).textContent = row;
      for (const column of players) {
        const td = tr.insertCell();
        const cell = cells.get(`${row}\u0000${column}`);
        td.className = "aw-heat";
        if (cell === undefined) {
          td.textContent = row === column ? "" : "–";
          continue;
        }
        td.style.background = heatColor(cell.rate, dark);
        td.appendChild(this.cellButton(cell, shown[0] === row && shown[1] === column));
      }
    }
    this.key.textContent = "";
    this.key.append("0%");
    this.key.appendChild(el("span", "aw-gradient")).style.background = heatGradient(dark);
    this.key.append("100%");
  }

  private cellButton(cell: Cell, pressed: boolean): HTMLButtonElement {
    const counts = `${cell.wins}–${cell.draws}–${cell.losses}`;
    const says = `${cell.row} against ${cell.column}: ${percentText(cell.rate)}, ${counts} (wins–draws–losses) in ${cell.games} games`;
    const b = button("aw-cell aw-quiet", "", says);
    b.dataset.row = cell.row;
    b.dataset.column = cell.column;
    b.setAttribute("aria-pressed", String(pressed));
    b.appendChild(el("span", "aw-rate")).textContent = percentText(cell.rate);
    b.appendChild(el("span", "aw-counts")).textContent = counts;
    b.addEventListener("click", () => {
      this.model.set("pairing", [cell.row, cell.column]);
      this.model.save_changes();
    });
    return b;
  }

  private drawGames(): void {
    const pairing = this.model.get("pairing");
    const [row, column] = Array.isArray(pairing) ? pairing.map(String) : [];
    const games = asGames(this.model.get("games"));
    this.games.textContent = "";
    if (row === undefined || column === undefined) return;
    this.games.appendChild(el("h4", "aw-heading")).textContent = `${row} vs ${column}: ${games.length} game${games.length === 1 ? "" : "s"}`;
    const table = this.games.appendChild(el("table", "aw-game-list"));
    const head = table.createTHead().insertRow();
    for (const title of ["game", "first to move", "second", "outcome", "steps"]) head.appendChild(el("th", "")).textContent = title;
    const body = table.createTBody();
    for (const game of games) {
      const tr = body.insertRow();
      tr.className = "aw-game";
      tr.dataset.episode = String(game.episode);
      const where = `episode ${game.episode} of ${game.run}`;
      const open = button("aw-open-game aw-quiet", gameName(game), `Watch ${gameName(game)} (${where}) at its last move`);
      open.addEventListener("click", () => this.model.send({ type: "open", run: game.run, episode: game.episode }));
      tr.insertCell().appendChild(open);
      for (const text of [game.first, game.second, outcomeText(game, row, column), String(game.steps)]) tr.insertCell().textContent = text;
    }
  }

  private showMessage(): void {
    this.message.textContent = String(this.model.get("message") ?? "");
  }

}

function render({ model, el }: { model: Model; el: HTMLElement }): () => void {
  const view = new ArenaView(model, el);
  return () => view.dispose();
}

export default { render };
