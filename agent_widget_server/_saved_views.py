"""A notebook saved without its widget state keeps each agent-widget output's saved
copy, not a widget reference that can no longer be drawn.

An agent-widget output holds a widget view (a reference to a model in the kernel)
beside its saved copy, a picture and a sentence (``agent_widget.viewer._saved_copy``).
JupyterLab and Notebook 7 save notebooks without widget state by default; opened
again, trusted, their widget renderer comes first and finds no model: the output read
"Error displaying widget: model not found" where the picture was. So, as a notebook is
saved through the server, each agent-widget output whose model is not in the saved
widget state loses its widget view, and shows its saved copy wherever it is opened.
The kernel's widgets on screen are untouched (the browser keeps its own copy of the
notebook), and running the cell again brings the widget back.
"""

from __future__ import annotations

from typing import Any

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
MARK = "agent_widget"  # an output's metadata key: the output has a saved copy


def without_lost_views(model: dict[str, Any], **_: Any) -> None:
    """A jupyter_server pre-save hook: drop the widget view of each agent-widget output
    of the notebook ``model`` whose model the notebook's saved widget state lacks."""
    if model.get("type") != "notebook" or not isinstance(model.get("content"), dict):
        return
    notebook = model["content"]
    saved = notebook.get("metadata", {}).get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    for cell in notebook.get("cells", []):
        for output in cell.get("outputs", []):
            data, metadata = output.get("data", {}), output.get("metadata", {})
            view = data.get(WIDGET_VIEW)
            if isinstance(view, dict) and MARK in metadata and view.get("model_id") not in saved:
                del data[WIDGET_VIEW]
