"""EpisodeViewer in a real Notebook 7 (``jupyter notebook``) and Chromium.

The core specifications of the JupyterLab tests run here again, imported as they
are: this module's notebook and ``view`` fixture give them the same viewer (the
JupyterLab module's first cell) in a Notebook 7 page. Each starts by moving the view
where it needs it, so their order (the import's) does not matter; the first-frame
test, true of a fresh view only, stays in JupyterLab. A bars panel checks that cards
come too.
"""

from __future__ import annotations

import pytest

from harness.lab import Notebook, View
from tests.e2e.test_viewer_in_lab import (  # noqa: F401 (collected here, with this module's fixtures)
    CELLS,
    go_to,
    test_arrow_keys_home_and_end_step_through_the_episode,
    test_play_then_pause_stops_on_an_exact_frame,
    test_setting_step_in_python_moves_the_view,
    test_sliding_paints_the_frame_and_tells_python,
    test_the_readout_names_the_action,
)

PANEL = """import numpy as np
viewer.add_panel("q", lambda step: np.arange(4.0) + step.t % 3)"""
VIEWER = 2  # cell index

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.notebook("viewer7.ipynb", [CELLS[0], PANEL, "viewer"], server="notebook7_server"),
]


@pytest.fixture
def view(notebook: Notebook) -> View:
    return notebook.view(VIEWER)


def test_the_page_is_notebook_7(notebook):
    page = notebook.page.evaluate("() => [document.body.dataset.notebook, window.jupyterapp.name]")
    assert page == ["notebooks", "Jupyter Notebook"]


def test_a_bars_card_shows_the_current_step_with_the_taken_action_highlighted(notebook, view):
    for t in (5, 166):
        go_to(notebook, view, t)
        card = view.wait_card("q", t, "bars")
        assert card["highlight"] == str(t % 4)
