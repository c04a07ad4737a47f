/**
 * The timeline strip: rewards as bars, the running return as a line, any
 * scalar extras as thinner lines, a mark at each step whose reward is NaN or
 * infinite (left out of the scales and the return), and a cursor at the current
 * position.
 *
 * Each pixel column draws the min..max of the steps it covers, so 100,000 steps
 * cost one pass over the series when the data or width changes, and moving the
 * cursor only copies a cached background.
 */
import { nonFiniteSteps, type Series } from "./series.ts";
import { onAppearanceChange, type Palette, readPalette } from "./theme.ts";

export interface Bins {
  min: Float64Array;
  max: Float64Array;
}

/**
 * Min and max of `values` per column, for a strip of `columns` pixels over
 * `domain` positions (value i sits at position i). NaN and infinite values are
 * left out; columns with no value left are NaN.
 */
export function binMinMax(values: Float64Array, domain: number, columns: number): Bins {
  const min = new Float64Array(columns).fill(Number.NaN);
  const max = new Float64Array(columns).fill(Number.NaN);
  for (let c = 0; c < columns; c++) {
    const first = Math.floor((c * domain) / columns);
    // At least one position per column, so a short series still fills the strip.
    const end = Math.min(values.length, Math.max(first + 1, Math.ceil(((c + 1) * domain) / columns)));
    let lo = Number.POSITIVE_INFINITY;
    let hi = Number.NEGATIVE_INFINITY;
    for (let i = first; i < end; i++) {
      const value = values[i];
      if (!Number.isFinite(value)) continue;
      if (value < lo) lo = value;
      if (value > hi) hi = value;
    }
    if (lo <= hi) {
      min[c] = lo;
      max[c] = hi;
    }
  }
  return { min, max };
}

/** The position under pixel `x` of a strip `width` wide over `length` positions. */
export function positionAt(x: number, width: number, length: number): number {
  return Math.max(0, Math.min(length - 1, Math.floor((x / width) * length)));
}

/** The x (pixel centre) of position `t`. */
export function cursorX(t: number, width: number, length: number): number {
  return ((t + 0.5) / length) * width;
}

const HEIGHT = 48;

/** The timeline's colours, each with a lighter variant that keeps its contrast on a dark theme. */
export interface SeriesColors {
  reward: string;
  penalty: string;
  return: string;
  cursor: string;
  nonFinite: string;
  extras: readonly string[];
}

const LIGHT: SeriesColors = {
  reward: "#4c9a2a",
  penalty: "#c0392b",
  return: "#1f5fbf",
  cursor: "#e67e22",
  nonFinite: "#d81b60",
  extras: ["#8e44ad", "#16a085", "#d35400", "#7f8c8d"],
};

const DARK: SeriesColors = {
  reward: "#7cc35a",
  penalty: "#ff7b6b",
  return: "#7ab4ff",
  cursor: "#ffa040",
  nonFinite: "#ff6fa5",
  extras: ["#c59be0", "#4fd1b5", "#ffa868", "#c0c6c9"],
};

/** The timeline's colours for a theme. */
export function seriesColors(palette: Palette): SeriesColors {
  return palette.dark ? DARK : LIGHT;
}

/**
 * Draws a strip's background into a context of `width` x `height` device pixels,
 * in the colours of the theme it sits in.
 */
export type DrawBackground = (c: CanvasRenderingContext2D, width: number, height: number, ratio: number, palette: Palette) => void;

/**
 * A canvas strip over `length` positions: its background is drawn when the data,
 * the width, the theme or the pixel ratio changes and cached, a cursor is drawn over
 * a copy of it, and a click or drag reports the position under the pointer.
 */
export class Strip {
  readonly element: HTMLCanvasElement;
  private readonly background = document.createElement("canvas");
  private readonly resizeObserver: ResizeObserver;
  private readonly stopWatching: () => void;
  private palette: Palette | undefined;
  private length = 0;
  private step = 0;

  constructor(
    parent: HTMLElement,
    className: string,
    private readonly height: number,
    /** The cursor's colour in a theme. */
    private readonly cursorColor: (palette: Palette) => string,
    private readonly draw: DrawBackground,
    onSeek: (t: number) => void,
    /** Marks drawn over the cursor, so that it never hides them. */
    private readonly drawOver?: DrawBackground,
  ) {
    this.element = parent.appendChild(document.createElement("canvas"));
    this.element.className = className;
    const seek = (event: PointerEvent) => {
      const rect = this.element.getBoundingClientRect();
      if (this.length > 0 && rect.width > 0) onSeek(positionAt(event.clientX - rect.left, rect.width, this.length));
    };
    this.element.addEventListener("pointerdown", (event) => {
      this.element.setPointerCapture(event.pointerId);
      seek(event);
    });
    this.element.addEventListener("pointermove", (event) => {
      if (this.element.hasPointerCapture(event.pointerId)) seek(event);
    });
    this.resizeObserver = new ResizeObserver(() => this.redraw());
    this.resizeObserver.observe(this.element);
    this.stopWatching = onAppearanceChange(() => this.redraw());
  }

  /** The number of positions changed, or the data the background shows: draw it again. */
  setLength(length: number): void {
    this.length = length;
    this.redraw();
  }

  setCursor(t: number): void {
    this.step = t;
    this.drawCursor();
  }

  dispose(): void {
    this.resizeObserver.disconnect();
    this.stopWatching();
  }

  /** Redraws the background for the current pixel width and theme into the cache. */
  redraw(): void {
    const ratio = window.devicePixelRatio || 1;
    const width = Math.max(1, Math.round(this.element.clientWidth * ratio));
    const height = Math.round(this.height * ratio);
    for (const canvas of [this.element, this.background]) {
      if (canvas.width !== width) canvas.width = width;
      if (canvas.height !== height) canvas.height = height;
    }
    this.palette = readPalette(this.element);
    this.element.dataset.theme = this.palette.dark ? "dark" : "light";
    const c = this.background.getContext("2d")!;
    c.clearRect(0, 0, width, height);
    if (this.length > 0) this.draw(c, width, height, ratio, this.palette);
    this.drawCursor();
  }

  private drawCursor(): void {
    const c = this.element.getContext("2d")!;
    const { width, height } = this.element;
    c.clearRect(0, 0, width, height);
    c.drawImage(this.background, 0, 0);
    if (this.length <= 0) return;
    this.palette ??= readPalette(this.element);
    c.fillStyle = this.cursorColor(this.palette);
    const x = cursorX(this.step, width, this.length);
    const ratio = window.devicePixelRatio || 1;
    const w = Math.max(2, Math.round(ratio));
    c.fillRect(Math.round(x - w / 2), 0, w, height);
    this.drawOver?.(c, width, height, ratio, this.palette);
  }
}

export class Timeline {
  private readonly strip: Strip;
  private series: Series | undefined;
  private nonFinite: number[] = [];
  private length = 0;

  constructor(parent: HTMLElement, onSeek: (t: number) => void) {
    const cursor = (palette: Palette) => seriesColors(palette).cursor;
    this.strip = new Strip(parent, "aw-timeline", HEIGHT, cursor, (c, width, height, ratio, palette) => {
      if (this.series === undefined) return;
      const colors = seriesColors(palette);
      drawBars(c, binMinMax(this.series.rewards, this.length, width), height, colors);
      [...this.series.extras.values()].forEach((values, i) => {
        drawLine(c, binMinMax(values, this.length, width), height, colors.extras[i % colors.extras.length], ratio);
      });
      drawLine(c, binMinMax(this.series.returns, this.length, width), height, colors.return, 1.5 * ratio);
      c.fillStyle = colors.nonFinite;
      for (const t of this.nonFinite) c.fillRect(Math.floor(cursorX(t, width, this.length)), 0, Math.ceil(ratio), height);
    }, onSeek);
  }

  get element(): HTMLCanvasElement {
    return this.strip.element;
  }

  setData(series: Series, length: number): void {
    this.series = series;
    this.nonFinite = nonFiniteSteps(series.rewards);
    this.length = length;
    this.element.title = [
      "rewards (bars)",
      "return (line)",
      ...[...series.extras.keys()].map((n) => `extra:${n}`),
      ...(this.nonFinite.length > 0 ? ["a NaN or infinite reward (pink mark)"] : []),
    ].join(", ");
    this.element.dataset.nonFiniteSteps = this.nonFinite.slice(0, 100).join(",");
    this.strip.setLength(length);
  }

  setCursor(t: number): void {
    this.strip.setCursor(t);
  }

  dispose(): void {
    this.strip.dispose();
  }
}

/** Reward bars from zero, up for gains and down for losses, scaled to the largest magnitude. */
function drawBars(c: CanvasRenderingContext2D, bins: Bins, height: number, colors: SeriesColors): void {
  const { lo, hi } = range(bins);
  const top = Math.max(hi, 0);
  const bottom = Math.min(lo, 0);
  if (top === bottom) return;
  const y = (v: number) => ((top - v) / (top - bottom)) * (height - 2) + 1;
  const zero = y(0);
  for (let x = 0; x < bins.min.length; x++) {
    const mn = bins.min[x];
    const mx = bins.max[x];
    if (Number.isNaN(mn)) continue;
    if (mx > 0) {
      c.fillStyle = colors.reward;
      c.fillRect(x, y(mx), 1, Math.max(1, zero - y(mx)));
    }
    if (mn < 0) {
      c.fillStyle = colors.penalty;
      c.fillRect(x, zero, 1, Math.max(1, y(mn) - zero));
    }
  }
}

/** A line through each column's min..max, scaled to `scale` (by default the series' own range). */
export function drawLine(
  c: CanvasRenderingContext2D,
  bins: Bins,
  height: number,
  color: string,
  lineWidth: number,
  scale: { lo: number; hi: number } = range(bins),
): void {
  const { lo, hi } = scale;
  if (!Number.isFinite(lo)) return;
  const span = hi - lo || 1;
  const y = (v: number) => height - 2 - ((v - lo) / span) * (height - 4);
  c.strokeStyle = color;
  c.lineWidth = lineWidth;
  c.beginPath();
  let started = false;
  for (let x = 0; x < bins.min.length; x++) {
    if (Number.isNaN(bins.min[x])) continue;
    if (started) c.lineTo(x + 0.5, y(bins.min[x]));
    else c.moveTo(x + 0.5, y(bins.min[x]));
    c.lineTo(x + 0.5, y(bins.max[x]));
    started = true;
  }
  c.stroke();
}

function range(bins: Bins): { lo: number; hi: number } {
  let lo = Number.POSITIVE_INFINITY;
  let hi = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < bins.min.length; i++) {
    if (bins.min[i] < lo) lo = bins.min[i];
    if (bins.max[i] > hi) hi = bins.max[i];
  }
  return { lo, hi };
}
