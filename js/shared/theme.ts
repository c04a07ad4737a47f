/**
 * The page's theme as canvases need it, and a signal when it changes.
 *
 * Canvases cannot use CSS variables, so each draw reads the theme's colours from
 * the element's computed style: JupyterLab's variables when the host has them
 * (Lab, Notebook 7, Voila), the stylesheet's fallbacks elsewhere (marimo).
 * JupyterLab marks a theme switch on `document.body` (`data-jp-theme-light`,
 * `data-jp-theme-name`); one MutationObserver per page watches those, the OS's
 * colour scheme and the device pixel ratio (a window moved to another screen, the
 * page zoomed), and calls every subscriber.
 */

export interface Palette {
  /** Text and axis colour. */
  text: string;
  /** Whether the theme is dark (light text): series take their light variants. */
  dark: boolean;
  /**
   * The playhead's colour, the same in every widget's chart: base.css's `--aw-playhead`
   * (`--aw-playhead-dark` in a dark theme); the text colour where that stylesheet is not.
   */
  playhead: string;
}

const LIGHT_TEXT = "rgba(0, 0, 0, 0.87)";

/** The faint colour of a chart's gridlines in a theme. */
export function gridColor(palette: Palette): string {
  return palette.dark ? "rgba(255, 255, 255, 0.12)" : "rgba(0, 0, 0, 0.09)";
}

/** The theme's colours where `element` sits. */
export function readPalette(element: Element): Palette {
  const style = getComputedStyle(element);
  const variable = (name: string) => style.getPropertyValue(name).trim();
  // The element's own text colour: what the widget's stylesheet made of the theme.
  const text = style.color || variable("--jp-ui-font-color1") || LIGHT_TEXT;
  const dark = isLightColor(text);
  return { text, dark, playhead: variable(dark ? "--aw-playhead-dark" : "--aw-playhead") || text };
}

/** The r, g, b (0-255) and alpha (0-1) of a CSS `rgb()`/`rgba()`/`#hex` colour, or null. */
export function parseColor(color: string): [number, number, number, number] | null {
  const value = color.trim().toLowerCase();
  const hex = /^#([0-9a-f]{3,8})$/.exec(value);
  if (hex !== null) {
    const digits = hex[1].length <= 4 ? [...hex[1]].map((d) => d + d).join("") : hex[1];
    if (digits.length !== 6 && digits.length !== 8) return null;
    const byte = (i: number) => Number.parseInt(digits.slice(2 * i, 2 * i + 2), 16);
    return [byte(0), byte(1), byte(2), digits.length === 8 ? byte(3) / 255 : 1];
  }
  const rgb = /^rgba?\(([^)]*)\)$/.exec(value);
  if (rgb === null) return null;
  const parts = rgb[1].split(/[\s,/]+/).filter(Boolean).map(Number);
  if (parts.length < 3 || parts.some(Number.isNaN)) return null;
  return [parts[0], parts[1], parts[2], parts[3] ?? 1];
}

/** A colour's relative luminance (WCAG: 0 black, 1 white), alpha ignored; null if unreadable. */
export function luminance(color: string): number | null {
  const rgb = parseColor(color);
  if (rgb === null) return null;
  const linear = (v: number) => {
    const s = v / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * linear(rgb[0]) + 0.7152 * linear(rgb[1]) + 0.0722 * linear(rgb[2]);
}

/** Whether a colour is light (relative luminance above one half); unreadable ones are not. */
export function isLightColor(color: string): boolean {
  return (luminance(color) ?? 0) > 0.5;
}

type Listener = () => void;

const listeners = new Set<Listener>();
let stopWatching: (() => void) | undefined;

/**
 * Calls `listener` (in the next animation frame) whenever the theme or the device
 * pixel ratio changes; returns the function that stops it.
 */
export function onAppearanceChange(listener: Listener): () => void {
  listeners.add(listener);
  stopWatching ??= watch();
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0) {
      stopWatching?.();
      stopWatching = undefined;
    }
  };
}

function watch(): () => void {
  let scheduled = false;
  const notify = () => {
    if (scheduled) return;
    scheduled = true;
    // The new theme's stylesheet is in place by the next frame, whatever order the
    // host sets its attributes and swaps its CSS in.
    requestAnimationFrame(() => {
      scheduled = false;
      for (const listener of [...listeners]) listener();
    });
  };
  const observer = new MutationObserver(notify);
  observer.observe(document.body, { attributes: true, attributeFilter: ["data-jp-theme-light", "data-jp-theme-name"] });
  const scheme = matchMedia("(prefers-color-scheme: dark)");
  scheme.addEventListener("change", notify);
  let ratio: MediaQueryList | undefined;
  const watchRatio = () => {
    ratio?.removeEventListener("change", onRatio);
    ratio = matchMedia(`(resolution: ${window.devicePixelRatio || 1}dppx)`);
    ratio.addEventListener("change", onRatio);
  };
  const onRatio = () => {
    watchRatio(); // the query names one ratio: ask again for the new one
    notify();
  };
  watchRatio();
  return () => {
    observer.disconnect();
    scheme.removeEventListener("change", notify);
    ratio?.removeEventListener("change", onRatio);
  };
}
