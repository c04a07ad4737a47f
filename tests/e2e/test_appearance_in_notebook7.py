"""The widgets in a real Notebook 7 (``jupyter notebook``) in its light and dark themes:
axe-core finds no accessibility violation in any of them, at either width. The
JupyterLab module's notebook and check, imported as they are, with this module's
``notebook`` fixture (the same cells in a Notebook 7 page)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from harness.appearance import LIGHT, set_theme
from harness.lab import Notebook, Server, opened
from tests.e2e.test_appearance_in_lab import (  # noqa: F401 (collected here, with this module's fixtures)
    CELLS,
    test_axe_finds_no_accessibility_violation_in_any_widget,
)

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def notebook(notebook7_server: Server, new_page) -> Iterator[Notebook]:
    with opened(notebook7_server, new_page(), "themes7.ipynb", CELLS) as notebook:
        try:
            yield notebook
        finally:
            set_theme(notebook, LIGHT)


def test_the_page_is_notebook_7(notebook):
    page = notebook.page.evaluate("() => [document.body.dataset.notebook, window.jupyterapp.name]")
    assert page == ["notebooks", "Jupyter Notebook"]
