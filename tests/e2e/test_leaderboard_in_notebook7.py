"""The leaderboard in a real Notebook 7 (``jupyter notebook``) and Chromium: the table
and Open of the JupyterLab module, imported as they are and given this module's
notebook (the same cells, in a Notebook 7 page)."""

from __future__ import annotations

import pytest

from tests.e2e.test_leaderboard_in_lab import (  # noqa: F401 (collected here, with this module's fixtures)
    CELLS,
    test_rows_are_grouped_by_env_and_ranked_within_it_by_default,
    test_ticked_runs_open_side_by_side_under_the_table,
)

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.notebook("leaderboard7.ipynb", CELLS, server="notebook7_server"),
]
