/**
 * The arena board's data, read from the kernel defensively, and what is drawn of it:
 * the ratings rows' text (the kernel's saved copy, agent_widget/arena/_board.py, writes
 * the same; board.cases.json holds the cases both are tested against), where each
 * rating's interval lies on the one rating axis all rows share, and the head-to-head
 * heatmap's colour of a score rate.
 */
import { fractionOf, type ValueAxis, valueAxis } from "../shared/axis.ts";
import { formatFixed } from "../shared/numbers.ts";

/** A player's rating (Elo-scaled), its 95% interval and its games. */
export interface Rating {
  player: string;
  rating: number;
  lower: number;
  upper: number;
  games: number;
  wins: number;
  draws: number;
  losses: number;
}

/** A cell of the head-to-head matrix: the row player's score rate against the column's, and its games. */
export interface Cell {
  row: string;
  column: string;
  rate: number;
  games: number;
  wins: number;
  draws: number;
  losses: number;
}

export type Outcome = "win" | "draw" | "loss";

/** A game between the two players of a cell; `outcome` is the row player's. */
export interface Game {
  run: string;
  episode: number;
  seed: number | null;
  first: string;
  second: string;
  outcome: Outcome;
  steps: number;
}

export const HEADERS = ["player", "rating", "95% interval", "games", "W–D–L"] as const;

const isNumber = (x: unknown): x is number => typeof x === "number" && Number.isFinite(x);
const records = (value: unknown): Record<string, unknown>[] =>
  Array.isArray(value) ? value.filter((v): v is Record<string, unknown> => typeof v === "object" && v !== null) : [];
const counts = (r: Record<string, unknown>) => ({
  games: Number(r.games) || 0,
  wins: Number(r.wins) || 0,
  draws: Number(r.draws) || 0,
  losses: Number(r.losses) || 0,
});

/** The `players` trait: rows with a finite rating and interval. */
export function asRatings(value: unknown): Rating[] {
  return records(value)
    .filter((r) => isNumber(r.rating) && isNumber(r.lower) && isNumber(r.upper))
    .map((r) => ({ player: String(r.player), rating: r.rating as number, lower: r.lower as number, upper: r.upper as number, ...counts(r) }));
}

/** The `cells` trait. */
export function asCells(value: unknown): Cell[] {
  return records(value)
    .filter((r) => isNumber(r.rate))
    .map((r) => ({ row: String(r.row), column: String(r.column), rate: r.rate as number, ...counts(r) }));
}

/** The `games` trait. */
export function asGames(value: unknown): Game[] {
  const outcomes: readonly string[] = ["win", "draw", "loss"];
  return records(value)
    .filter((r) => outcomes.includes(String(r.outcome)) && Number.isInteger(r.episode))
    .map((r) => ({
      run: String(r.run),
      episode: r.episode as number,
      seed: Number.isInteger(r.seed) ? (r.seed as number) : null,
      first: String(r.first),
      second: String(r.second),
      outcome: r.outcome as Outcome,
      steps: Number(r.steps) || 0,
    }));
}

/** A ratings row's cells as text: ratings to whole Elo points. */
export function ratingTexts(row: Rating): string[] {
  const elo = (x: number) => formatFixed(x, 0);
  return [row.player, elo(row.rating), `${elo(row.lower)} – ${elo(row.upper)}`, String(row.games), `${row.wins}–${row.draws}–${row.losses}`];
}

/** The rating axis every row's interval bar is drawn on: nice ticks around every interval. */
export function ratingAxis(rows: readonly Rating[]): ValueAxis {
  if (rows.length === 0) return valueAxis(900, 1100);
  return valueAxis(Math.min(...rows.map((r) => r.lower)), Math.max(...rows.map((r) => r.upper)));
}

/** Where a row's interval bar and rating mark lie on `axis`, in percent of its width. */
export interface Bar {
  left: number;
  width: number;
  mark: number;
}

export function barOf(row: Rating, axis: ValueAxis): Bar {
  const at = (x: number) => Math.min(100, Math.max(0, 100 * fractionOf(axis, x)));
  const left = at(row.lower);
  return { left, width: at(row.upper) - left, mark: at(row.rating) };
}

/** The tick marks of `axis`, in percent of its width, with their labels. */
export function axisTicks(axis: ValueAxis): { at: number; label: string }[] {
  return axis.ticks.map((tick, i) => ({ at: 100 * fractionOf(axis, tick), label: axis.labels[i] }));
}

type RGB = readonly [number, number, number];

/**
 * The heatmap's two hues, a colour-blind-safe pair (blue over orange), each in a light
 * theme's and a dark theme's shade: the row won more than it lost in blue, lost more in
 * orange. A shade is laid over the theme's background with an opacity growing with the
 * distance from an even score, so 50% is the background itself; at most `MAX_ALPHA`,
 * so that the theme's text stays readable on every cell (board.test.ts measures it).
 */
const HUES: Record<"light" | "dark", { above: RGB; below: RGB }> = {
  light: { above: [33, 102, 172], below: [230, 97, 1] },
  dark: { above: [49, 130, 189], below: [217, 95, 2] },
};
export const MAX_ALPHA = 0.55;

/** A cell's background for the row's score rate `rate` (0 to 1), in a light or dark theme. */
export function heatColor(rate: number, dark: boolean): string {
  if (!Number.isFinite(rate)) return "transparent";
  const hue = HUES[dark ? "dark" : "light"];
  const [r, g, b] = rate >= 0.5 ? hue.above : hue.below;
  const alpha = Math.min(1, Math.abs(rate - 0.5) * 2) * MAX_ALPHA;
  return `rgba(${r}, ${g}, ${b}, ${Number(alpha.toFixed(3))})`;
}

/** The colour key's gradient, 0% to 100%, for a CSS `background`. */
export function heatGradient(dark: boolean): string {
  const stops = [0, 0.25, 0.5, 0.75, 1].map((rate) => `${heatColor(rate, dark)} ${rate * 100}%`);
  return `linear-gradient(to right, ${stops.join(", ")})`;
}

/**
 * A game as the arena names it: game k of a pairing is the one played on seed k (its
 * episode's place in the run is the order games ended in); by its episode without a seed.
 */
export function gameName(game: Game): string {
  return game.seed === null ? `episode ${game.episode}` : `game ${game.seed}`;
}

/** A game's outcome said from the row player's side: "heuristic won", "random won", "draw". */
export function outcomeText(game: Game, row: string, column: string): string {
  return game.outcome === "draw" ? "draw" : `${game.outcome === "win" ? row : column} won`;
}
