"""Session-wide JupyterLab, Notebook 7, Voila and marimo servers and Chromium for the
end-to-end tests, and the notebook each module opens in one of them.

Each server starts when a test first asks for it, so a run that needs only one front
end pays for one.

A module names its notebook with a mark, and its tests take the ``notebook`` fixture::

    pytestmark = [pytest.mark.e2e, pytest.mark.notebook("viewer.ipynb", CELLS)]

The mark's arguments are ``open_notebook``'s.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, ExitStack, contextmanager

import nbformat
import pytest
from playwright.sync_api import Browser, Page, ViewportSize  # browser: tests/conftest.py

from harness.far_link import Link, proxy
from harness.hosts import HostServer, MarimoServer, VoilaServer
from harness.lab import NOTEBOOK7, Notebook, Server, opened, through
from tests.e2e import scene

OpenNotebook = Callable[..., AbstractContextManager[Notebook]]


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    server = Server(tmp_path_factory.mktemp("jupyter"))
    yield server
    server.stop()


@pytest.fixture(scope="session")
def notebook7_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    server = Server(tmp_path_factory.mktemp("notebook7"), NOTEBOOK7)
    yield server
    server.stop()


@pytest.fixture(scope="session")
def voila_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HostServer]:
    server = VoilaServer(tmp_path_factory.mktemp("voila"), scene.voila_cells())
    yield server
    server.stop()


@pytest.fixture(scope="session")
def marimo_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HostServer]:
    server = MarimoServer(tmp_path_factory.mktemp("marimo"), scene.marimo_cells())
    yield server
    server.stop()


@pytest.fixture(scope="session")
def marimo_edit_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HostServer]:
    server = MarimoServer(tmp_path_factory.mktemp("marimo-edit"), scene.marimo_cells(), "edit")
    yield server
    server.stop()


@pytest.fixture(scope="session")
def new_page(browser: Browser) -> Iterator[Callable[[], Page]]:
    context = browser.new_context(viewport={"width": 1100, "height": 1000})
    yield context.new_page
    context.close()


@pytest.fixture(scope="module")
def open_notebook(request: pytest.FixtureRequest, new_page: Callable[[], Page]) -> OpenNotebook:
    """``with open_notebook(name, cells) as notebook``: a notebook of ``cells``, written
    as ``name``, opened in a new page and run; closed at the end of the block.

    Keywords: ``server``, the fixture of the server it opens on (``"server"``, JupyterLab,
    or ``"notebook7_server"``); ``link``, the far-link proxy's link the page reaches that
    server through (``"40ms-20mbit"``); ``viewport``, the page's size once it is open;
    ``run=False``, to open a notebook already run (``cells`` a NotebookNode) as it is.
    """

    @contextmanager
    def open_notebook(
        name: str,
        cells: Sequence[str] | nbformat.NotebookNode,
        *,
        server: str = "server",
        link: str | None = None,
        viewport: ViewportSize | None = None,
        run: bool = True,
    ) -> Iterator[Notebook]:
        lab: Server = request.getfixturevalue(server)
        with ExitStack() as stack:
            if link is not None:
                lab = through(lab, stack.enter_context(proxy(Link.parse(link), lab.port)))
            notebook = stack.enter_context(opened(lab, new_page(), name, cells, run))
            if viewport is not None:
                notebook.page.set_viewport_size(viewport)
            yield notebook

    return open_notebook


@pytest.fixture(scope="module")
def notebook(request: pytest.FixtureRequest, open_notebook: OpenNotebook) -> Iterator[Notebook]:
    """The notebook the module's ``notebook`` mark describes, open for all its tests."""
    mark = request.node.get_closest_marker("notebook")
    if mark is None:
        pytest.fail(f"{request.node.name} has no pytest.mark.notebook(name, cells)")
    with open_notebook(*mark.args, **mark.kwargs) as notebook:
        yield notebook
