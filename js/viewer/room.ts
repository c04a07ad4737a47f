/**
 * The room a frame has: the widget's width beside its panel cards (or all of it
 * when the cards go below), less what the stage keeps beside the frame (a colour bar
 * in its margin), and a height that keeps the controls on screen. Watched, so the
 * frame follows a resized cell, a narrowed window or cards shown and hidden.
 */
import { button } from "../shared/dom.ts";
import type { Fit } from "./canvas.ts";

/** Cards beside the frame keep at least this width (CSS px); narrower, they go below it. */
export const CARDS_MIN_WIDTH = 320;
/** The body's flex gap (widget.css). */
const GAP = 10;
/** Below this width, the cards go under the frame and the frame may take the whole width. */
const SIDE_BY_SIDE = 700;

/** The width (CSS px) a frame may take in a body `width` wide, with or without cards beside it. */
export function roomWidth(width: number, cards: boolean): number {
  return cards && width >= SIDE_BY_SIDE ? width - GAP - CARDS_MIN_WIDTH : width;
}

/** The height (CSS px) a frame may take in a window `height` tall: most of it, within 300..900. */
export function roomHeight(windowHeight: number): number {
  return Math.min(900, Math.max(300, Math.round(windowHeight * 0.7)));
}

export class FrameRoom {
  private readonly observer: ResizeObserver;
  private width = 0;

  constructor(
    private readonly body: HTMLElement,
    private readonly cards: HTMLElement,
    private readonly stage: HTMLElement,
    changed: () => void,
  ) {
    this.observer = new ResizeObserver(() => {
      const width = this.body.clientWidth;
      if (width === this.width) return;
      this.width = width;
      changed();
      this.body.dataset.roomWidth = String(width); // for tests: the frame fits this width
    });
    this.observer.observe(body);
  }

  /** The room, or undefined before the body has been laid out (hidden, detached). */
  size(): { width: number; height: number } | undefined {
    const width = this.body.clientWidth;
    if (width <= 0) return undefined;
    // Measured, not assumed: were the margin left in, CSS would shrink a fitted frame
    // to a fractional, smoothly scaled size.
    const style = getComputedStyle(this.stage);
    const margins = parseFloat(style.marginLeft) + parseFloat(style.marginRight) || 0;
    return {
      width: roomWidth(width, !this.cards.hidden) - margins,
      height: roomHeight(window.innerHeight),
    };
  }

  dispose(): void {
    this.observer.disconnect();
  }
}

/** The "1:1" toggle: the frame filling its room, or (pressed) one CSS pixel a frame pixel. */
export class FitToggle {
  readonly element: HTMLButtonElement;
  fit: Fit = "fit";

  constructor(parent: HTMLElement, changed: () => void) {
    this.element = parent.appendChild(button("aw-fit", "1:1", ""));
    this.show();
    this.element.addEventListener("click", () => {
      this.fit = this.fit === "fit" ? "1:1" : "fit";
      this.show();
      changed();
    });
  }

  private show(): void {
    // A toggle: its name stays, aria-pressed says whether 1:1 is on.
    this.element.title = this.fit === "fit" ? "Show the frame at its own size (1:1)" : "Fit the frame to the widget again";
    this.element.setAttribute("aria-pressed", String(this.fit === "1:1"));
  }
}
