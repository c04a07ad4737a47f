/**
 * Slider, buttons, fps and loop inputs, and the keyboard on the widget root.
 * Controls only report intents; the widget decides what they do.
 */
import { button, el, input } from "./dom.ts";

export interface ControlHandlers {
  seek(t: number): void;
  /** Step by `delta` positions from the current one. */
  stepBy(delta: number): void;
  togglePlay(): void;
  setFps(fps: number): void;
  setLoop(loop: boolean): void;
}

/** The keys a player answers to, as its help tooltip lists them. */
export const KEY_HELP = [
  "Keys (click the viewer first):",
  "← / →  previous / next step",
  "Shift + ← / →  10 steps back / on",
  "Home / End  first / last step",
  "Space  play / pause",
].join("\n");

export type KeyAction = { kind: "step"; delta: number } | { kind: "seek"; to: "first" | "last" } | { kind: "toggle" };

/** What a key press on the widget means, or null for keys the widget leaves alone. */
export function keyAction(key: string, shiftKey: boolean): KeyAction | null {
  switch (key) {
    case "ArrowLeft":
      return { kind: "step", delta: shiftKey ? -10 : -1 };
    case "ArrowRight":
      return { kind: "step", delta: shiftKey ? 10 : 1 };
    case " ":
      return { kind: "toggle" };
    case "Home":
      return { kind: "seek", to: "first" };
    case "End":
      return { kind: "seek", to: "last" };
    default:
      return null;
  }
}

export class Controls {
  readonly element: HTMLDivElement;
  readonly slider: HTMLInputElement;
  /** The speed, loop and keys' help group: a widget may add its own options to it. */
  readonly options: HTMLSpanElement;
  private readonly play: HTMLButtonElement;
  private readonly fps: HTMLInputElement;
  private readonly loop: HTMLInputElement;
  private length = 0;

  constructor(
    parent: HTMLElement,
    private readonly root: HTMLElement,
    private readonly handlers: ControlHandlers,
  ) {
    // Three groups that wrap as wholes on a narrow widget: the buttons, the slider
    // (taking the room left), and the speed, loop and keys' help.
    this.element = parent.appendChild(el("div", "aw-controls"));
    const buttons = this.element.appendChild(el("span", "aw-buttons"));
    const prev = buttons.appendChild(button("aw-prev", "‹ Prev", "Previous step (←)"));
    this.play = buttons.appendChild(button("aw-play", "Play", "Play / pause (space)"));
    const next = buttons.appendChild(button("aw-next", "Next ›", "Next step (→)"));
    this.slider = this.element.appendChild(input("aw-slider", "range"));
    this.slider.min = "0";
    this.slider.step = "1";
    this.slider.setAttribute("aria-label", "Step");
    const options = (this.options = this.element.appendChild(el("span", "aw-options")));
    const fpsLabel = options.appendChild(el("label", "aw-fps-label"));
    this.fps = fpsLabel.appendChild(input("aw-fps", "number"));
    Object.assign(this.fps, { min: "1", max: "240", step: "any", title: "Playback speed (frames per second)" });
    fpsLabel.append("fps");
    const loopLabel = options.appendChild(el("label", "aw-loop-label"));
    this.loop = loopLabel.appendChild(input("aw-loop", "checkbox"));
    loopLabel.append("loop");
    const help = options.appendChild(el("span", "aw-keys-help"));
    help.textContent = "?";
    help.title = KEY_HELP;
    help.setAttribute("role", "img");
    help.setAttribute("aria-label", KEY_HELP);

    prev.addEventListener("click", () => handlers.stepBy(-1));
    next.addEventListener("click", () => handlers.stepBy(1));
    this.play.addEventListener("click", () => handlers.togglePlay());
    this.slider.addEventListener("input", () => handlers.seek(this.slider.valueAsNumber));
    this.fps.addEventListener("change", () => {
      const fps = this.fps.valueAsNumber;
      if (Number.isFinite(fps) && fps > 0) handlers.setFps(fps);
    });
    this.loop.addEventListener("change", () => handlers.setLoop(this.loop.checked));
    root.addEventListener("keydown", this.onKey);
  }

  setLength(length: number): void {
    this.length = length;
    this.slider.max = String(Math.max(0, length - 1));
    this.slider.disabled = length <= 1;
  }

  setStep(t: number): void {
    this.slider.value = String(t);
    this.slider.setAttribute("aria-valuetext", `step ${t} of ${Math.max(0, this.length - 1)}`);
  }

  setPlaying(playing: boolean): void {
    this.play.textContent = playing ? "Pause" : "Play";
  }

  setFps(fps: number): void {
    if (document.activeElement !== this.fps) this.fps.value = String(fps);
  }

  setLoop(loop: boolean): void {
    this.loop.checked = loop;
  }

  dispose(): void {
    this.root.removeEventListener("keydown", this.onKey);
  }

  private readonly onKey = (event: KeyboardEvent): void => {
    // The notebook must not see keys typed into the widget (no cell shortcuts).
    event.stopPropagation();
    const target = event.target as HTMLElement;
    // Inputs keep their native keys (the fps box, the loop checkbox, the panel cards'
    // opacity sliders and menu); only the frame slider's keys step through the episode.
    if (target.tagName === "INPUT" && target !== this.slider) return;
    // A focused button activates itself on space/enter.
    if (target.tagName === "BUTTON" && (event.key === " " || event.key === "Enter")) return;
    const action = keyAction(event.key, event.shiftKey);
    if (action === null || event.altKey || event.ctrlKey || event.metaKey) return;
    event.preventDefault();
    if (action.kind === "step") this.handlers.stepBy(action.delta);
    else if (action.kind === "toggle") this.handlers.togglePlay();
    else this.handlers.seek(action.to === "first" ? 0 : this.length - 1);
  };
}
