/**
 * One panel's card: a header (name, the step shown, precompute progress, collapse,
 * move and hide buttons) and a body drawn from the panel's result by kind.
 *
 * User data only ever reaches the page as text (`textContent`) or pixels: a
 * panel's text, labels and error messages can never become HTML. Images (PNG)
 * are decoded off the main thread with `createImageBitmap`; a decode that
 * finishes after a newer result arrived is dropped. Heatmaps come as levels and
 * are coloured here at once (`levels.ts`). An overlay is drawn at the frame's
 * pixel size, so CSS stretches it exactly as it stretches the frame.
 */
import { BarsView } from "./bars-view.ts";
import { button, el, input } from "../shared/dom.ts";
import { NO_ANSWER } from "../shared/no-answer.ts";
import { SAVED_COPY_CARD } from "../shared/saved-copy.ts";
import { colourLevels, inflateLevels, levelColours, smoothScaling } from "./levels.ts";
import type { CardData, PanelSpec, Progress } from "./state.ts";
import { formatNumber } from "../shared/numbers.ts";
import { toFloat64 } from "../shared/series.ts";

/** Small images are scaled up (by a whole factor, pixels stay square) to about this width. */
const SMALL_IMAGE_WIDTH = 240;
const DEFAULT_OPACITY = 0.6;
/** An overlay of another step than the frame's is drawn this much fainter. */
const STALE_OVERLAY = 0.35;

interface Size {
  width: number;
  height: number;
}

/**
 * Why a card waits, as it says: asked and "computing…"; "late", the kernel has not
 * answered in a while (it may be busy); "saved", a saved copy with no kernel at all.
 */
export type Wait = "asking" | "late" | "saved";

export interface CardActions {
  move(delta: number): void;
  hide(): void;
  collapse(collapsed: boolean): void;
}

export class CardView {
  readonly element: HTMLDivElement;
  private readonly title: HTMLSpanElement;
  private readonly stepLabel: HTMLSpanElement;
  private readonly progressBar: HTMLProgressElement;
  private readonly collapseButton: HTMLButtonElement;
  private readonly body: HTMLDivElement;
  private readonly opacity: HTMLInputElement | undefined;
  private card: CardData | undefined;
  private current = false;
  private wait: Wait = "asking";
  private renders = 0;
  /** Holds a map's pixels while they are scaled onto the overlay. */
  private scratch: HTMLCanvasElement | undefined;
  /** The bar chart shown, redrawn on its own when its width or the theme changes. */
  private bars: BarsView | undefined;

  constructor(
    private spec: PanelSpec,
    actions: CardActions,
    /** The canvas stacked over the frame, for overlay panels. */
    private readonly overlay: HTMLCanvasElement | undefined,
    /** The frame's pixel size (undefined before there is a frame canvas). */
    private readonly frameSize: () => Size | undefined,
  ) {
    this.element = el("div", "aw-card");
    this.element.dataset.name = spec.name;
    const header = this.element.appendChild(el("div", "aw-card-header"));
    this.collapseButton = header.appendChild(button("aw-collapse aw-quiet", "▾", ""));
    this.title = header.appendChild(el("span", "aw-card-title"));
    this.title.textContent = spec.name;
    this.stepLabel = header.appendChild(el("span", "aw-card-step"));
    this.progressBar = header.appendChild(el("progress", "aw-progress"));
    this.progressBar.hidden = true;
    // Each button named for what it does to which panel: its arrow or cross says neither.
    const up = header.appendChild(button("aw-up aw-quiet", "↑", `Move panel ${spec.name} up`));
    const down = header.appendChild(button("aw-down aw-quiet", "↓", `Move panel ${spec.name} down`));
    const hide = header.appendChild(button("aw-hide aw-quiet", "×", `Hide panel ${spec.name} (show it again from the Panels menu)`));
    up.setAttribute("aria-label", up.title);
    down.setAttribute("aria-label", down.title);
    hide.setAttribute("aria-label", `Hide panel ${spec.name}`);
    this.nameCollapse(false);
    this.body = this.element.appendChild(el("div", "aw-card-body"));
    if (overlay !== undefined) {
      const label = this.element.appendChild(el("label", "aw-opacity-label"));
      label.append("opacity ");
      this.opacity = label.appendChild(input("aw-opacity", "range"));
      Object.assign(this.opacity, { min: "0", max: "1", step: "0.05", value: String(DEFAULT_OPACITY) });
      this.opacity.addEventListener("input", () => this.applyOverlayOpacity());
    }
    this.collapseButton.addEventListener("click", () => {
      const collapsed = !this.element.classList.contains("aw-collapsed");
      this.element.classList.toggle("aw-collapsed", collapsed);
      this.nameCollapse(collapsed);
      actions.collapse(collapsed);
    });
    up.addEventListener("click", () => actions.move(-1));
    down.addEventListener("click", () => actions.move(1));
    hide.addEventListener("click", () => actions.hide());
    this.show(undefined);
  }

  get name(): string {
    return this.spec.name;
  }

  /** The collapse button's arrow, and its name for what a click does now. */
  private nameCollapse(collapsed: boolean): void {
    const name = `${collapsed ? "Expand" : "Collapse"} panel ${this.spec.name}`;
    this.collapseButton.textContent = collapsed ? "▸" : "▾";
    this.collapseButton.title = name;
    this.collapseButton.setAttribute("aria-label", name);
  }

  get hasOverlay(): boolean {
    return this.overlay !== undefined;
  }

  /** Takes the card and its overlay off the page. */
  remove(): void {
    this.bars?.dispose();
    this.element.remove();
    this.overlay?.remove();
  }

  setSpec(spec: PanelSpec): void {
    this.spec = spec;
  }

  /** Draws `card`, or a waiting note when there is none yet. */
  show(card: CardData | undefined): void {
    this.card = card;
    const render = ++this.renders;
    this.bars?.dispose();
    this.bars = undefined;
    this.body.replaceChildren();
    this.clearOverlay();
    const data = this.element.dataset;
    delete data.highlight;
    delete data.greedy;
    data.kind = card?.kind ?? "waiting";
    data.version = String(card?.version ?? this.spec.version);
    if (card === undefined) {
      delete data.step;
      this.body.append(text("div", "aw-empty aw-waiting", this.waitingText()));
    } else {
      data.step = String(card.step);
      this.draw(card, render);
    }
    this.setCurrent(this.current);
  }

  /** Whether the card shows the current step's result; if not it is dimmed, "updating". */
  setCurrent(current: boolean): void {
    this.current = current;
    const card = this.card;
    this.element.dataset.current = String(current);
    this.element.classList.toggle("aw-stale", !current);
    const note = current ? "" : WAIT_NOTES[this.wait];
    this.stepLabel.textContent = card === undefined ? "" : `t = ${card.step}${note}`;
    this.applyOverlayOpacity();
  }

  /** Says in words why the card waits (see `Wait`). */
  setWait(wait: Wait): void {
    this.wait = wait;
    this.element.dataset.noAnswer = String(wait === "late");
    this.element.dataset.savedCopy = String(wait === "saved");
    const waiting = this.body.querySelector(".aw-waiting");
    if (waiting !== null) waiting.textContent = this.waitingText();
    this.setCurrent(this.current);
  }

  private waitingText(): string {
    if (this.wait === "saved") return SAVED_COPY_CARD;
    return this.wait === "late" ? `${NO_ANSWER[0].toUpperCase()}${NO_ANSWER.slice(1)}.` : "computing…";
  }

  setProgress(progress: Progress | undefined): void {
    const running = progress !== undefined && progress.done < progress.total;
    this.progressBar.hidden = !running;
    if (progress === undefined) return;
    this.element.dataset.progress = `${progress.done}/${progress.total}`;
    this.progressBar.max = progress.total;
    this.progressBar.value = progress.done;
    this.progressBar.title = `precomputed ${progress.done} of ${progress.total} steps`;
  }

  /** Hidden cards take their overlay with them. */
  setHidden(hidden: boolean): void {
    this.element.hidden = hidden;
    if (this.overlay !== undefined) this.overlay.hidden = hidden;
  }

  private draw(card: CardData, render: number): void {
    const meta = card.meta;
    switch (card.kind) {
      case "bars":
        return this.drawBars(card);
      case "image":
        this.drawImage(card, render);
        return this.drawCaption(card);
      case "heatmap":
        this.body.append(colorBar(card));
        this.drawHeatmap(card);
        return this.drawCaption(card);
      case "text":
        this.body.append(text("pre", "aw-text", String(meta.text ?? "")));
        return;
      case "empty":
        this.body.append(text("div", "aw-empty", "nothing for this step"));
        return;
      case "error": {
        const box = this.body.appendChild(el("div", "aw-error"));
        box.append(text("div", "aw-error-title", `${String(meta.error)}: ${String(meta.message)}`));
        if (meta.traceback) box.append(text("pre", "aw-traceback", String(meta.traceback)));
      }
    }
  }

  private drawBars(card: CardData): void {
    const values = toFloat64(card.buffers[0]);
    const labels = Array.isArray(card.meta.labels) ? card.meta.labels.map(String) : [];
    const index = (value: unknown) => (typeof value === "number" ? value : null);
    const highlight = index(card.meta.highlight);
    const greedy = index(card.meta.greedy);
    const scale = Array.isArray(card.meta.scale) ? (card.meta.scale.map(Number) as [number, number]) : null;
    // A continuous actor's whiskers and the action taken (odd entries read as NaN: not drawn).
    const pair = (r: unknown): [number, number] => (Array.isArray(r) ? [Number(r[0]), Number(r[1])] : [NaN, NaN]);
    const ranges = Array.isArray(card.meta.ranges) ? card.meta.ranges.map(pair) : null;
    const marks = Array.isArray(card.meta.marks) ? card.meta.marks.map(Number) : null;
    this.element.dataset.highlight = highlight === null ? "" : String(highlight);
    if (greedy !== null) this.element.dataset.greedy = String(greedy);
    this.bars = new BarsView(this.body, this.spec.name, values, labels, { highlight, greedy, scale, ranges, marks });
    this.nameCanvas(this.bars.element, "Bars", card);
    this.drawCaption(card);
  }

  /** A line under the bars or the picture, saying what it shows (a saliency map: of which output, where). */
  private drawCaption(card: CardData): void {
    if (typeof card.meta.caption === "string") this.body.append(text("div", "aw-caption", card.meta.caption));
  }

  /** Decodes the PNG off the main thread, then paints it. */
  private drawImage(card: CardData, render: number): void {
    const canvas = this.canvasFor(card);
    const png = card.buffers[0] as Uint8Array<ArrayBuffer>;
    createImageBitmap(new Blob([png], { type: "image/png" })).then(
      (bitmap) => {
        if (render === this.renders) this.paint(card, canvas, bitmap);
        bitmap.close();
      },
      (error: Error) => {
        if (render === this.renders) this.body.append(text("div", "aw-error", `could not decode the image: ${error.message}`));
      },
    );
  }

  /** Colours the map's levels and paints them. */
  private drawHeatmap(card: CardData): void {
    const width = Number(card.meta.width);
    const height = Number(card.meta.height);
    let pixels: ImageData;
    try {
      const colours = levelColours(card.buffers[1] ?? new Uint8Array(0), this.isOverlay(card));
      pixels = new ImageData(colourLevels(inflateLevels(card.buffers[0], width, height), colours), width, height);
    } catch (error) {
      this.body.append(text("div", "aw-error", `could not draw the map: ${(error as Error).message}`));
      return;
    }
    this.paint(card, this.canvasFor(card), pixels);
  }

  private isOverlay(card: CardData): boolean {
    return card.meta.overlay === true && this.overlay !== undefined;
  }

  /** The overlay, or a new canvas in the card's body, sized at once so the card keeps its place. */
  private canvasFor(card: CardData): HTMLCanvasElement {
    const kind = card.kind === "heatmap" ? "Heatmap" : "Image";
    if (this.isOverlay(card)) return this.nameCanvas(this.overlay!, `${kind} over the frame`, card);
    const canvas = this.nameCanvas(this.body.appendChild(el("canvas", "aw-image")), kind, card);
    const width = Number(card.meta.width);
    canvas.width = width;
    canvas.height = Number(card.meta.height);
    canvas.style.width = `${width < SMALL_IMAGE_WIDTH ? width * Math.max(1, Math.floor(SMALL_IMAGE_WIDTH / width)) : width}px`;
    return canvas;
  }

  /**
   * Paints `picture` on its canvas in the card (small ones are scaled up by CSS),
   * or over the frame scaled to the frame's pixel size: in blocks when the frame
   * is a whole multiple of it (a grid world's cells), smoothly otherwise.
   */
  private paint(card: CardData, canvas: HTMLCanvasElement, picture: ImageData | ImageBitmap): void {
    const onFrame = canvas === this.overlay;
    const size = onFrame ? (this.frameSize() ?? picture) : canvas;
    if (onFrame) {
      canvas.width = size.width;
      canvas.height = size.height;
    }
    const context = canvas.getContext("2d")!;
    if (picture instanceof ImageData && size.width === picture.width && size.height === picture.height) {
      context.putImageData(picture, 0, 0);
    } else {
      context.imageSmoothingEnabled = smoothScaling(picture, size);
      context.drawImage(picture instanceof ImageData ? this.scratchWith(picture) : picture, 0, 0, size.width, size.height);
    }
    canvas.dataset.step = String(card.step);
    if (onFrame) canvas.hidden = this.element.hidden;
    this.element.dataset.painted = String(card.step);
  }

  /** Names a canvas for screen readers: what it shows, of which panel, at which step. */
  private nameCanvas(canvas: HTMLCanvasElement, what: string, card: CardData): HTMLCanvasElement {
    canvas.setAttribute("role", "img");
    canvas.setAttribute("aria-label", `${what} of panel ${this.spec.name} at step ${card.step}`);
    return canvas;
  }

  private scratchWith(pixels: ImageData): HTMLCanvasElement {
    this.scratch ??= document.createElement("canvas");
    this.scratch.width = pixels.width;
    this.scratch.height = pixels.height;
    this.scratch.getContext("2d")!.putImageData(pixels, 0, 0);
    return this.scratch;
  }

  private clearOverlay(): void {
    if (this.overlay === undefined) return;
    this.overlay.getContext("2d")!.clearRect(0, 0, this.overlay.width, this.overlay.height);
    delete this.overlay.dataset.step;
    delete this.element.dataset.painted;
  }

  private applyOverlayOpacity(): void {
    if (this.overlay === undefined || this.opacity === undefined) return;
    const opacity = Number(this.opacity.value) * (this.current ? 1 : STALE_OVERLAY);
    this.overlay.style.opacity = String(opacity);
  }
}

/** What the step label adds to a card that shows another step's result. */
const WAIT_NOTES: Record<Wait, string> = {
  asking: " · updating",
  late: " · no answer from the kernel",
  saved: " · saved copy",
};

/** The colormap as a strip, with the map's min and max at its ends. */
function colorBar(card: CardData): HTMLDivElement {
  const bar = el("div", "aw-colorbar");
  const strip = bar.appendChild(el("canvas", "aw-colorbar-strip"));
  strip.setAttribute("role", "img");
  strip.setAttribute("aria-label", `Colour scale from ${formatNumber(Number(card.meta.min))} to ${formatNumber(Number(card.meta.max))}`);
  const lut = card.buffers[1] ?? new Uint8Array(0);
  const entries = Math.floor(lut.byteLength / 3);
  strip.width = Math.max(1, entries);
  strip.height = 1;
  const rgba = new Uint8ClampedArray(strip.width * 4);
  for (let i = 0; i < entries; i++) rgba.set([lut[3 * i], lut[3 * i + 1], lut[3 * i + 2], 255], 4 * i);
  strip.getContext("2d")!.putImageData(new ImageData(rgba, strip.width, 1), 0, 0);
  bar.prepend(text("span", "aw-min", formatNumber(Number(card.meta.min))));
  bar.append(text("span", "aw-max", formatNumber(Number(card.meta.max))));
  return bar;
}

function text<K extends keyof HTMLElementTagNameMap>(tag: K, className: string, content: string): HTMLElementTagNameMap[K] {
  const element = el(tag, className);
  element.textContent = content;
  return element;
}
