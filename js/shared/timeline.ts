/**
 * The timeline strip: rewards as bars (a column's min to max, so a constant reward
 * is a thin line, not a filled block), the running return as a line with its scale
 * at the left edge, any scalar extras as thinner lines, marks for terminations
 * (filled) and truncations (hollow) at the top, a pink mark at each step whose reward
 * is NaN or infinite (left out of the scales and the return), a cursor at the current
 * position, and a legend below naming what is drawn.
 *
 * It draws per pixel column (js/shared/columns.ts): from the exact series of a short
 * episode, or the kernel's summary of a long one, rebinned to its width. Moving the
 * cursor only copies a cached background.
 */
import { type Bins, columnsOfSeries, positionsPerColumn, rebin, sliceColumns, type TimelineColumns } from "./columns.ts";
import { formatNumber } from "./numbers.ts";
import { nonFiniteSteps, type Series } from "./series.ts";
import { onAppearanceChange, type Palette, readPalette } from "./theme.ts";

export { binMinMax, type Bins } from "./columns.ts";

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
  /** The positions shown, from .. to - 1, when zoomed in (`setRange`); all of them when undefined. */
  private zoomed: [number, number] | undefined;

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
      if (this.length > 0 && rect.width > 0) onSeek(this.from + positionAt(event.clientX - rect.left, rect.width, this.span));
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
    if (this.zoomed !== undefined && this.zoomed[1] > length) this.zoomed = undefined;
    this.redraw();
  }

  /** Shows positions `from .. to - 1` across the strip (zoomed in), or all of them (undefined). */
  setRange(range: [number, number] | undefined): void {
    this.zoomed = range;
    this.redraw();
  }

  /** The positions shown across the strip, from .. to - 1. */
  get range(): [number, number] {
    return this.zoomed ?? [0, this.length];
  }

  private get from(): number {
    return this.range[0];
  }

  private get to(): number {
    return this.range[1];
  }

  private get span(): number {
    return Math.max(1, this.to - this.from);
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
    const ratio = window.devicePixelRatio || 1;
    if (this.step >= this.from && this.step < this.to) {
      c.fillStyle = this.cursorColor(this.palette);
      const x = cursorX(this.step - this.from, width, this.span);
      const w = Math.max(2, Math.round(ratio));
      c.fillRect(Math.round(x - w / 2), 0, w, height);
    }
    this.drawOver?.(c, width, height, ratio, this.palette);
  }
}

const LABEL_PX = 10;
const MARK_PX = 6;
/** The fewest positions a zoomed strip shows. */
const MIN_SPAN = 16;
/** What the legend calls what it draws: an env's rewards by default, anything summed along positions otherwise. */
export interface TimelineNames {
  reward: string;
  return: string;
  steps: string;
}
const NAMES: TimelineNames = { reward: "reward", return: "return", steps: "steps" };

/** A zoom or pan settles this long before a finer range is asked of the kernel. */
const RANGE_DELAY_MS = 120;

/** Asks the kernel for positions `from .. to - 1` of a long episode's timeline in `columns` columns. */
export type FetchRange = (from: number, to: number, columns: number) => Promise<TimelineColumns | undefined>;

/**
 * The viewer's timeline. Ctrl (or Cmd) + wheel, or a pinch, zooms in around the
 * pointer; Shift + wheel, or a sideways swipe, pans; a double click shows the whole
 * episode again. The zoomed strip follows the playhead a page at a time. Zoomed in
 * past the summary of a long episode, it asks the kernel for the range's exact columns.
 */
export class Timeline {
  private readonly strip: Strip;
  private readonly legend: HTMLDivElement;
  private series: Series | undefined;
  private summary: TimelineColumns | undefined;
  private length = 0;
  /** The kernel's columns of a zoomed range of a long episode, once they came. */
  private detail: { from: number; to: number; columns: TimelineColumns } | undefined;
  private rangeTimer: ReturnType<typeof setTimeout> | undefined;
  private names = NAMES;

  constructor(
    parent: HTMLElement,
    onSeek: (t: number) => void,
    private readonly fetchRange?: FetchRange,
  ) {
    const cursor = (palette: Palette) => seriesColors(palette).cursor;
    this.strip = new Strip(parent, "aw-timeline", HEIGHT, cursor, (c, width, height, ratio, palette) => {
      const columns = this.columns(width);
      if (columns !== undefined) this.drawColumns(c, columns, height, ratio, palette);
    }, onSeek);
    this.legend = parent.appendChild(document.createElement("div"));
    this.legend.className = "aw-timeline-legend";
    this.element.addEventListener("wheel", (event) => this.onWheel(event), { passive: false });
    this.element.addEventListener("dblclick", () => this.zoom(undefined));
  }

  get element(): HTMLCanvasElement {
    return this.strip.element;
  }

  /** The series of every step, or (`summary` given) a long episode's summary instead. */
  setData(series: Series, length: number, summary?: TimelineColumns): void {
    this.series = series;
    this.summary = summary;
    this.length = length;
    this.detail = undefined;
    if (summary === undefined) this.element.dataset.nonFiniteSteps = nonFiniteSteps(series.rewards).slice(0, 100).join(",");
    else delete this.element.dataset.nonFiniteSteps;
    this.element.dataset.summarized = String(summary !== undefined);
    this.strip.setLength(length);
  }

  /** What the legend calls the rewards, their sum and the positions (names left out keep their default). */
  setNames(names: Partial<TimelineNames>): void {
    this.names = { ...NAMES, ...names };
    this.strip.redraw();
  }

  /** Moves the cursor; a zoomed strip the cursor leaves turns a page to keep it in view. */
  setCursor(t: number): void {
    const [from, to] = this.strip.range;
    const span = to - from;
    if (span < this.length && (t < from || t >= to)) {
      const start = Math.max(0, Math.min(this.length - span, t - Math.floor(span / 10)));
      this.strip.setCursor(t);
      this.zoom([start, start + span]);
      return;
    }
    this.strip.setCursor(t);
  }

  dispose(): void {
    clearTimeout(this.rangeTimer);
    this.strip.dispose();
  }

  /** Shows positions `range[0] .. range[1] - 1`, or the whole episode (undefined). */
  zoom(range: [number, number] | undefined): void {
    const whole = range === undefined || (range[0] <= 0 && range[1] >= this.length);
    this.element.dataset.range = whole ? "" : range.join(",");
    this.strip.setRange(whole ? undefined : range);
  }

  private onWheel(event: WheelEvent): void {
    const [from, to] = this.strip.range;
    const span = to - from;
    const rect = this.element.getBoundingClientRect();
    if (this.length <= 1 || rect.width <= 0) return;
    const at = Math.max(0, Math.min(1, (event.clientX - rect.left) / rect.width));
    const sideways = event.shiftKey || Math.abs(event.deltaX) > Math.abs(event.deltaY);
    if (event.ctrlKey || event.metaKey) {
      event.preventDefault(); // the page's own zoom
      const next = Math.round(Math.max(Math.min(this.length, MIN_SPAN), Math.min(this.length, span * Math.exp(event.deltaY * 0.002))));
      const start = Math.round(Math.max(0, Math.min(this.length - next, from + at * span - at * next)));
      this.zoom([start, start + next]);
    } else if (sideways && span < this.length) {
      event.preventDefault(); // a page scrolls only when the strip is not zoomed
      const delta = ((event.shiftKey ? event.deltaY || event.deltaX : event.deltaX) / rect.width) * span;
      const start = Math.round(Math.max(0, Math.min(this.length - span, from + delta)));
      this.zoom([start, start + span]);
    }
  }

  /** The columns to draw `width` wide: of the exact series, or of the summary (the kernel's finer range when zoomed past it). */
  private columns(width: number): TimelineColumns | undefined {
    const [from, to] = this.strip.range;
    if (this.summary === undefined) {
      return this.series === undefined ? undefined : columnsOfSeries(this.series, this.length, width, from, to);
    }
    if (from === 0 && to === this.length) return rebin(this.summary, width);
    const detail = this.detail;
    const wanted = Math.min(width, to - from);
    if (detail !== undefined && detail.from === from && detail.to === to && detail.columns.returns.min.length === wanted) {
      this.element.dataset.detail = "true";
      return rebin(detail.columns, width);
    }
    this.element.dataset.detail = "false";
    if ((to - from) / width < positionsPerColumn(this.summary, this.length)) this.askRange(from, to, wanted);
    return rebin(sliceColumns(this.summary, this.length, from, to), width);
  }

  /** Asks the kernel for a zoomed range's columns once the zoom settles, and draws them when they come. */
  private askRange(from: number, to: number, columns: number): void {
    if (this.fetchRange === undefined) return;
    clearTimeout(this.rangeTimer);
    this.rangeTimer = setTimeout(() => {
      void this.fetchRange!(from, to, columns).then((got) => {
        const [f, t] = this.strip.range;
        if (got === undefined || f !== from || t !== to) return;
        this.detail = { from, to, columns: got };
        this.strip.redraw();
      });
    }, RANGE_DELAY_MS);
  }

  private drawColumns(c: CanvasRenderingContext2D, columns: TimelineColumns, height: number, ratio: number, palette: Palette): void {
    const colors = seriesColors(palette);
    drawBars(c, columns.rewards, height, colors);
    [...columns.extras.values()].forEach((bins, i) => {
      drawLine(c, bins, height, colors.extras[i % colors.extras.length], ratio);
    });
    const scale = range(columns.returns);
    drawLine(c, columns.returns, height, colors.return, 1.5 * ratio, scale);
    c.fillStyle = colors.nonFinite;
    columns.nonFinite.forEach((mark, x) => mark && c.fillRect(x, 0, Math.ceil(ratio), height));
    drawEndMarks(c, columns, ratio, palette.text);
    if (scale.hi > scale.lo) drawScale(c, scale, height, ratio, colors.return, palette);
    this.showLegend(columns, scale, colors, palette.text);
  }

  /** The legend: a swatch and a name for each thing drawn (user names as text, never HTML). */
  private showLegend(columns: TimelineColumns, scale: { lo: number; hi: number }, colors: SeriesColors, ends: string): void {
    const items: [string, string, string][] = [
      ["bar", colors.reward, this.names.reward],
      [
        "line",
        colors.return,
        Number.isFinite(scale.lo) ? `${this.names.return} ${formatNumber(scale.lo)} to ${formatNumber(scale.hi)}` : this.names.return,
      ],
    ];
    [...columns.extras.keys()].forEach((name, i) => items.push(["line", colors.extras[i % colors.extras.length], name]));
    if (columns.terminated.includes(1)) items.push(["terminated", ends, "terminated"]);
    if (columns.truncated.includes(1)) items.push(["truncated", ends, "truncated"]);
    if (columns.nonFinite.includes(1)) items.push(["bar", colors.nonFinite, "NaN or infinite reward"]);
    const [from, to] = this.strip.range;
    if (to - from < this.length) items.push(["none", "", `${this.names.steps} ${from} to ${to - 1} (double-click: all)`]);
    const key = JSON.stringify(items);
    if (this.legend.dataset.key === key) return;
    this.legend.dataset.key = key;
    this.legend.replaceChildren(
      ...items.map(([kind, color, name]) => {
        const item = document.createElement("span");
        item.className = "aw-timeline-key";
        const swatch = item.appendChild(document.createElement("span"));
        swatch.className = `aw-key-swatch aw-key-${kind}`;
        swatch.style.setProperty("--aw-key-color", color);
        item.append(name);
        return item;
      }),
    );
    this.element.title = [
      items.map(([, , name]) => name).join(", "),
      "Ctrl+wheel: zoom; Shift+wheel: pan; double-click: the whole episode",
    ].join("\n");
  }
}

/**
 * Reward bars: each column from its lowest to its highest reward (at least a pixel),
 * green above zero and red below, on a scale from zero to the largest magnitude. A
 * column of zero rewards draws nothing, a constant reward a thin line at its level.
 */
function drawBars(c: CanvasRenderingContext2D, bins: Bins, height: number, colors: SeriesColors): void {
  const { lo, hi } = range(bins);
  const top = Math.max(hi, 0);
  const bottom = Math.min(lo, 0);
  if (top === bottom) return;
  const y = (v: number) => ((top - v) / (top - bottom)) * (height - 2) + 1;
  for (let x = 0; x < bins.min.length; x++) {
    const mn = bins.min[x];
    const mx = bins.max[x];
    if (Number.isNaN(mn) || (mn === 0 && mx === 0)) continue;
    if (mx > 0) {
      const from = Math.max(mn, 0);
      c.fillStyle = colors.reward;
      c.fillRect(x, y(mx), 1, Math.max(1, y(from) - y(mx)));
    }
    if (mn < 0) {
      const from = Math.min(mx, 0);
      c.fillStyle = colors.penalty;
      c.fillRect(x, y(from), 1, Math.max(1, y(mn) - y(from)));
    }
  }
}

/** A downward triangle at the top of each column where the episode ended: filled if terminated, hollow if truncated. */
function drawEndMarks(c: CanvasRenderingContext2D, columns: TimelineColumns, ratio: number, color: string): void {
  const size = MARK_PX * ratio;
  const width = columns.terminated.length;
  const triangle = (x: number) => {
    const centre = Math.min(Math.max(x + 0.5, size / 2), width - size / 2);
    c.beginPath();
    c.moveTo(centre - size / 2, 0);
    c.lineTo(centre + size / 2, 0);
    c.lineTo(centre, size);
    c.closePath();
  };
  c.fillStyle = color;
  c.strokeStyle = color;
  c.lineWidth = ratio;
  columns.terminated.forEach((mark, x) => {
    if (!mark) return;
    triangle(x);
    c.fill();
  });
  columns.truncated.forEach((mark, x) => {
    if (!mark || columns.terminated[x]) return;
    triangle(x);
    c.stroke();
  });
}

/** The return line's scale: its highest value at the top left, its lowest at the bottom left. */
function drawScale(
  c: CanvasRenderingContext2D,
  scale: { lo: number; hi: number },
  height: number,
  ratio: number,
  color: string,
  palette: Palette,
): void {
  c.font = `${LABEL_PX * ratio}px sans-serif`;
  const pad = 2 * ratio;
  const labels: [string, number, CanvasTextBaseline][] = [
    [formatNumber(scale.hi), pad, "top"],
    [formatNumber(scale.lo), height - pad, "bottom"],
  ];
  for (const [text, y, baseline] of labels) {
    c.textBaseline = baseline;
    const w = c.measureText(text).width;
    // A backing of the strip's own background, so the label reads over bars and lines.
    c.fillStyle = palette.dark ? "rgba(0, 0, 0, 0.6)" : "rgba(255, 255, 255, 0.75)";
    c.fillRect(pad, baseline === "top" ? y - ratio : y - LABEL_PX * ratio - ratio, w + 2 * pad, (LABEL_PX + 2) * ratio);
    c.fillStyle = color;
    c.fillText(text, 2 * pad, y);
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
