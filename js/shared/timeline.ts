/**
 * The timeline strip, framed by its axes (js/shared/chart-frame.ts): the running return
 * as a line on the left axis, rewards as bars from zero on the right axis (a run of
 * them a quiet band with a solid edge), positions on a step axis of nice ticks that
 * follow the zoom; each scalar extra on a band of its own under the main one, named by
 * it, with its own axis (js/shared/timeline-axes.ts: the components `name[i]` of a
 * vector extra together, declared rates on 0-1, a multi-agent episode's per-agent
 * returns on the return's axis), every axis fitted to what is shown; marks for
 * terminations (filled) and truncations (hollow) at the top, a pink mark at each step
 * whose reward is NaN or infinite (left out of the scales and the return), a cursor at
 * the current position, a dashed mark at a step the widget names (where a checkpoint
 * first acts differently from the one before), and a legend below naming what is drawn,
 * each series' entry a toggle, with a log scale toggle. Training curves get a
 * smoothing slider: raw series faint, their exponential moving average bold. The
 * pointer over the plot shows each series' value at its position (js/shared/hover.ts).
 *
 * It draws per pixel column (js/shared/columns.ts): from the exact series of a short
 * episode, or the kernel's summary of a long one, rebinned to its width. Moving the
 * cursor only copies a cached background.
 */
import { rateAxis, stepTicks, tickLabels } from "./axis.ts";
import { ChartFrame, type TickLabel, valueLabels } from "./chart-frame.ts";
import { columnsOfSeries, positionsPerColumn, rebin, sliceColumns, type TimelineColumns } from "./columns.ts";
import { el } from "./dom.ts";
import { formatFixed, seriesDecimals } from "./numbers.ts";
import { nonFiniteSteps, type Series } from "./series.ts";
import { Hover } from "./hover.ts";
import { smoothColumns, smoothSeries } from "./smoothing.ts";
import { cursorX, positionAt, Strip } from "./strip.ts";
import type { Palette } from "./theme.ts";
import {
  drawAxisEdge,
  drawBars,
  drawDivergence,
  drawEndMarks,
  drawGrid,
  drawLine,
  haloColor,
  INSET,
  range,
  seriesColors,
  type SeriesColors,
  timelineLayout,
  yOnAxis,
} from "./timeline-draw.ts";
import { extraGroups, groupOf, type TimelineAxes, timelineAxes } from "./timeline-axes.ts";
import { type HoverSeries, valuesAt } from "./timeline-hover.ts";
import { type LegendItem, TimelineLegend } from "./timeline-legend.ts";

/** The fewest positions a zoomed strip shows. */
const MIN_SPAN = 16;
/** How faint the raw series are under their smoothed curves. */
const RAW_ALPHA = 0.3;
/** What the legend calls what it draws: an env's rewards by default, anything summed along positions otherwise. */
export interface TimelineNames {
  reward: string;
  return: string;
  steps: string;
  /** One of them, as the hover names the one under the pointer. */
  position: string;
}
const NAMES: TimelineNames = { reward: "reward", return: "return", steps: "steps", position: "step" };

/** A zoom or pan settles this long before a finer range is asked of the kernel. */
const RANGE_DELAY_MS = 120;

/** Asks the kernel for positions `from .. to - 1` of a long episode's timeline in `columns` columns. */
export type FetchRange = (from: number, to: number, columns: number) => Promise<TimelineColumns | undefined>;

/**
 * The viewer's timeline. Ctrl (or Cmd) + wheel, or a pinch, zooms in around the
 * pointer; Shift + wheel, or a sideways swipe, pans; a double click shows the whole
 * episode again, at the step shown before it (its clicks seek no further). The zoomed
 * strip follows the playhead a page at a time. Zoomed in past the summary of a long
 * episode, it asks the kernel for the range's exact columns.
 */
export class Timeline {
  private readonly frame: ChartFrame;
  private readonly strip: Strip;
  private readonly legend: TimelineLegend;
  private readonly hover: Hover;
  /** What the last drawing showed: its columns (and smoothed ones) in its colours. */
  private drawn: { columns: TimelineColumns; smoothed: TimelineColumns | undefined; colors: SeriesColors } | undefined;
  private series: Series | undefined;
  private summary: TimelineColumns | undefined;
  private length = 0;
  /** The kernel's columns of a zoomed range of a long episode, once they came. */
  private detail: { from: number; to: number; columns: TimelineColumns } | undefined;
  private rangeTimer: ReturnType<typeof setTimeout> | undefined;
  private names = NAMES;
  /** The extras drawn on the 0-1 axis. */
  private rates = new Set<string>();
  /** The weight of the curves' moving average; null: no smoothing (and no slider). */
  private smoothing: number | null = null;
  private layout = timelineLayout([]);
  /** Log value axes (the legend's toggle). */
  private log = false;
  /** The step marked (dashed), or null. */
  private mark: number | null = null;
  /** The cursor's step, and where it was before each of the last two presses on the strip. */
  private cursor = 0;
  private beforePresses: [number, number] = [0, 0];

  constructor(
    parent: HTMLElement,
    onSeek: (t: number) => void,
    private readonly fetchRange?: FetchRange,
    /** The user moved the smoothing slider. */
    onSmoothing: (weight: number) => void = () => {},
  ) {
    // The chart, its axes and its legend in one box: a widget hides it to hide all of them.
    const box = parent.appendChild(el("div", "aw-timeline-box"));
    this.frame = new ChartFrame(box, "aw-timeline-chart");
    const cursor = (palette: Palette) => palette.playhead;
    this.strip = new Strip(this.frame.plot, "aw-timeline", this.layout.height, cursor, (c, width, _height, ratio, palette) => {
      const columns = this.columns(width, false);
      if (columns !== undefined) this.drawColumns(c, columns, width, ratio, palette);
    }, onSeek, (c, width, _height, ratio, palette) => {
      const x = this.mark === null ? undefined : this.markX(this.mark, width);
      if (x !== undefined) drawDivergence(c, x, ratio, palette);
    });
    this.legend = new TimelineLegend(box, (weight) => {
      this.smoothing = weight;
      this.strip.redraw();
      onSmoothing(weight);
    }, (log) => {
      this.log = log;
      this.element.dataset.log = String(log);
      this.strip.redraw();
    }, () => this.strip.redraw());
    this.hover = new Hover(this.frame, {
      positionAt: (x, width) => (this.length > 0 ? this.strip.range[0] + positionAt(x, width, this.span) : null),
      xOf: (t, width) => cursorX(t - this.strip.range[0], width, this.span),
      heading: (t) => this.hoverHeading(t),
      values: (t) => valuesAt(this.hoverSeries(), this.hoverIndex(t)),
    });
    this.element.addEventListener("wheel", (event) => this.onWheel(event), { passive: false });
    // Each press of a double click seeks (the strip's listener, which runs after this
    // capturing one); the double click puts back the step shown before its first press.
    box.addEventListener("pointerdown", (event) => {
      if (event.target === this.element) this.beforePresses = [this.beforePresses[1], this.cursor];
    }, { capture: true });
    this.element.addEventListener("dblclick", () => {
      this.zoom(undefined);
      if (this.beforePresses[0] !== this.cursor) onSeek(this.beforePresses[0]);
    });
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
    this.updateLayout();
    this.strip.setLength(length);
  }

  /** Marks step `t` with a dashed line (null: no mark); the canvas's `data-mark` says which. */
  setMark(t: number | null): void {
    this.mark = t;
    if (t === null) delete this.element.dataset.mark;
    else this.element.dataset.mark = String(t);
    this.strip.redraw();
  }

  /** What the legend calls the rewards, their sum and the positions (names left out keep their default). */
  setNames(names: Partial<TimelineNames>): void {
    this.names = { ...NAMES, ...names };
    this.strip.redraw();
  }

  /**
   * How the curves are drawn: `rates`, the extras that are rates (drawn on a 0-1 axis
   * of their own); `smoothing`, the weight of their moving average, or null for none
   * and no slider.
   */
  setCurves(rates: readonly string[], smoothing: number | null): void {
    this.rates = new Set(rates);
    this.smoothing = smoothing;
    this.legend.setSmoothing(smoothing);
    this.updateLayout();
    this.strip.redraw();
  }

  /** A band under the main one for each group of extras, the strip's height to match. */
  private updateLayout(): void {
    const extras = this.summary?.extras ?? this.series?.extras ?? new Map<string, unknown>();
    this.layout = timelineLayout(extraGroups(extras.keys()));
    this.strip.setHeight(this.layout.height);
  }

  /** Moves the cursor; a zoomed strip the cursor leaves turns a page to keep it in view. */
  setCursor(t: number): void {
    this.cursor = t;
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

  /** The device-pixel x of step `t` in the zoomed range, or undefined when it is outside it. */
  private markX(t: number, width: number): number | undefined {
    const [from, to] = this.strip.range;
    return t >= from && t < to ? cursorX(t - from, width, to - from) : undefined;
  }

  dispose(): void {
    clearTimeout(this.rangeTimer);
    this.hover.dispose();
    this.strip.dispose();
  }

  /** The positions shown across the strip, at least 1. */
  private get span(): number {
    const [from, to] = this.strip.range;
    return Math.max(1, to - from);
  }

  /** Whether the user left series `key` shown (its legend entry not clicked off). */
  private shown(key: string): boolean {
    return this.legend.series.isShown(key);
  }

  /** The column of a summary drawn at position `t`, or `t` itself for exact series. */
  private hoverIndex(t: number): number {
    const count = this.drawn?.columns.returns.min.length ?? 0;
    if (this.summary === undefined || count === 0) return t;
    return Math.min(count - 1, Math.floor(((t - this.strip.range[0]) * count) / this.span));
  }

  /** The hover's first line: the position, or the positions a summary's column covers. */
  private hoverHeading(t: number): string {
    const count = this.drawn?.columns.returns.min.length ?? 0;
    if (this.summary === undefined || count === 0 || count >= this.span) return `${this.names.position} ${t}`;
    const c = this.hoverIndex(t);
    const first = (k: number) => this.strip.range[0] + Math.floor((k * this.span) / count);
    return `${this.names.steps} ${first(c)} to ${Math.max(first(c), first(c + 1) - 1)}`;
  }

  /** The shown series as the hover reads them, in the legend's order: exact, or the summary's columns drawn. */
  private hoverSeries(): HoverSeries[] {
    const drawn = this.drawn;
    if (drawn === undefined) return [];
    const { colors } = drawn;
    const exact = this.summary === undefined && this.series !== undefined;
    const raw = exact ? this.series! : drawn.columns;
    const smooth = exact && this.smoothing ? smoothSeries(this.series!, this.smoothing) : drawn.smoothed;
    const list: HoverSeries[] = [
      { key: "reward", name: this.names.reward, color: colors.reward, values: raw.rewards, smoothed: smooth?.rewards },
      { key: "return", name: this.names.return, color: colors.return, values: raw.returns },
      ...[...raw.extras].map(([name, values], i) => ({
        key: name,
        name,
        color: colors.extras[i % colors.extras.length],
        values,
        smoothed: smooth?.extras.get(name),
      })),
    ];
    return list.filter(({ key }) => this.shown(key));
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

  /**
   * The columns to draw `width` wide: of the exact series, or of the summary (the
   * kernel's finer range when zoomed past it); `smoothed`, of the curves' moving average.
   */
  private columns(width: number, smoothed: boolean): TimelineColumns | undefined {
    const [from, to] = this.strip.range;
    const weight = smoothed ? (this.smoothing ?? 0) : 0;
    if (this.summary === undefined) {
      return this.series === undefined ? undefined : columnsOfSeries(smoothSeries(this.series, weight), this.length, width, from, to);
    }
    const summary = smoothColumns(this.summary, weight);
    if (from === 0 && to === this.length) return rebin(summary, width);
    const detail = this.detail;
    const wanted = Math.min(width, to - from);
    if (detail !== undefined && detail.from === from && detail.to === to && detail.columns.returns.min.length === wanted) {
      this.element.dataset.detail = "true";
      return rebin(smoothColumns(detail.columns, weight), width);
    }
    this.element.dataset.detail = "false";
    if ((to - from) / width < positionsPerColumn(summary, this.length)) this.askRange(from, to, wanted);
    return rebin(sliceColumns(summary, this.length, from, to), width);
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

  private drawColumns(c: CanvasRenderingContext2D, columns: TimelineColumns, width: number, ratio: number, palette: Palette): void {
    const layout = this.layout;
    const colors = seriesColors(palette);
    const axes = timelineAxes(columns, this.rates, this.log);
    const steps = this.drawGrid(c, axes, width, ratio, palette);
    const smoothed = this.smoothing ? this.columns(width, true) : undefined;
    const yReward = yOnAxis(layout.main, axes.rewards, ratio);
    if (this.shown("reward")) {
      if (smoothed !== undefined) c.globalAlpha = RAW_ALPHA;
      drawBars(c, columns.rewards, yReward, colors, ratio, yReward(axes.rewards.log ? axes.rewards.lo : 0));
      c.globalAlpha = 1;
      if (smoothed !== undefined) drawLine(c, smoothed.rewards, yReward, colors.reward, 2 * ratio, haloColor(palette));
    }
    const extraColor = (i: number) => colors.extras[i % colors.extras.length];
    [...columns.extras].forEach(([name, bins], i) => {
      if (!this.shown(name)) return;
      const y = this.extraY(name, axes, ratio);
      const smooth = smoothed?.extras.get(name);
      if (smooth !== undefined) c.globalAlpha = RAW_ALPHA;
      drawLine(c, bins, y, extraColor(i), 1.5 * ratio);
      c.globalAlpha = 1;
      if (smooth !== undefined) drawLine(c, smooth, y, extraColor(i), 2 * ratio, haloColor(palette));
    });
    if (this.shown("return")) drawLine(c, columns.returns, yOnAxis(layout.main, axes.returns, ratio), colors.return, 1.5 * ratio, haloColor(palette));
    c.fillStyle = colors.nonFinite;
    columns.nonFinite.forEach((mark, x) => mark && c.fillRect(x, 0, Math.ceil(ratio), c.canvas.height));
    drawEndMarks(c, columns, ratio, palette.text);
    drawAxisEdge(c, layout.main, "left", colors.return, ratio);
    drawAxisEdge(c, layout.main, "right", colors.reward, ratio);
    // Each band in the colour of its first series, and named by its group.
    const names = [...columns.extras.keys()];
    const bandColor = (group: string) => extraColor(names.findIndex((name) => groupOf(name) === group));
    for (const { group, band } of layout.bands) drawAxisEdge(c, band, "left", bandColor(group), ratio);
    this.frame.setTitles(layout.bands.map(({ group, band }) => ({ label: group, y: band.top - INSET / 2, color: bandColor(group) })));
    const bandLabels = layout.bands.flatMap(({ group, band }) => valueLabels(axes.groups.get(group) ?? rateAxis(), band));
    this.frame.setValues("left", [...valueLabels(axes.returns, layout.main), ...bandLabels]);
    this.frame.setValues("right", valueLabels(axes.rewards, layout.main));
    this.frame.setSteps(steps);
    this.showLegend(columns, colors, palette.text);
    this.drawn = { columns, smoothed, colors };
    this.hover.refresh();
  }

  /** Faint gridlines at every value axis's ticks and at the step ticks; returns the step labels. */
  private drawGrid(c: CanvasRenderingContext2D, axes: TimelineAxes, width: number, ratio: number, palette: Palette): TickLabel[] {
    const [from, to] = this.strip.range;
    const ticks = stepTicks(from, to, width / ratio);
    const xs = ticks.map((t) => cursorX(t - from, width, Math.max(1, to - from)));
    const ys = axes.returns.ticks.map(yOnAxis(this.layout.main, axes.returns, ratio));
    for (const { group, band } of this.layout.bands) {
      const axis = axes.groups.get(group);
      if (axis !== undefined) ys.push(...axis.ticks.map(yOnAxis(band, axis, ratio)));
    }
    drawGrid(c, ys, xs, ratio, palette);
    const labels = tickLabels(ticks);
    return ticks.map((_, i) => ({ label: labels[i], x: xs[i] / width }));
  }

  /** Where an extra's values go: an agent's return on the return's axis, any other on its group's band and axis. */
  private extraY(name: string, axes: TimelineAxes, ratio: number): (value: number) => number {
    const group = groupOf(name);
    const band = this.layout.bands.find((b) => b.group === group)?.band;
    const axis = axes.groups.get(group);
    if (band === undefined || axis === undefined) return yOnAxis(this.layout.main, axes.returns, ratio);
    return yOnAxis(band, axis, ratio);
  }

  /** The legend: a swatch and a name for each thing drawn. */
  private showLegend(columns: TimelineColumns, colors: SeriesColors, ends: string): void {
    const scale = range(columns.returns);
    const decimals = this.series?.returns.length ? seriesDecimals(this.series.returns) : undefined; // the readout's
    const items: LegendItem[] = [
      ["bar", colors.reward, this.names.reward, "reward"],
      ["line", colors.return, Number.isFinite(scale.lo) ? `${this.names.return} ${formatFixed(scale.lo, decimals)} to ${formatFixed(scale.hi, decimals)}` : this.names.return, "return"],
    ];
    [...columns.extras.keys()].forEach((name, i) => items.push(["line", colors.extras[i % colors.extras.length], name, name]));
    if (columns.terminated.includes(1)) items.push(["terminated", ends, "terminated"]);
    if (columns.truncated.includes(1)) items.push(["truncated", ends, "truncated"]);
    if (columns.nonFinite.includes(1)) items.push(["bar", colors.nonFinite, "NaN or infinite reward"]);
    const [from, to] = this.strip.range;
    if (to - from < this.length) items.push(["none", "", `${this.names.steps} ${from} to ${to - 1} (double-click: all)`]);
    this.legend.setItems(items);
    // On the legend, not the canvas: a native tooltip there would cover the hover's box.
    this.legend.element.title = [
      items.map(([, , name]) => name).join(", "),
      `left axis: ${this.names.return}; right axis: ${this.names.reward}; bottom: ${this.names.steps}`,
      "Ctrl+wheel: zoom; Shift+wheel: pan; double-click: the whole episode",
    ].join("\n");
  }
}
