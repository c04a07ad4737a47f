/**
 * The anywidget entry point: builds one view of an episode and wires the
 * modules together. Each view keeps its own caches; views of the same model
 * stay in sync through the `step` trait.
 *
 * Example (what anywidget does with this module):
 *   const cleanup = widget.render({ model, el });  // ... later: cleanup()
 */
import { FrameCanvas, missingFrameMessage } from "./canvas.ts";
import { Controls } from "../shared/controls.ts";
import { DecodeAhead } from "../frames/decoding.ts";
import { ModelListeners } from "../shared/listeners.ts";
import { NO_ANSWER, NoAnswer } from "../shared/no-answer.ts";
import { Outbox } from "../shared/outbox.ts";
import { PanelCards } from "../panels/panels.ts";
import { chunkOf, decodePlan, type Direction } from "../frames/prefetch.ts";
import { Player } from "../shared/player.ts";
import { Readout, readoutFields } from "../shared/readout.ts";
import { isSavedCopy } from "../shared/saved-copy.ts";
import { parseSeries, type Series } from "../shared/series.ts";
import { hasSummary, parseSummary, type TimelineColumns } from "../shared/columns.ts";
import { ChunkSource, type Playhead } from "../frames/source.ts";
import { FrameStore } from "../frames/store.ts";
import { Throttle } from "../shared/throttle.ts";
import { Timeline } from "../shared/timeline.ts";
import { RangeRequests } from "../shared/timeline-ranges.ts";
import { FitToggle, FrameRoom } from "./room.ts";
import { Traits } from "./traits.ts";
import { ChunkTransport } from "../frames/transport.ts";
import type { ChunkData, EncodedPart, Model, StepMeta } from "../shared/types.ts";

/**
 * `step` is set locally at once but saved to the kernel at most this often:
 * dragging must not flood the kernel, and playback even less (each message also
 * makes the kernel publish busy/idle status).
 */
const SAVE_INTERVAL_MS = 50;
const SAVE_INTERVAL_PLAYING_MS = 250;
/** Frames decoded ahead of the playhead while stepping / playing, and behind it. */
const DECODE_AHEAD_STEPPING = 24;
const DECODE_AHEAD_PLAYING = 32;
const DECODE_BEHIND = 4;
/**
 * While stepping, frames decoded ahead stop at this many RGBA bytes (Pong: all 24;
 * 480x480: 4). A step shows a frame of an inflated part in ~1 ms anyway, and on
 * this 2-core machine decoding 24 large frames after a jump takes the CPU the
 * kernel and server need for the next jump's reply.
 */
const DECODE_AHEAD_STEPPING_BYTES = 4 * 2 ** 20;
/**
 * A long episode's timeline (its summary inflated, read and drawn: tens of ms) waits
 * for the first frame to be on screen, or this long at most: the frame is what the
 * episode was opened for. A short episode's series are drawn at once (a few ms).
 */
const SUMMARY_WAIT_MS = 500;

type Origin = "user" | "model" | "player";

class EpisodeView {
  private readonly root: HTMLDivElement;
  private readonly title: HTMLDivElement;
  private readonly status: HTMLDivElement;
  private readonly canvas: FrameCanvas;
  private readonly controls: Controls;
  private readonly timeline: Timeline;
  private readonly ranges: RangeRequests;
  private readonly readout: Readout;
  private readonly fitToggle: FitToggle;
  private readonly room: FrameRoom;
  private readonly panels: PanelCards;
  private readonly outbox = new Outbox();
  private readonly noAnswer = new NoAnswer((late) => this.onNoAnswer(late));
  private readonly transport: ChunkTransport;
  private readonly store: FrameStore;
  private readonly source: ChunkSource;
  private readonly decoder: DecodeAhead;
  private readonly player: Player;
  private readonly saveStep: Throttle;
  private readonly traits: Traits;
  private readonly listeners: ModelListeners;
  private series: Series;
  /** A long episode's timeline summary, parsed once per change of the trait. */
  private summary: TimelineColumns | undefined;
  /** Set while a long episode's summary waits for the first frame (`showSummary`). */
  private summaryWait: ReturnType<typeof setTimeout> | undefined;
  private knownLength: number;
  private step = -1;
  private paintedStep = -1;
  private direction: Direction = 1;
  /** RGBA bytes of the last painted frame: sizes the decode-ahead window. */
  private frameBytes = 0;
  /** Positions 0 .. savedPositions - 1 came with the widget's state (see `preload`). */
  private savedPositions = 0;

  constructor(
    private readonly model: Model,
    el: HTMLElement,
  ) {
    this.traits = new Traits(model);
    this.root = el.appendChild(document.createElement("div"));
    this.root.className = "agent-widget";
    this.root.tabIndex = 0;
    // JupyterLab (Lumino) skips its shortcuts for keys pressed inside these elements.
    this.root.dataset.lmSuppressShortcuts = "true";
    this.root.dataset.pSuppressShortcuts = "true";
    this.title = this.root.appendChild(document.createElement("div"));
    this.title.className = "aw-title";
    // The frame column and the panel cards side by side, the controls and the timeline
    // under both, the widget's whole width; in a narrow cell the controls and the
    // timeline right under the frame, the readout and the cards after them (widget.css).
    const body = this.root.appendChild(document.createElement("div"));
    body.className = "aw-body";
    const main = body.appendChild(document.createElement("div"));
    main.className = "aw-main";
    // The frame and the overlays drawn over it.
    const stage = main.appendChild(document.createElement("div"));
    stage.className = "aw-stage";
    this.canvas = new FrameCanvas(stage);
    this.readout = new Readout(main);
    this.panels = new PanelCards(model, body, stage, this.outbox);
    this.controls = new Controls(body, this.root, {
      seek: (t) => this.userGo(t),
      stepBy: (delta) => this.userGo(this.step + delta),
      togglePlay: () => this.togglePlay(),
      setFps: (fps) => this.saveTrait("fps", fps),
      setLoop: (loop) => this.saveTrait("loop", loop),
    });
    this.fitToggle = new FitToggle(this.controls.options, () => this.onSize());
    this.ranges = new RangeRequests(model, this.outbox);
    this.timeline = new Timeline(
      body,
      (t) => this.userGo(t),
      (from, to, columns) => this.ranges.fetch(from, to, columns),
      (weight) => this.saveTrait("timeline_smoothing", weight),
    );
    this.timeline.element.setAttribute("role", "img");
    this.nameTimeline();
    this.showCurves();
    this.timeline.setMark(this.traits.timelineMark);
    this.room = new FrameRoom(body, this.panels.element, stage, () => this.onSize());
    this.status = this.root.appendChild(document.createElement("div"));
    this.status.className = "aw-status";

    this.store = new FrameStore(() => this.traits.chunkSize);
    this.transport = new ChunkTransport(model, {
      chunkSize: () => this.traits.chunkSize,
      onPush: (data) => this.source.receive(data),
      onPushError: (error) => this.report(error),
      outbox: this.outbox,
      onFrame: (part, steps) => this.onPreview(part, steps),
    });
    this.source = new ChunkSource(
      this.transport,
      this.store,
      (data) => this.onChunk(data),
      (error) => this.report(error),
    );
    this.decoder = new DecodeAhead(
      this.store,
      (t) => this.store.has(chunkOf(t, this.traits.chunkSize)),
      (error) => this.report(error),
    );
    this.player = new Player({
      ready: (t) => !this.traits.hasFrames || this.store.frameNow(t) !== undefined,
      need: (t) => this.decoder.now(t),
      show: (t) => this.go(t, "player"),
      ended: () => this.pause(),
    });
    // The model's step is set and saved together: a step set locally but not yet saved
    // would be overwritten by the kernel's echo of an earlier save (ipywidgets 8 echoes
    // every update), moving the view back. The view paints from its own `this.step`.
    this.saveStep = new Throttle(
      () =>
        this.outbox.send(() => {
          model.set("step", this.step);
          model.save_changes();
        }),
      () => (this.player.playing ? SAVE_INTERVAL_PLAYING_MS : SAVE_INTERVAL_MS),
    );

    // The first frame's chunk is asked for before the series are parsed and the timeline
    // drawn: on a long episode those take a while, and meanwhile the reply is on its way.
    this.knownLength = this.traits.length;
    this.savedPositions = this.preload();
    if (this.knownLength > 0) this.source.update(this.playhead(this.clamp(this.traits.step)));
    this.series = parseSeries(this.traits.series, this.knownLength);
    this.listeners = new ModelListeners(model);
    this.listeners.on("change:step", () => this.go(this.traits.step, "model"));
    this.listeners.on("change:length", () => this.onLength());
    this.listeners.on("change:series", () => this.onSeries());
    this.listeners.on("change:summary", () => this.onSeries());
    this.listeners.on("change:timeline_names", () => this.nameTimeline());
    this.listeners.on("change:timeline_rates", () => this.showCurves());
    this.listeners.on("change:timeline_smoothing", () => this.showCurves());
    this.listeners.on("change:timeline_mark", () => this.timeline.setMark(this.traits.timelineMark));
    this.listeners.on("change:action_names", () => this.showReadout());
    this.listeners.on("change:readout", () => this.showReadout());
    this.listeners.on("change:has_frames", () => this.paint());
    this.listeners.on("change:chunk_size", () => this.onChunkSize());
    this.listeners.on("change:fps", () => this.onPlayback());
    this.listeners.on("change:loop", () => this.onPlayback());
    this.listeners.on("change:height", () => this.onSize());
    this.listeners.on("change:scale", () => this.onSize());
    this.listeners.on("change:title", () => this.onTitle());

    this.controls.setLength(this.traits.length);
    this.controls.setFps(this.traits.fps);
    this.controls.setLoop(this.traits.loop);
    this.controls.setPlaying(false);
    if (hasSummary(this.traits.summary)) this.summaryWait = setTimeout(() => this.showSummary(), SUMMARY_WAIT_MS);
    else this.showTimeline();
    this.onSize();
    this.onTitle();
    this.go(this.traits.step, "model");
  }

  dispose(): void {
    clearTimeout(this.summaryWait);
    this.summaryWait = undefined;
    this.noAnswer.dispose();
    this.player.pause();
    this.decoder.stop();
    this.transport.dispose();
    this.timeline.dispose();
    this.ranges.dispose();
    this.canvas.dispose();
    this.room.dispose();
    this.controls.dispose();
    this.panels.dispose();
    this.saveStep.flush();
    this.outbox.flush();
    this.listeners.dispose();
    this.root.remove();
  }

  /** The user moved the playhead: stop playback and go there. */
  private userGo(t: number): void {
    if (this.player.playing) this.pause();
    this.go(t, "user");
  }

  /**
   * Shows position `t`: asks for the chunks it needs first, then slider, cursor
   * and readout at once, the frame as soon as it is decoded (immediately when
   * prefetched), then plans what to decode ahead.
   */
  private go(t: number, origin: Origin): void {
    const length = this.traits.length;
    if (length === 0) {
      this.readout.element.textContent = "empty episode";
      return;
    }
    t = this.clamp(t);
    if (t === this.step && origin !== "player") return;
    // Looping playback keeps its forward direction across the wrap to 0.
    if (origin === "player") this.direction = 1;
    else if (t !== this.step) this.direction = t > this.step ? 1 : -1;
    this.step = t;
    // Another view or the kernel moved the playhead during playback: continue from there.
    if (origin === "model" && this.player.playing) this.startPlayback();
    // A reply from the kernel is the longest wait a frame can have: ask for it first.
    this.source.update(this.playhead(t));
    this.controls.setStep(t);
    this.timeline.setCursor(t);
    this.panels.setStep(t);
    this.showReadout();
    this.paint();
    this.planDecode();
    if (origin !== "model") this.saveStep.call();
    if (origin === "player") this.root.dataset.droppedFrames = String(this.player.droppedFrames);
  }

  /** Paints the current position if its frame is ready, else starts decoding it. */
  private paint(): void {
    const t = this.step;
    if (t < 0) return;
    if (!this.traits.hasFrames) {
      this.canvas.placeholder("no frames");
      this.painted(t);
      return;
    }
    const frame = this.store.frameNow(t);
    if (frame === null) {
      this.canvas.placeholder(missingFrameMessage(t, this.store.meta(t)?.info));
      this.painted(t);
    } else if (frame !== undefined) {
      this.canvas.paint(frame, `Frame at step ${t} of ${this.traits.length - 1}`);
      if (frame.rgba.byteLength !== this.frameBytes) {
        this.frameBytes = frame.rgba.byteLength;
        this.store.fitPlayback(this.traits.fps, this.frameBytes);
      }
      this.painted(t);
    } else if (this.store.has(chunkOf(t, this.traits.chunkSize))) {
      this.holdMessages();
      this.store.frame(t).then(
        () => this.step === t && this.paint(),
        (error: Error) => {
          this.outbox.release();
          this.report(error);
        },
      );
    } else {
      this.holdMessages();
      this.noAnswer.asked(); // the chunk is on its way; onChunk paints it
    }
  }

  /**
   * Other messages (the step save, panel and window requests) wait for the pending
   * paint (js/shared/outbox.ts), unless the kernel is far: there each would wait a
   * round trip, longer than it could slow the paint.
   */
  private holdMessages(): void {
    if (!this.transport.link.far) this.outbox.hold();
  }

  private painted(t: number): void {
    this.outbox.release();
    this.noAnswer.answered();
    this.root.dataset.paintedStep = String(t);
    this.paintedStep = t;
    // The frame is drawn; the browser shows it in its next rendering, then the summary.
    if (this.summaryWait !== undefined) requestAnimationFrame(() => setTimeout(() => this.showSummary()));
    // Requests held back so as not to slow this paint go now.
    if (this.source.held) this.plan();
  }

  /** The timeline's names for its series, in its legend and in its name for screen readers. */
  private nameTimeline(): void {
    const names = this.traits.timelineNames;
    this.timeline.setNames(names);
    const [reward, total, steps] = [names.reward ?? "reward", names.return ?? "return", names.steps ?? "steps"];
    this.timeline.element.setAttribute("aria-label", `Timeline of ${reward} and ${total} over the ${steps} (click to go to one)`);
  }

  private showReadout(): void {
    if (this.step < 0) return;
    const meta = this.store.meta(this.step);
    if (this.traits.readout === "info") this.readout.showInfo(this.step, this.traits.length, meta);
    else this.readout.show(readoutFields(this.step, this.series, meta, this.traits.actionNames, this.traits.length));
  }

  /** Requests the chunks and decodes the frames the playhead will need next. */
  private plan(): void {
    this.source.update(this.playhead(this.step));
    this.planDecode();
  }

  /** Where the chunk source plans around: position `step`, as the view moves and plays. */
  private playhead(step: number): Playhead {
    return {
      step,
      direction: this.direction,
      length: this.traits.length,
      chunkSize: this.traits.chunkSize,
      fps: this.traits.fps,
      wrap: this.player.playing && this.traits.loop,
      painting: this.paintedStep !== step,
    };
  }

  /** `t` as a position of the episode: rounded, within 0 .. length - 1 (0 when not a number). */
  private clamp(t: number): number {
    return Math.max(0, Math.min(this.traits.length - 1, Math.round(Number.isFinite(t) ? t : 0)));
  }

  private planDecode(): void {
    const playing = this.player.playing;
    const frameBytes = Math.max(1, this.frameBytes);
    const affordable = this.frameBytes > 0 ? Math.floor(this.store.budgets.decoded / 2 / frameBytes) : Infinity;
    const stepping = Math.min(DECODE_AHEAD_STEPPING, Math.floor(DECODE_AHEAD_STEPPING_BYTES / frameBytes));
    const ahead = Math.max(1, Math.min(playing ? DECODE_AHEAD_PLAYING : stepping, affordable - DECODE_BEHIND));
    const behind = Math.min(DECODE_BEHIND, ahead);
    const wrap = playing && this.traits.loop;
    this.decoder.schedule(decodePlan(this.step, this.direction, this.traits.length, ahead, behind, wrap));
  }

  /** Paints a frame the kernel sent ahead of its chunk, and its readout, if the view still waits for it. */
  private onPreview(part: EncodedPart, steps: Map<number, StepMeta>): void {
    const t = part.start;
    if (t !== this.step || this.store.frameNow(t) !== undefined) return;
    this.store.preview(part, steps).then(
      () => {
        if (this.step !== t) return;
        this.showReadout();
        this.paint();
      },
      (error: Error) => this.report(error),
    );
  }

  private onChunk(data: ChunkData): void {
    this.noAnswer.answered();
    this.status.textContent = "";
    this.root.dataset.cachedChunks = String(this.store.chunks.size);
    if (chunkOf(this.step, this.traits.chunkSize) === data.chunk) {
      this.showReadout();
      this.paint();
    }
    this.planDecode();
  }

  /** Play from here (from the start when at the end without loop), or pause. */
  private togglePlay(): void {
    if (this.player.playing) {
      this.pause();
      return;
    }
    if (!this.traits.loop && this.step >= this.traits.length - 1) this.go(0, "user");
    this.startPlayback();
  }

  /** (Re)starts the clock at the current step with the current fps, length and loop. */
  private startPlayback(): void {
    if (this.traits.length === 0) return;
    this.direction = 1;
    this.player.play(this.step, { fps: this.traits.fps, length: this.traits.length, loop: this.traits.loop });
    this.controls.setPlaying(true);
    this.plan();
  }

  private pause(): void {
    this.player.pause();
    this.controls.setPlaying(false);
    this.root.dataset.droppedFrames = String(this.player.droppedFrames);
  }

  private saveTrait(name: string, value: unknown): void {
    this.model.set(name, value);
    this.model.save_changes();
  }

  /** The episode grew (live) or was replaced: drop what may be stale, keep the rest. */
  private onLength(): void {
    const old = this.knownLength;
    const length = this.traits.length;
    this.knownLength = length;
    this.readTimeline(length); // the returns run to the new length
    if (length < old) {
      this.source.reset();
    } else if (old > 0 && length > old) {
      this.source.grown(old, length, this.traits.chunkSize);
      this.panels.grown(old);
    }
    this.controls.setLength(length);
    this.showTimeline();
    const step = this.step;
    this.step = -1; // force a full refresh of the current position
    this.go(Math.min(Math.max(step, 0), length - 1), "model");
  }

  private onSeries(): void {
    this.readTimeline(this.traits.length);
    this.showTimeline();
    this.showReadout();
  }

  /**
   * The `series` and `summary` traits, parsed. An episode growing past 4,096 steps turns
   * to a summary and sends no more series: the last ones are kept for the readout of the
   * chunks cached before, which came without readout values.
   */
  private readTimeline(length: number): void {
    const series = parseSeries(this.traits.series, length);
    this.summary = parseSummary(this.traits.summary);
    const turned = series.rewards.length === 0 && this.series.rewards.length > 0 && this.summary !== undefined;
    if (!turned) this.series = series;
  }

  private showCurves(): void {
    this.timeline.setCurves(this.traits.timelineRates, this.traits.timelineSmoothing);
  }

  /** Reads and draws a long episode's timeline summary, unless it was already (`SUMMARY_WAIT_MS`). */
  private showSummary(): void {
    if (this.summaryWait === undefined) return;
    this.summary = parseSummary(this.traits.summary);
    this.showTimeline();
  }

  private showTimeline(): void {
    clearTimeout(this.summaryWait);
    this.summaryWait = undefined;
    this.timeline.setData(this.series, this.traits.length, this.summary);
  }

  private onChunkSize(): void {
    this.source.reset();
    this.paint();
    this.plan();
  }

  private onPlayback(): void {
    if (this.frameBytes > 0) this.store.fitPlayback(this.traits.fps, this.frameBytes);
    this.controls.setFps(this.traits.fps);
    this.controls.setLoop(this.traits.loop);
    if (this.player.playing) this.startPlayback();
  }

  private onSize(): void {
    const { height, scale } = this.traits;
    this.fitToggle.element.hidden = height > 0 || scale > 0; // a size asked for in Python holds
    this.canvas.setSize({ height, scale, fit: this.fitToggle.fit, room: this.room.size() });
  }

  private onTitle(): void {
    const title = this.traits.title;
    this.title.textContent = title;
    this.title.hidden = title === "";
  }

  /**
   * Caches the chunks the widget's state carries (the `embedded` trait): a notebook
   * saved with its widget state shows them with no kernel, and a live view paints its
   * first frame without a round trip. Returns how many positions, from 0, they hold.
   */
  private preload(): number {
    let positions = 0;
    for (const buffers of this.traits.embedded) {
      try {
        for (const data of this.transport.parse(buffers).values()) {
          this.store.put(data);
          positions = Math.max(positions, ...[...data.steps.keys()].map((t) => t + 1));
        }
      } catch (error) {
        this.report(error as Error);
      }
    }
    this.root.dataset.savedPositions = String(positions);
    this.root.dataset.cachedChunks = String(this.store.chunks.size);
    return positions;
  }

  /** The frame shown waits for a kernel that has been silent for a while: say so, in words. */
  private onNoAnswer(late: boolean): void {
    this.root.dataset.noAnswer = String(late);
    if (!late) {
      this.status.textContent = "";
    } else if (this.paintedStep !== this.step && isSavedCopy(this.model, this.root)) {
      // No kernel will ever send it: say what this copy holds and how to see the rest.
      this.canvas.placeholder(`step ${this.step} is not in this saved copy`);
      const held = this.savedPositions > 0 ? `steps 0 to ${this.savedPositions - 1}` : "no frames";
      this.status.textContent = `The notebook saved ${held} with this view; this saved copy has no kernel to send the others: run the cell to see them.`;
    } else if (this.paintedStep !== this.step) {
      this.canvas.placeholder(`step ${this.step}: waiting for the kernel`);
      const saved =
        this.savedPositions > 0 && this.step >= this.savedPositions
          ? `The notebook saved steps 0 to ${this.savedPositions - 1} with this view; the rest comes from the kernel: `
          : "No frame yet, ";
      this.status.textContent = `${saved}${NO_ANSWER}. It shows as soon as the kernel answers.`;
    }
  }

  private report(error: Error): void {
    this.noAnswer.answered();
    console.warn("agent-widget:", error);
    this.status.textContent = `Could not load frames: ${error.message}`;
  }
}

function render({ model, el }: { model: Model; el: HTMLElement }): () => void {
  const view = new EpisodeView(model, el);
  return () => view.dispose();
}

export default { render };
