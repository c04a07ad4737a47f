/**
 * The frame canvas: its pixel size is the frame's, CSS scales it to the room the
 * widget gives it (or to one CSS pixel a frame pixel, "1:1"), up crisply.
 * Frames are painted with `putImageData`, so the pixels are exactly the frame's.
 *
 * Crisp on any screen: nearest-neighbour upscaling (`image-rendering: pixelated`) is
 * even only when each frame pixel covers a whole number of *device* pixels. So a
 * whole scale factor (the fitted one, or a whole `scale`) is a whole number of
 * device pixels at the device pixel ratio (at 1.25, a factor of 2 becomes 3 device
 * pixels, 2.4 CSS px), and the size is worked out again when the ratio changes
 * (the page zoomed, the window moved to another screen). The canvas keeps the
 * frame's pixels either way: what the kernel sends, tests read and overlays match.
 *
 * A frame shown smaller than its pixels (a comparison's narrow column, a `height`)
 * is scaled smoothly instead: nearest-neighbour would drop whole rows, and with them
 * thin lines (CartPole's track).
 */
import type { Frame } from "../shared/types.ts";
import { onAppearanceChange, readPalette } from "../shared/theme.ts";

// Before the widget has been laid out (no room known yet), small frames are scaled
// up by a whole factor to about this height.
const AUTO_HEIGHT = 400;
// 270 px tall: auto scaling leaves it at 1x, so the text stays crisp.
const PLACEHOLDER = { width: 480, height: 270 };

/** How an automatically sized frame is shown: filling the room it has, or one frame pixel a CSS pixel. */
export type Fit = "fit" | "1:1";

export interface SizeOptions {
  /** The `height` trait (CSS px); 0: automatic. Wins over `scale`. */
  height: number;
  /** The `scale` trait; 0: automatic. */
  scale: number;
  fit?: Fit;
  /** The box (CSS px) an automatic frame may fill: the widget's width beside its cards, and a height. */
  room?: { width: number; height: number };
}

/**
 * `factor` as a whole number of device pixels per frame pixel (at least one): the
 * nearest, or the largest not above it where the frame must fit a room.
 */
function wholeDevicePixels(factor: number, ratio: number, round: (x: number) => number = Math.round): number {
  return Math.max(1, round(factor * ratio + 1e-9)) / ratio;
}

/**
 * CSS size for a `width`x`height` frame at `ratio` device pixels per CSS pixel.
 * `height` (CSS px) wins over `scale`. Automatic (both 0), "fit" fills the room: scaled
 * up by the largest whole number of device pixels per frame pixel that fits (crisp
 * pixel art), or down smoothly when the frame is larger than the room; "1:1" shows one
 * frame pixel a CSS pixel (rounded to whole device pixels). With no room known yet,
 * frames shorter than ~400 px are scaled up by a whole factor.
 */
export function displaySize(width: number, height: number, options: SizeOptions, ratio = 1): { width: number; height: number } {
  let factor: number;
  if (options.height > 0) factor = options.height / height;
  else if (options.scale > 0) factor = Number.isInteger(options.scale) ? wholeDevicePixels(options.scale, ratio) : options.scale;
  else if (options.fit === "1:1") factor = wholeDevicePixels(1, ratio);
  else if (options.room !== undefined && options.room.width > 0) {
    const room = Math.min(options.room.width / width, options.room.height / height);
    factor = room >= 1 ? wholeDevicePixels(room, ratio, Math.floor) : room;
  } else factor = wholeDevicePixels(Math.max(1, Math.round(AUTO_HEIGHT / height)), ratio);
  return { width: width * factor, height: height * factor };
}

/**
 * What the canvas says at a position with no frame. A recorder that knows why puts a
 * reason in the position's info as `no_frame`, "<what>: <why>" (SB3's vector envs: the
 * terminal observation, whose frame is the next episode's start); the canvas says the
 * <what> in one short line, and the readout shows the whole info.
 */
export function missingFrameMessage(t: number, info: unknown): string {
  const reason = info !== null && typeof info === "object" ? (info as Record<string, unknown>).no_frame : undefined;
  const what = typeof reason === "string" ? reason.split(":", 1)[0].trim() : "";
  return what === "" ? `no frame at step ${t}` : `${what}, no frame at step ${t}`;
}

export class FrameCanvas {
  readonly element: HTMLCanvasElement;
  private readonly context: CanvasRenderingContext2D;
  private readonly stopWatching: () => void;
  private readonly resizeObserver: ResizeObserver;
  private size: SizeOptions = { height: 0, scale: 0, fit: "fit" };
  /** The message shown instead of a frame, if one is: drawn again when the theme changes. */
  private message: string | undefined;

  constructor(parent: HTMLElement) {
    this.element = parent.appendChild(document.createElement("canvas"));
    this.element.className = "aw-frame";
    this.element.setAttribute("role", "img");
    this.context = this.element.getContext("2d")!;
    this.resize(PLACEHOLDER.width, PLACEHOLDER.height);
    this.stopWatching = onAppearanceChange(() => {
      this.applyCss();
      if (this.message !== undefined) this.placeholder(this.message);
    });
    this.resizeObserver = new ResizeObserver(() => this.chooseScaling());
    this.resizeObserver.observe(this.element);
  }

  /** Sets the `height`/`scale` traits (0 = auto), the fit and the room, and re-applies the CSS size. */
  setSize(size: SizeOptions): void {
    this.size = size;
    this.applyCss();
  }

  /** Paints `frame`; `name` says which it is ("Frame at step 3 of 20"), for screen readers and tests. */
  paint(frame: Frame, name: string): void {
    const wasMessage = this.message !== undefined;
    this.message = undefined;
    this.element.dataset.shows = "frame"; // a frame, not a message: what overlays may draw on
    this.element.setAttribute("aria-label", name);
    this.resize(frame.width, frame.height);
    if (wasMessage) this.applyCss();
    this.context.putImageData(new ImageData(frame.rgba as Uint8ClampedArray<ArrayBuffer>, frame.width, frame.height), 0, 0);
  }

  /**
   * Draws a message instead of a frame (no frames in this episode, or loading), in the
   * theme's text colour on the page's own background (the canvas left clear).
   */
  placeholder(text: string): void {
    const wasFrame = this.message === undefined;
    this.message = text;
    this.element.dataset.shows = "message";
    this.element.setAttribute("aria-label", text); // what the canvas says, for screen readers and tests
    this.resize(PLACEHOLDER.width, PLACEHOLDER.height);
    if (wasFrame) this.applyCss();
    const c = this.context;
    const palette = readPalette(this.element);
    this.element.dataset.theme = palette.dark ? "dark" : "light";
    c.clearRect(0, 0, PLACEHOLDER.width, PLACEHOLDER.height);
    c.strokeStyle = palette.text;
    c.globalAlpha = 0.3;
    c.strokeRect(0.5, 0.5, PLACEHOLDER.width - 1, PLACEHOLDER.height - 1);
    c.globalAlpha = 1;
    c.fillStyle = palette.text;
    c.font = "16px sans-serif";
    c.textAlign = "center";
    c.textBaseline = "middle";
    c.fillText(text, PLACEHOLDER.width / 2, PLACEHOLDER.height / 2);
  }

  dispose(): void {
    this.stopWatching();
    this.resizeObserver.disconnect();
  }

  private resize(width: number, height: number): void {
    // Assigning width/height clears the canvas even when unchanged; only do it on a real change.
    if (this.element.width === width && this.element.height === height) return;
    this.element.width = width;
    this.element.height = height;
    this.applyCss();
  }

  private applyCss(): void {
    const ratio = window.devicePixelRatio || 1;
    // A message is text: shown at most at its own size, never as enlarged pixels.
    const room = this.size.room;
    const size =
      this.message === undefined || room === undefined
        ? this.size
        : { ...this.size, room: { width: Math.min(room.width, PLACEHOLDER.width), height: PLACEHOLDER.height } };
    const css = displaySize(this.element.width, this.element.height, size, ratio);
    this.element.style.width = `${css.width}px`;
    // Device pixels per frame pixel, for tests: a whole number where the factor is.
    this.element.dataset.devicePixels = String(Math.round((css.width / this.element.width) * ratio * 1000) / 1000);
    this.chooseScaling();
  }

  /** Nearest-neighbour (the stylesheet's) up, smooth down: by the size the canvas is shown at. */
  private chooseScaling(): void {
    const shown = this.element.getBoundingClientRect().width * (window.devicePixelRatio || 1);
    const smaller = shown > 0 && shown < this.element.width - 0.5;
    this.element.style.imageRendering = smaller ? "auto" : "";
    this.element.dataset.scaling = smaller ? "smooth" : "pixelated";
  }
}
