/**
 * Whether a view shows a saved copy: a model restored from a notebook's saved widget
 * state with no kernel behind it (JupyterLab or Notebook 7 reopening a notebook without
 * running it, an nbconvert page, nbviewer), or one whose kernel has gone. Its frames
 * come from the state, but nothing will ever answer a request: the view says so
 * instead of waiting for a kernel that may be busy.
 *
 * How it tells: ipywidgets gives such a model no comm (`comm_live` false) and marks
 * the element of each of its views `jupyter-widgets-disconnected` before the view
 * renders, and again whenever the comm comes or goes ("comm_live_update"). anywidget
 * hands the render function a proxy of the model without `comm_live`, but renders
 * into the view's own element, which carries the class; a child widget (a
 * comparison's viewers) gets the model itself from the widget manager, whose
 * `comm_live` tells. Hosts without ipywidgets' models (marimo, an exported page)
 * have neither, and count as live.
 */
import type { Model } from "./types.ts";

export const DISCONNECTED_CLASS = "jupyter-widgets-disconnected";
export const COMM_LIVE_EVENT = "comm_live_update";

/** Whether `model`, drawn in `element` (attached to its view's element, or not yet), has no kernel. */
export function isSavedCopy(model: Model, element: Element): boolean {
  const live = (model as Model & { comm_live?: unknown }).comm_live;
  return live === false || element.closest(`.${DISCONNECTED_CLASS}`) !== null;
}

/** What a panel card says while it has no result to show. */
export const SAVED_COPY_CARD = "A saved copy: a running kernel computes this panel. Run the cell to see it.";
