/**
 * Legend entries that hide and show their series, as TensorBoard's do: each entry a
 * toggle button (aria-pressed: its series is shown) that a click flips. Which series
 * are hidden lives here, not in the DOM, so a legend rebuilt on each change keeps
 * what the user hid.
 *
 * Example:
 *   const toggles = new SeriesToggles<number>(() => chart.redraw());
 *   legend.append(toggles.button(0, swatch, "seed 0"));
 *   toggles.isShown(0);   // false once clicked
 */
import { el } from "./dom.ts";

export class SeriesToggles<K> {
  private readonly hidden = new Set<K>();

  /** `onChange`: a series was hidden or shown again (redraw the chart). */
  constructor(private readonly onChange: () => void) {}

  isShown(key: K): boolean {
    return !this.hidden.has(key);
  }

  /** Hides series `key` if shown, shows it if hidden. */
  toggle(key: K): void {
    if (this.hidden.has(key)) this.hidden.delete(key);
    else this.hidden.add(key);
    this.onChange();
  }

  /** Series `key`'s legend entry: a toggle button holding `content` (its swatch and name). */
  button(key: K, ...content: (Node | string)[]): HTMLButtonElement {
    const entry = el("button", "aw-legend-toggle");
    entry.type = "button";
    entry.append(...content);
    const show = () => {
      entry.setAttribute("aria-pressed", String(this.isShown(key)));
      entry.title = this.isShown(key) ? "Click to hide this series" : "Click to show this series";
    };
    show();
    entry.addEventListener("click", () => {
      this.toggle(key);
      show();
    });
    return entry;
  }
}
