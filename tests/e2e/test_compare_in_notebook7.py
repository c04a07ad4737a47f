"""CompareViewer in a real Notebook 7 (``jupyter notebook``) and Chromium: the core
specifications of the JupyterLab module, imported as they are and given this
module's notebook (the same cells, in a Notebook 7 page)."""

from __future__ import annotations

import pytest

from tests.e2e.test_compare_in_lab import (  # noqa: F401 (collected here, with this module's fixtures)
    CELLS,
    root,
    test_a_shorter_episode_holds_its_last_frame_marked_ended,
    test_step_keys_in_a_child_move_the_whole_comparison,
    test_the_shared_slider_moves_every_canvas_to_its_frame,
    views,
)

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.notebook("compare7.ipynb", CELLS, server="notebook7_server"),
]
