/**
 * The anywidget entry point of TrainingViewer: its timeline (an EpisodeViewer over
 * training snapshots, drawn from its model with the viewer's own render function,
 * js/shared/children.ts says why), the value map's text written over and beside its
 * frame (value-text-view.ts), the learning curve in episodes in place of the
 * positions' own strip (curve.ts), a Play button, and the episode it played, shown
 * below. Every string is written with textContent.
 */
import { type ChildView, ChildTrait, mountChild } from "../shared/children.ts";
import { button, el } from "../shared/dom.ts";
import { ModelListeners } from "../shared/listeners.ts";
import { bytesOf } from "../shared/series.ts";
import type { Model } from "../shared/types.ts";
import viewer from "../viewer/widget.ts";
import { readGrid, readLabels, readScales } from "./value-text.ts";
import { ValueMapText } from "./value-text-view.ts";
import { LearningCurve } from "./curve.ts";

class TrainingView {
  private readonly root: HTMLDivElement;
  private readonly timelineSlot: HTMLDivElement;
  private readonly play: HTMLButtonElement;
  private readonly message: HTMLSpanElement;
  private readonly played: HTMLDivElement;
  private readonly listeners: ModelListeners;
  private timeline: ChildView | undefined;
  private text: ValueMapText | undefined;
  private playedView: ChildView | undefined;
  private playedText: ValueMapText | undefined;
  private readonly curve: LearningCurve;
  /** The timeline's model and its listeners, which move the curve's cursor. */
  private timelineModel: Model | undefined;
  private timelineListeners: ModelListeners | undefined;
  /** Bumped on each change of a child, so a slow model lookup never shows a stale one. */
  private readonly children: Record<"timeline" | "played", ChildTrait>;
  private disposed = false;

  constructor(
    private readonly model: Model,
    parent: HTMLElement,
  ) {
    this.children = { timeline: new ChildTrait(model, "timeline"), played: new ChildTrait(model, "played") };
    this.root = parent.appendChild(el("div", "aw-training"));
    this.timelineSlot = this.root.appendChild(el("div", "aw-training-timeline"));
    const bar = this.root.appendChild(el("div", "aw-toolbar"));
    this.play = bar.appendChild(
      button("aw-play-greedy", "Play greedy policy", "Record one episode with the greedy policy of the snapshot shown"),
    );
    this.message = bar.appendChild(el("span", "aw-message"));
    this.message.setAttribute("role", "status");
    this.played = this.root.appendChild(el("div", "aw-played"));
    this.curve = new LearningCurve(
      (position) => this.setOnTimeline("step", position),
      (weight) => this.setOnTimeline("timeline_smoothing", weight),
    );
    this.play.addEventListener("click", () => {
      this.play.disabled = true; // until the kernel answers with the played episode or why not
      this.message.textContent = "";
      model.send({ type: "play" });
    });

    this.listeners = new ModelListeners(model);
    this.listeners.on("change:timeline", () => void this.showTimeline());
    this.listeners.on("change:played", () => void this.showPlayed());
    this.listeners.on("change:message", () => this.showMessage());
    for (const name of ["grid", "labels", "scales", "played_scale"]) this.listeners.on(`change:${name}`, () => this.setText());
    this.listeners.on("change:lut", () => this.setLut());
    this.listeners.on("change:curve", () => this.curve.setData(model.get("curve")));
    this.curve.setData(model.get("curve"));
    void this.showTimeline();
    void this.showPlayed();
    this.showMessage();
  }

  dispose(): void {
    this.disposed = true;
    this.listeners.dispose();
    this.timelineListeners?.dispose();
    this.curve.dispose();
    this.text?.dispose();
    this.playedText?.dispose();
    this.timeline?.remove();
    this.playedView?.remove();
    this.root.remove();
  }

  /** The child model trait `name` names (null: none); undefined when a newer change came meanwhile or the view is gone. */
  private async child(name: "timeline" | "played"): Promise<Model | null | undefined> {
    const found = await this.children[name].latest();
    return this.disposed ? undefined : found;
  }

  private async showTimeline(): Promise<void> {
    const child = await this.child("timeline");
    if (child === undefined) return;
    this.text?.dispose();
    this.timelineListeners?.dispose();
    this.timeline?.remove();
    this.text = undefined;
    this.timelineModel = child ?? undefined;
    this.timeline = child === null ? undefined : mountChild(child, viewer.render);
    if (child === null || this.timeline === undefined) return;
    this.timelineSlot.appendChild(this.timeline.el);
    this.showCurve(this.timeline, child);
    this.text = textOver(this.timeline);
    this.setLut();
    this.setText();
  }

  /** The curve where the positions' strip was (hidden by training.css), its cursor on the position shown. */
  private showCurve(view: ChildView, child: Model): void {
    const strip = view.el.querySelector(".aw-timeline-box");
    if (strip === null) this.timelineSlot.appendChild(this.curve.element);
    else strip.after(this.curve.element);
    this.timelineListeners = new ModelListeners(child);
    const show = () => this.curve.show(Number(child.get("step")) || 0);
    // The timeline's smoothing is the curve's: the kernel and every view of it share it.
    const smooth = () => this.curve.setSmoothing(smoothingOf(child.get("timeline_smoothing")));
    this.timelineListeners.on("change:step", show);
    this.timelineListeners.on("change:timeline_smoothing", smooth);
    show();
    smooth();
  }

  /** Sets trait `name` of the timeline, as its own controls would (its step: its slider). */
  private setOnTimeline(name: "step" | "timeline_smoothing", value: number): void {
    const child = this.timelineModel;
    if (child === undefined) return;
    child.set(name, value);
    child.save_changes();
  }

  private async showPlayed(): Promise<void> {
    const child = await this.child("played");
    if (child === undefined) return;
    this.playedText?.dispose();
    this.playedView?.remove();
    this.playedView = child === null ? undefined : mountChild(child, viewer.render);
    this.playedText = undefined;
    if (this.playedView !== undefined) {
      this.played.appendChild(this.playedView.el);
      // Value maps to write over; the env's own frames (it renders rgb_array) are left alone.
      if (readScales(this.model.get("played_scale")).length > 0) this.playedText = textOver(this.playedView);
      this.setLut();
      this.setText();
    }
    this.play.disabled = false;
  }

  private showMessage(): void {
    const text = String(this.model.get("message") ?? "");
    this.message.textContent = text;
    if (text !== "") this.play.disabled = false;
  }

  private setLut(): void {
    const lut = bytesOf(this.model.get("lut"));
    if (lut === undefined) return;
    this.text?.setLut(lut);
    this.playedText?.setLut(lut);
  }

  /** The letters, and the scale of each timeline position; the played episode's one scale (none: the env's frames). */
  private setText(): void {
    const grid = readGrid(this.model.get("grid"));
    const labels = readLabels(this.model.get("labels"));
    const scales = readScales(this.model.get("scales"));
    this.text?.set(grid, labels, (t) => scales[t]);
    const [played] = readScales(this.model.get("played_scale"));
    this.playedText?.set(grid, labels, () => played);
  }
}

/** A smoothing weight trait's value: a number, or null for none. */
function smoothingOf(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

/** The value map's text over a child viewer's frame, or undefined when it has no frame canvas. */
function textOver(child: ChildView): ValueMapText | undefined {
  const root = child.el.querySelector<HTMLElement>(".agent-widget");
  const stage = root?.querySelector<HTMLElement>(".aw-stage");
  const frame = stage?.querySelector<HTMLCanvasElement>("canvas.aw-frame");
  return root == null || stage == null || frame == null ? undefined : new ValueMapText(root, stage, frame);
}

function render({ model, el }: { model: Model; el: HTMLElement }): () => void {
  const view = new TrainingView(model, el);
  return () => view.dispose();
}

export default { render };
