/**
 * Values under the cursor, as TensorBoard shows them: while the pointer moves over a
 * chart's plot, a vertical rule at its position and a small box listing each shown
 * series' swatch, name and value there (raw and smoothed where the chart smooths);
 * both go on pointer leave. The box stays inside the chart and beside the pointer,
 * never over it. Series names are user strings: every text is set with textContent.
 *
 * The chart says what is where (`HoverSource`); this module only draws it.
 *
 * Example:
 *   const hover = new Hover(frame, {
 *     positionAt: (x, width) => positionAt(x * ratio, width * ratio, length),
 *     xOf: (t, width) => cursorX(t, width, length),
 *     heading: (t) => `step ${t}`,
 *     values: (t) => [{ name: "return", color: "#1f5fbf", value: returns[t] }],
 *   });
 *   hover.refresh();   // the data changed under a still pointer
 */
import { el } from "./dom.ts";
import { formatNumber } from "./numbers.ts";

/** One series at the hovered position. */
export interface HoverValue {
  name: string;
  /** Its swatch's CSS colour. */
  color: string;
  /** Its value there (undefined: none, printed "-"). */
  value: number | undefined;
  /** Its smoothed value there, where the chart smooths. */
  smoothed?: number;
  /** Its lowest and highest values there, where a chart's pixel covers several positions (printed "lo to hi" when they differ). */
  range?: readonly [number, number];
}

/** What a chart tells the hover: where its positions are and what its series are at each. */
export interface HoverSource {
  /** The position under CSS pixel `x` of a plot `width` CSS pixels wide (null: none there). */
  positionAt(x: number, width: number): number | null;
  /** Where the rule for `position` goes (CSS pixels from the plot's left); the pointer's x without it. */
  xOf?(position: number, width: number): number;
  /** The box's first line: what the position is ("step 12", "training step 20,000"). */
  heading(position: number): string;
  /** The shown series at `position`, in the legend's order. */
  values(position: number): HoverValue[];
}

interface Size {
  width: number;
  height: number;
}

/** CSS pixels between the pointer and the box. */
const GAP = 12;

/**
 * Where the box goes (its top-left, CSS pixels in `area`) for a pointer at `pointer`:
 * right of it, else left of it, and inside the area; when neither side has room, on
 * the roomier side and above or below the pointer, so the box never covers it. Taller
 * than the area, it starts at the area's top.
 */
export function placeBox(pointer: { x: number; y: number }, box: Size, area: Size): { left: number; top: number } {
  const clamp = (v: number, hi: number) => Math.max(0, Math.min(v, hi));
  const top = clamp(pointer.y - box.height / 2, area.height - box.height);
  if (pointer.x + GAP + box.width <= area.width) return { left: pointer.x + GAP, top };
  if (pointer.x - GAP - box.width >= 0) return { left: pointer.x - GAP - box.width, top };
  const left = pointer.x > area.width / 2 ? 0 : area.width - box.width;
  const above = pointer.y - GAP - box.height;
  return { left: clamp(left, area.width - box.width), top: above >= 0 ? above : pointer.y + GAP };
}

/**
 * The box's table: a header row ("", "value", "smoothed") when some series is smoothed,
 * then per series its name and formatted value (and smoothed value).
 */
export function hoverRows(values: readonly HoverValue[]): { header: string[] | null; rows: string[][] } {
  const smoothing = values.some((v) => v.smoothed !== undefined);
  const rows = values.map((v) => {
    const spread = v.range !== undefined && v.range[0] !== v.range[1];
    const row = [v.name, spread ? `${formatNumber(v.range![0])} to ${formatNumber(v.range![1])}` : formatNumber(v.value)];
    return smoothing ? [...row, formatNumber(v.smoothed)] : row;
  });
  return { header: smoothing ? ["", "value", "smoothed"] : null, rows };
}

/** The hover of one chart: `frame.plot` is where the pointer is followed, `frame.element` what the box stays inside. */
export class Hover {
  private readonly rule: HTMLDivElement;
  private readonly box: HTMLDivElement;
  /** The pointer's CSS position in the plot, while it is over it. */
  private pointer: { x: number; y: number } | null = null;
  private readonly onMove = (event: PointerEvent) => {
    const rect = this.frame.plot.getBoundingClientRect();
    this.pointer = { x: event.clientX - rect.left, y: event.clientY - rect.top };
    this.refresh();
  };
  private readonly onLeave = () => {
    this.pointer = null;
    this.hide();
  };

  constructor(
    private readonly frame: { element: HTMLElement; plot: HTMLElement },
    private readonly source: HoverSource,
  ) {
    frame.element.classList.add("aw-hover-host");
    this.rule = frame.plot.appendChild(el("div", "aw-hover-rule"));
    this.box = frame.element.appendChild(el("div", "aw-hover"));
    this.box.setAttribute("role", "status");
    this.hide();
    frame.plot.addEventListener("pointermove", this.onMove);
    frame.plot.addEventListener("pointerleave", this.onLeave);
  }

  /** Draws the rule and the box again for the pointer where it is (the data or the shown series changed). */
  refresh(): void {
    const pointer = this.pointer;
    const width = this.frame.plot.clientWidth;
    const position = pointer === null || width <= 0 ? null : this.source.positionAt(pointer.x, width);
    if (pointer === null || position === null) return this.hide();
    const x = this.source.xOf?.(position, width) ?? pointer.x;
    this.rule.style.left = `${Math.round(x)}px`;
    this.rule.hidden = false;
    this.fill(this.source.heading(position), this.source.values(position));
    this.box.hidden = false;
    // Pointer and box in the chart's coordinates: the plot sits right of the left axis.
    const chart = this.frame.element.getBoundingClientRect();
    const plot = this.frame.plot.getBoundingClientRect();
    const at = placeBox(
      { x: pointer.x + plot.left - chart.left, y: pointer.y + plot.top - chart.top },
      { width: this.box.offsetWidth, height: this.box.offsetHeight },
      { width: chart.width, height: chart.height },
    );
    this.box.style.left = `${Math.round(at.left)}px`;
    this.box.style.top = `${Math.round(at.top)}px`;
  }

  dispose(): void {
    this.frame.plot.removeEventListener("pointermove", this.onMove);
    this.frame.plot.removeEventListener("pointerleave", this.onLeave);
    this.rule.remove();
    this.box.remove();
  }

  private hide(): void {
    this.rule.hidden = true;
    this.box.hidden = true;
  }

  private fill(heading: string, values: readonly HoverValue[]): void {
    const { header, rows } = hoverRows(values);
    const title = el("div", "aw-hover-heading");
    title.textContent = heading;
    const table = el("div", "aw-hover-table");
    table.style.setProperty("--aw-hover-numbers", String(header === null ? 1 : 2));
    const cell = (text: string, className: string) => {
      const c = table.appendChild(el("span", className));
      c.textContent = text;
    };
    if (header !== null) {
      table.appendChild(el("span", ""));
      header.forEach((text, i) => cell(text, i === 0 ? "aw-hover-name" : "aw-hover-label"));
    }
    rows.forEach(([name, ...numbers], i) => {
      const swatch = table.appendChild(el("span", "aw-hover-swatch"));
      swatch.style.background = values[i].color;
      cell(name, "aw-hover-name");
      for (const n of numbers) cell(n, "aw-hover-value");
    });
    this.box.replaceChildren(title, table);
  }
}
