/**
 * The callbacks a view puts on its anywidget model, taken off together when the
 * view goes: a model outlives its views (an output re-rendered or closed, a cell run
 * again), and a callback left on it would keep the dead view and its work alive.
 *
 * Example:
 *   const listeners = new ModelListeners(model);
 *   listeners.on("change:step", () => show(model.get("step")));
 *   // ... when the view is disposed:
 *   listeners.dispose();
 */
import type { Model } from "./types.ts";

export class ModelListeners {
  private readonly added: [string, () => void][] = [];

  constructor(private readonly model: Model) {}

  /** Calls `callback` on each `event` of the model until `dispose`. */
  on(event: string, callback: () => void): void {
    this.model.on(event, callback);
    this.added.push([event, callback]);
  }

  /** Takes every callback added off the model. */
  dispose(): void {
    for (const [event, callback] of this.added) this.model.off(event, callback);
  }
}
