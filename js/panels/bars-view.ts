/**
 * A bars card's canvas that stays sharp and in the theme's colours: drawn at the
 * width it is shown at times the device pixel ratio, and drawn again when that
 * width, the theme or the ratio changes (a step change is not needed for it).
 * Inside a widget that shares scales (a comparison), it is drawn on the range all
 * cards of its panel share. The value axis's labels are DOM text under the canvas,
 * each under its gridline: crisp, and readable by a screen reader and a test.
 */
import { barExtent, drawnBeside, drawBars, layoutBars, type BarOptions } from "./bars.ts";
import { el } from "../shared/dom.ts";
import { sharedScalesFor, type SharedScales } from "../shared/shared-scales.ts";
import { onAppearanceChange, readPalette } from "../shared/theme.ts";

/** Used while the card is not laid out (collapsed, not yet on the page). */
const FALLBACK_WIDTH = 280;

export class BarsView {
  readonly element: HTMLCanvasElement;
  /** The value axis's labels, under the bars. */
  private readonly axis: HTMLDivElement;
  readonly extent: [number, number];
  private readonly resizeObserver: ResizeObserver;
  private readonly stopWatching: () => void;
  /** The CSS width last drawn at, so a height change alone does not redraw. */
  private drawnWidth = 0;
  private scales: SharedScales | undefined;
  private leave: (() => void) | undefined;

  constructor(
    parent: HTMLElement,
    /** The panel's name: cards of one name share a scale. */
    private readonly name: string,
    private readonly values: Float64Array,
    private readonly labels: readonly string[],
    private readonly options: BarOptions,
  ) {
    this.element = parent.appendChild(el("canvas", "aw-bars"));
    this.axis = parent.appendChild(el("div", "aw-bars-axis"));
    this.extent = barExtent(values, options.scale, drawnBeside(options));
    this.joinScales();
    this.draw();
    this.resizeObserver = new ResizeObserver(() => {
      this.joinScales(); // a card drawn before it was on the page joins once it is
      if (this.cssWidth() !== this.drawnWidth) this.draw();
    });
    this.resizeObserver.observe(this.element);
    this.stopWatching = onAppearanceChange(() => this.draw());
  }

  /** Draws the bars for the canvas's current width, theme, pixel ratio and shared range. */
  draw(): void {
    const width = this.cssWidth();
    const ratio = window.devicePixelRatio || 1;
    const palette = readPalette(this.element);
    const shared = this.scales?.range(this.name);
    const options = shared ? { ...this.options, scale: shared } : this.options;
    const layout = layoutBars(this.values, this.labels, width, options);
    drawBars(this.element, layout, palette, ratio);
    this.axis.replaceChildren(
      ...layout.ticks.map(({ label, x }) => {
        const tick = el("span", "aw-axis-tick");
        tick.textContent = label;
        tick.style.left = `${x}px`;
        return tick;
      }),
    );
    this.drawnWidth = width;
    this.element.dataset.theme = palette.dark ? "dark" : "light";
    this.element.dataset.scale = (shared ?? this.extent).join(",");
  }

  dispose(): void {
    this.resizeObserver.disconnect();
    this.stopWatching();
    this.leave?.();
  }

  private joinScales(): void {
    if (this.leave !== undefined) return;
    this.scales = sharedScalesFor(this.element);
    this.leave = this.scales?.join(this.name, this);
  }

  private cssWidth(): number {
    return Math.round(this.element.clientWidth) || FALLBACK_WIDTH;
  }
}
