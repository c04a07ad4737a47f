/**
 * The timeline's legend, under its chart: a swatch and a name for each thing drawn
 * (user names as text, never HTML), a series' entry a toggle that hides and shows it;
 * for training curves the smoothing slider (0 to 0.99, as TensorBoard's); and a toggle
 * for log value axes.
 */
import { el, input } from "./dom.ts";
import { SeriesToggles } from "./legend-toggle.ts";
import { MAX_WEIGHT } from "./smoothing.ts";

/**
 * A legend entry: the swatch's kind ("bar", "line", "terminated", "truncated", "none"),
 * its colour, the name, and for a series the key its toggle hides and shows it by.
 */
export type LegendItem = [kind: string, color: string, name: string, key?: string];

export class TimelineLegend {
  readonly element: HTMLDivElement;
  private readonly keys: HTMLSpanElement;
  private readonly smoothing: HTMLLabelElement;
  private readonly slider: HTMLInputElement;
  private readonly value: HTMLOutputElement;
  /** Which series the user hid by clicking their entries. */
  readonly series: SeriesToggles<string>;

  constructor(
    parent: HTMLElement,
    /** The user moved the smoothing slider to a new weight. */
    onSmoothing: (weight: number) => void,
    /** The user turned the log scale on or off. */
    onLog: (log: boolean) => void = () => {},
    /** The user hid or showed a series (its entry clicked). */
    onToggle: () => void = () => {},
  ) {
    this.series = new SeriesToggles(onToggle);
    this.element = parent.appendChild(el("div", "aw-timeline-legend"));
    this.keys = this.element.appendChild(el("span", "aw-timeline-keys"));
    this.smoothing = this.element.appendChild(el("label", "aw-smoothing"));
    this.smoothing.append("smoothing ");
    this.slider = this.smoothing.appendChild(input("aw-smoothing-slider", "range"));
    Object.assign(this.slider, { min: "0", max: String(MAX_WEIGHT), step: "0.01" });
    this.slider.title = "Exponential moving average of the curves: raw faint, smoothed bold (0: none)";
    this.value = this.smoothing.appendChild(el("output", "aw-smoothing-value"));
    this.slider.addEventListener("input", () => {
      const weight = Number(this.slider.value);
      this.value.textContent = weight.toFixed(2);
      onSmoothing(weight);
    });
    this.setSmoothing(null);
    const log = this.element.appendChild(el("label", "aw-log-scale"));
    const toggle = log.appendChild(input("aw-log-toggle", "checkbox"));
    log.append("log scale");
    log.title = "Value axes on a log scale: values at or below zero are left out (as TensorBoard does); an axis with none above zero stays linear";
    toggle.addEventListener("change", () => onLog(toggle.checked));
  }

  /** Shows the smoothing slider at `weight`, or hides it (null: the curves are not training curves). */
  setSmoothing(weight: number | null): void {
    this.smoothing.hidden = weight === null;
    if (weight === null) return;
    this.slider.value = String(weight);
    this.value.textContent = weight.toFixed(2);
  }

  /** Shows `items`; the same items again change nothing. */
  setItems(items: readonly LegendItem[]): void {
    const key = JSON.stringify(items);
    if (this.keys.dataset.key === key) return;
    this.keys.dataset.key = key;
    this.keys.replaceChildren(
      ...items.map(([kind, color, name, key]) => {
        const swatch = el("span", `aw-key-swatch aw-key-${kind}`);
        swatch.style.setProperty("--aw-key-color", color);
        const item = key === undefined ? el("span", "aw-timeline-key") : this.series.button(key, swatch, name);
        item.classList.add("aw-timeline-key");
        if (key === undefined) item.append(swatch, name);
        return item;
      }),
    );
  }
}
