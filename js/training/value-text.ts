/**
 * What the TrainingViewer writes over its value maps, worked out without the DOM.
 *
 * A frame is the grid alone, drawn small by the kernel and scaled up by the viewer
 * (agent_widget/gridworld/_training.py says why). The cells' letters and the colour
 * bar's ends are written here instead, at the size the frame is shown and the screen's
 * pixel ratio, so they are sharp however far the frame is enlarged. Sizes and places
 * follow the kernel's own letters (agent_widget/gridworld/_glyphs.py `letter`): a mark
 * in the cell's top-left corner at 0.3 of the cell, a centred letter at 0.45.
 */
import { toFloat64 } from "../shared/series.ts";

/** The frames' grid: rows and columns of cells, `cell` frame pixels each (plus a 1 px line). */
export interface Grid {
  rows: number;
  cols: number;
  cell: number;
}

/** A letter written in a cell: in its corner (a mark, the start "S") or centred (the goal "G"). */
export interface CellLabel {
  row: number;
  col: number;
  text: string;
  corner: boolean;
}

/** Where to write a label, in CSS pixels of the shown frame. */
export interface Placed {
  text: string;
  x: number;
  y: number;
  /** Font size, CSS px. */
  size: number;
  align: "left" | "center";
  baseline: "top" | "middle";
}

/** The `grid` trait, or undefined when it is not one. */
export function readGrid(value: unknown): Grid | undefined {
  const grid = value as Partial<Grid> | null | undefined;
  const whole = (n: unknown) => typeof n === "number" && Number.isInteger(n) && n > 0;
  if (!grid || !whole(grid.rows) || !whole(grid.cols) || !whole(grid.cell)) return undefined;
  return { rows: grid.rows!, cols: grid.cols!, cell: grid.cell! };
}

/** The `labels` trait; entries that are not labels are left out. */
export function readLabels(value: unknown): CellLabel[] {
  if (!Array.isArray(value)) return [];
  return value
    .filter((v) => v && Number.isInteger(v.row) && Number.isInteger(v.col) && typeof v.text === "string")
    .map((v) => ({ row: v.row, col: v.col, text: v.text, corner: Boolean(v.corner) }));
}

/** A frame's pixel size, as the kernel draws the grid. */
export function frameSize(grid: Grid): { width: number; height: number } {
  return { width: grid.cols * grid.cell + 1, height: grid.rows * grid.cell + 1 };
}

/** Where each label goes on a frame shown `shownWidth` CSS px wide. */
export function placeLabels(grid: Grid, labels: readonly CellLabel[], shownWidth: number): Placed[] {
  const scale = shownWidth / frameSize(grid).width; // CSS px per frame pixel
  const inner = grid.cell - 1; // a cell inside its grid lines
  return labels.map(({ row, col, text, corner }) => {
    const left = col * grid.cell + 1;
    const top = row * grid.cell + 1;
    if (corner) {
      const x = left + Math.max(2, inner / 14);
      return { text, x: x * scale, y: (top + 1) * scale, size: Math.max(8, 0.3 * inner) * scale, align: "left", baseline: "top" };
    }
    const centre = { x: left + inner / 2, y: top + inner / 2 };
    return { text, x: centre.x * scale, y: centre.y * scale, size: Math.max(8, 0.45 * inner) * scale, align: "center", baseline: "middle" };
  });
}

/** The colour scale's ends (low, high) of each position, from the `scales` trait's bytes. */
export function readScales(value: unknown): [number, number][] {
  const values = toFloat64(value);
  const ends: [number, number][] = [];
  for (let i = 0; i + 1 < values.length; i += 2) ends.push([values[i], values[i + 1]]);
  return ends;
}

/**
 * A scale's end as the kernel's picture writes it: 3 significant digits, no trailing
 * zeros; whole numbers up to a million in full, exponents beyond.
 */
export function scaleText(x: number): string {
  if (!Number.isFinite(x)) return String(x);
  if (x === 0) return "0";
  const magnitude = Math.abs(x);
  if (magnitude >= 100 && magnitude < 1e6) return String(Math.round(x));
  if (magnitude >= 1e-4 && magnitude < 100) return String(Number(x.toPrecision(3)));
  return x.toExponential(2).replace(/\.?0+e/, "e");
}
