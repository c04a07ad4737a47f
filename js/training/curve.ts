/**
 * The TrainingViewer's learning curve, drawn in episodes: the `curve` trait holds a
 * point per episode in the timeline's series format (each episode's return its own
 * bar, the moving average and success rate as lines), so the viewer's own Timeline
 * draws it, with its smoothing slider, zoom and legend. Its x-axis is the episodes
 * trained, never the positions: those are taken at most every `interval` seconds, so
 * their number depends on the machine's pace, while the curve of a seeded run is the
 * same everywhere. The positions are a sampling of the curve (`positions`: the
 * episodes trained before each one's snapshot): the cursor marks the one shown, and a
 * click goes to the last position at or before the episode clicked.
 */
import { el } from "../shared/dom.ts";
import { parseSeries, readSeries } from "../shared/series.ts";
import { Timeline, type TimelineNames } from "../shared/timeline.ts";
import { inSteps, pointSteps } from "./curve-steps.ts";

export const CURVE_NAMES: TimelineNames = { reward: "episode return", return: "total return", steps: "episodes", position: "episode" };
/** The extras on the 0-1 axis. */
const RATES = ["success rate"];

/** The curve's data: the series over `episodes` episodes, and where each position sits on it. */
export interface CurveData {
  episodes: number;
  positions: Float64Array;
  /** In env steps (`x="steps"`): each point's x (js/training/curve-steps.ts); undefined in episodes. */
  ends?: Float64Array;
}

/** Reads the `curve` trait's episodes and positions (none: the table before training alone). */
export function curveData(raw: unknown): CurveData {
  const dict = (raw ?? {}) as Record<string, unknown>;
  const positions = readSeries(dict.positions);
  const ends = "steps" in dict ? pointSteps(readSeries(dict.steps)) : undefined;
  return { episodes: readSeries(dict.rewards).length, positions: positions.length > 0 ? positions : new Float64Array(1), ends };
}

/** The last position whose snapshot came at or before `episodes` episodes (0 when none did). */
export function positionAt(positions: ArrayLike<number>, episodes: number): number {
  let lo = 0;
  let hi = positions.length - 1;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (positions[mid] <= episodes) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** Where position `position` sits on the curve: the episodes trained before its snapshot. */
export function episodesAt(positions: ArrayLike<number>, position: number): number {
  if (positions.length === 0) return 0;
  return positions[Math.max(0, Math.min(position, positions.length - 1))];
}

/** What the line under the curve says: how long it is, and which point the position shown is. */
export function caption(data: CurveData, position: number): string {
  const at = episodesAt(data.positions, position);
  const count = `${data.episodes.toLocaleString("en-US")} episode${data.episodes === 1 ? "" : "s"}`;
  const shown = at === 0 ? "the table before training" : `the table after episode ${(at - 1).toLocaleString("en-US")}`;
  return `Learning curve over ${count}; position ${position} shows ${shown}`;
}

export class LearningCurve {
  readonly element: HTMLDivElement;
  private readonly timeline: Timeline;
  private readonly caption: HTMLDivElement;
  private data: CurveData = { episodes: 0, positions: new Float64Array(1) };
  private position = 0;

  /**
   * `onSeek(position)`: the user clicked the curve, the position to show;
   * `onSmoothing(weight)`: the user moved its smoothing slider.
   */
  constructor(onSeek: (position: number) => void, onSmoothing: (weight: number) => void) {
    this.element = el("div", "aw-learning-curve");
    const episodesBy = (t: number) => (this.data.ends === undefined ? t : positionAt(this.data.ends, t));
    this.timeline = new Timeline(this.element, (t) => onSeek(positionAt(this.data.positions, episodesBy(t))), undefined, onSmoothing);
    this.timeline.element.setAttribute("role", "img");
    this.timeline.setNames(CURVE_NAMES);
    this.caption = this.element.appendChild(el("div", "aw-curve-caption"));
  }

  /** The `curve` trait's value. */
  setData(raw: unknown): void {
    this.data = curveData(raw);
    const { ends } = this.data;
    const length = this.data.episodes + 1; // point k: after k episodes
    const series = parseSeries(raw, length);
    if (ends === undefined || ends.length !== length) this.timeline.setData(series, length);
    else this.timeline.setData(inSteps(series, ends), ends[length - 1] + 1);
    this.timeline.setNames({ ...CURVE_NAMES, steps: ends === undefined ? CURVE_NAMES.steps : "env steps" });
    this.timeline.element.dataset.episodes = String(this.data.episodes);
    this.timeline.element.setAttribute("aria-label", `Learning curve: episode returns, moving average and success rate over ${this.data.episodes} episodes (click to go to the position nearest before)`);
    this.show(this.position);
  }

  /** The weight of the moving average drawn bold over the raw curves (raw faint); null: none. */
  setSmoothing(weight: number | null): void {
    this.timeline.setCurves(RATES, weight);
  }

  /** The position shown: its point of the curve under the cursor. */
  show(position: number): void {
    this.position = position;
    const at = episodesAt(this.data.positions, position);
    this.timeline.setCursor(this.data.ends?.[at] ?? at);
    this.timeline.element.dataset.cursor = String(at);
    this.caption.textContent = caption(this.data, position);
  }

  dispose(): void {
    this.timeline.dispose();
    this.element.remove();
  }
}
