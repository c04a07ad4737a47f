/**
 * Widgets shown inside another widget (the comparison's viewers, the leaderboard's
 * opened viewer): a trait holding widget references ("IPY_MODEL_<id>") is resolved
 * to models and views through the notebook's widget manager, which anywidget hands
 * to each model as `widget_manager`.
 */
import type { Model } from "./types.ts";

/** A view of a child widget: its element to place, and `remove()` to dispose of it. */
export interface ChildView {
  el: HTMLElement;
  remove(): void;
}

export interface WidgetManager {
  get_model(id: string): Promise<Model>;
  create_view(model: Model, options?: object): Promise<ChildView>;
}

function manager(model: Model): WidgetManager {
  return (model as Model & { widget_manager: WidgetManager }).widget_manager;
}

/** The model a widget reference names. */
export function childModel(model: Model, ref: string): Promise<Model> {
  return manager(model).get_model(ref.replace(/^IPY_MODEL_/, ""));
}

/** A new view of `child`, rendered by the child's own front end. */
export function childView(model: Model, child: Model): Promise<ChildView> {
  return manager(model).create_view(child);
}
