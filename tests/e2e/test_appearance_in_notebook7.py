"""The widgets in a real Notebook 7 (``jupyter notebook``) in its light and dark themes:
axe-core finds no accessibility violation in any of them, at either width. The
JupyterLab module's cells, check and light-theme ``notebook`` fixture, imported as
they are, with this module's notebook (the same cells in a Notebook 7 page)."""

from __future__ import annotations

import pytest

from tests.e2e.test_appearance_in_lab import (  # noqa: F401 (collected here, with this module's fixtures)
    CELLS,
    notebook,
    test_axe_finds_no_accessibility_violation_in_any_widget,
)

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.notebook("themes7.ipynb", CELLS, server="notebook7_server"),
]


def test_the_page_is_notebook_7(notebook):  # noqa: F811 (the imported fixture)
    page = notebook.page.evaluate("() => [document.body.dataset.notebook, window.jupyterapp.name]")
    assert page == ["notebooks", "Jupyter Notebook"]
