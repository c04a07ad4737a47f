/**
 * A bars card's canvas that stays sharp and in the theme's colours: drawn at the
 * width it is shown at times the device pixel ratio, and drawn again when that
 * width, the theme or the ratio changes (a step change is not needed for it).
 */
import { drawBars, layoutBars, type BarOptions } from "./bars.ts";
import { el } from "../shared/dom.ts";
import { onAppearanceChange, readPalette } from "../shared/theme.ts";

/** Used while the card is not laid out (collapsed, not yet on the page). */
const FALLBACK_WIDTH = 280;

export class BarsView {
  readonly element: HTMLCanvasElement;
  private readonly resizeObserver: ResizeObserver;
  private readonly stopWatching: () => void;
  /** The CSS width last drawn at, so a height change alone does not redraw. */
  private drawnWidth = 0;

  constructor(
    parent: HTMLElement,
    private readonly values: Float64Array,
    private readonly labels: readonly string[],
    private readonly options: BarOptions,
  ) {
    this.element = parent.appendChild(el("canvas", "aw-bars"));
    this.draw();
    this.resizeObserver = new ResizeObserver(() => {
      if (this.cssWidth() !== this.drawnWidth) this.draw();
    });
    this.resizeObserver.observe(this.element);
    this.stopWatching = onAppearanceChange(() => this.draw());
  }

  /** Draws the bars for the canvas's current width, theme and pixel ratio. */
  draw(): void {
    const width = this.cssWidth();
    const ratio = window.devicePixelRatio || 1;
    const palette = readPalette(this.element);
    drawBars(this.element, layoutBars(this.values, this.labels, width, this.options), palette.text, ratio);
    this.drawnWidth = width;
    this.element.dataset.theme = palette.dark ? "dark" : "light";
  }

  dispose(): void {
    this.resizeObserver.disconnect();
    this.stopWatching();
  }

  private cssWidth(): number {
    return Math.round(this.element.clientWidth) || FALLBACK_WIDTH;
  }
}
