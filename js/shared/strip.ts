/**
 * A chart's canvas over `length` positions (the timeline, the comparison chart): its
 * background drawn when the data, the width, the theme or the pixel ratio changes and
 * cached, a cursor drawn over a copy of it, and a click or drag reporting the position
 * under the pointer. Zoomed in, it shows a range of the positions across its width.
 */
import { onAppearanceChange, type Palette, readPalette } from "./theme.ts";

/** The position under pixel `x` of a strip `width` wide over `length` positions. */
export function positionAt(x: number, width: number, length: number): number {
  return Math.max(0, Math.min(length - 1, Math.floor((x / width) * length)));
}

/** The x (pixel centre) of position `t`. */
export function cursorX(t: number, width: number, length: number): number {
  return ((t + 0.5) / length) * width;
}

/**
 * Draws a strip's background into a context of `width` x `height` device pixels,
 * in the colours of the theme it sits in.
 */
export type DrawBackground = (c: CanvasRenderingContext2D, width: number, height: number, ratio: number, palette: Palette) => void;

/** A chart's canvas over positions, as the module says; `range` is what it shows. */
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
    /** CSS pixels; `setHeight` changes it. */
    private height: number,
    /** The cursor's colour in a theme. */
    private readonly cursorColor: (palette: Palette) => string,
    private readonly draw: DrawBackground,
    onSeek: (t: number) => void,
    /** Marks drawn over the cursor, so that it never hides them. */
    private readonly drawOver?: DrawBackground,
  ) {
    this.element = parent.appendChild(document.createElement("canvas"));
    this.element.className = className;
    this.element.style.height = `${height}px`;
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

  /** Draws the strip `height` CSS pixels tall from now on. */
  setHeight(height: number): void {
    if (height === this.height) return;
    this.height = height;
    this.element.style.height = `${height}px`;
    this.redraw();
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
    // The shown width, fractions and all (clientWidth rounds it): a canvas pixel a device pixel.
    const width = Math.max(1, Math.round(this.element.getBoundingClientRect().width * ratio));
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
