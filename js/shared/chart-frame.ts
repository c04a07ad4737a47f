/**
 * A chart's canvas framed by its axes: value labels in gutters left and right of the
 * plot, step labels under it, and the names of the plot's bands over it. The labels are DOM text, not pixels: crisp at any pixel
 * ratio or zoom, in the theme's text colour, readable by a screen reader and a test,
 * and never under a line, a bar or a marker (the canvas stops at the gutters).
 *
 * The plot draws its gridlines at the same places (`bandY`, the fraction of the width
 * for steps), so a label sits on its line.
 *
 * Example:
 *   const frame = new ChartFrame(parent, "aw-timeline-chart");
 *   new Strip(frame.plot, ...);                                      // the canvas
 *   frame.setValues("left", valueLabels(valueAxis(0, 150), { top: 7, height: 50 }));
 *   frame.setSteps([{ label: "100", x: 0.25 }]);
 */
import { el } from "./dom.ts";
import { fractionOf, type ValueAxis } from "./axis.ts";

/** A label and where it goes: `y` CSS pixels from the plot's top, or `x` a fraction of its width. */
export interface TickLabel {
  label: string;
  y?: number;
  x?: number;
}

/** A horizontal band of a plot (CSS pixels from its top) that an axis spans. */
export interface Band {
  top: number;
  height: number;
}

/** The CSS y (from the plot's top) of `value` on `axis` drawn over `band`. */
export function bandY(band: Band, axis: Pick<ValueAxis, "lo" | "hi" | "log">, value: number): number {
  return band.top + (1 - fractionOf(axis, value)) * band.height;
}

/** The labels of an axis spanning `band`, each at its tick. */
export function valueLabels(axis: ValueAxis, band: Band): TickLabel[] {
  return axis.ticks.map((tick, i) => ({ label: axis.labels[i], y: bandY(band, axis, tick) }));
}

/** A band's name, where its band starts (CSS pixels from the plot's top), in its series' colour. */
export interface BandTitle {
  label: string;
  y: number;
  color: string;
}

export class ChartFrame {
  readonly element: HTMLDivElement;
  /** Where the chart's canvas goes: between the gutters, above the step labels. */
  readonly plot: HTMLDivElement;
  private readonly gutters: Record<"left" | "right", HTMLDivElement>;
  private readonly steps: HTMLDivElement;
  private readonly titles: HTMLDivElement;

  constructor(parent: HTMLElement, className: string) {
    this.element = parent.appendChild(el("div", `aw-chart ${className}`));
    const left = this.element.appendChild(el("div", "aw-axis aw-axis-left"));
    this.plot = this.element.appendChild(el("div", "aw-chart-plot"));
    this.titles = this.plot.appendChild(el("div", "aw-band-titles"));
    const right = this.element.appendChild(el("div", "aw-axis aw-axis-right"));
    this.gutters = { left, right };
    this.element.appendChild(el("div", "aw-axis-corner"));
    this.steps = this.element.appendChild(el("div", "aw-axis aw-axis-steps"));
  }

  /**
   * The labels of the value axis on `side` (none: an empty gutter). The gutter is as
   * wide as its longest label.
   */
  setValues(side: "left" | "right", ticks: readonly TickLabel[]): void {
    const gutter = this.gutters[side];
    const key = JSON.stringify(ticks);
    if (gutter.dataset.key === key) return;
    gutter.dataset.key = key;
    const longest = Math.max(0, ...ticks.map((t) => t.label.length));
    gutter.style.width = ticks.length === 0 ? "" : `calc(${longest}ch + 8px)`;
    gutter.replaceChildren(
      ...ticks.map(({ label, y }) => {
        const tick = el("span", "aw-axis-tick");
        tick.textContent = label;
        tick.style.top = `${y ?? 0}px`;
        return tick;
      }),
    );
  }

  /**
   * The names of the plot's bands (a timeline's extras), each in its series' colour at
   * the top left of its band, `y` CSS pixels from the plot's top.
   */
  setTitles(titles: readonly BandTitle[]): void {
    const key = JSON.stringify(titles);
    if (this.titles.dataset.key === key) return;
    this.titles.dataset.key = key;
    this.titles.replaceChildren(
      ...titles.map(({ label, y, color }) => {
        const title = el("span", "aw-band-title");
        title.textContent = label;
        title.style.top = `${y}px`;
        title.style.setProperty("--aw-band-color", color);
        return title;
      }),
    );
  }

  /** The step labels under the plot, each at a fraction `x` of its width. */
  setSteps(ticks: readonly TickLabel[]): void {
    const key = JSON.stringify(ticks);
    if (this.steps.dataset.key === key) return;
    this.steps.dataset.key = key;
    this.steps.replaceChildren(
      ...ticks.map(({ label, x }) => {
        const tick = el("span", "aw-axis-tick");
        tick.textContent = label;
        const at = x ?? 0;
        tick.style.left = `${at * 100}%`;
        // Labels at the ends stay inside the chart rather than centred past its edge.
        tick.style.transform = `translateX(${at < 0.04 ? 0 : at > 0.96 ? -100 : -50}%)`;
        return tick;
      }),
    );
  }
}
