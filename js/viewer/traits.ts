/**
 * Typed reads of the synced traits, with the defaults the kernel uses, so a
 * missing or odd value never breaks a view. Trait names live here only.
 */
import type { TimelineNames } from "../shared/timeline.ts";
import type { Model } from "../shared/types.ts";

export class Traits {
  constructor(private readonly model: Model) {}

  get step(): number {
    return Number(this.model.get("step")) || 0;
  }
  /** Number of positions. */
  get length(): number {
    return Math.max(0, Math.floor(Number(this.model.get("length")) || 0));
  }
  get chunkSize(): number {
    return Math.max(1, Math.floor(Number(this.model.get("chunk_size")) || 16));
  }
  get hasFrames(): boolean {
    return Boolean(this.model.get("has_frames"));
  }
  get series(): unknown {
    return this.model.get("series");
  }
  /** A long episode's timeline summary, in place of its series. */
  get summary(): unknown {
    return this.model.get("summary");
  }
  /** The first chunks' replies, as the widget's state carries them (each a list of buffers). */
  get embedded(): DataView[][] {
    const replies = this.model.get("embedded");
    return Array.isArray(replies) ? replies.filter(Array.isArray) : [];
  }
  get actionNames(): string[] {
    const names = this.model.get("action_names");
    return Array.isArray(names) ? names.map(String) : [];
  }
  get fps(): number {
    const fps = Number(this.model.get("fps"));
    return fps > 0 ? fps : 30;
  }
  get loop(): boolean {
    return Boolean(this.model.get("loop"));
  }
  /** CSS px of the canvas, 0 = auto. */
  get height(): number {
    return Math.max(0, Number(this.model.get("height")) || 0);
  }
  /** Canvas scale, 0 = auto. */
  get scale(): number {
    return Math.max(0, Number(this.model.get("scale")) || 0);
  }
  /** What the readout says of a position: an env step's fields, or its info alone. */
  get readout(): "step" | "info" {
    return this.model.get("readout") === "info" ? "info" : "step";
  }
  /** What the timeline's legend calls the rewards, their running sum and the positions (empty: "reward", "return", "steps"). */
  get timelineNames(): Partial<TimelineNames> {
    const names = this.model.get("timeline_names");
    if (names === null || typeof names !== "object") return {};
    return Object.fromEntries(Object.entries(names).filter(([, name]) => typeof name === "string"));
  }
  /** The extras that are rates, drawn on a 0-1 axis of their own. */
  get timelineRates(): string[] {
    const rates = this.model.get("timeline_rates");
    return Array.isArray(rates) ? rates.filter((name): name is string => typeof name === "string") : [];
  }
  /** The weight of the timeline's moving average (0 to 0.99); null: no smoothing, no slider. */
  get timelineSmoothing(): number | null {
    const weight = this.model.get("timeline_smoothing");
    return typeof weight === "number" && Number.isFinite(weight) ? weight : null;
  }
  /** The step marked on the timeline (a checkpoint's first different action), or null. */
  get timelineMark(): number | null {
    const t = this.model.get("timeline_mark");
    return typeof t === "number" && Number.isInteger(t) ? t : null;
  }
  get title(): string {
    return String(this.model.get("title") ?? "");
  }
}
