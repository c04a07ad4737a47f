"""A notebook exported by nbconvert to HTML (executed elsewhere, widget state saved)
shows the viewer's frames in Chromium with no kernel at all.

nbconvert's page loads require.js and the widget manager from CDNs and anywidget's
front end from beside the page (then a CDN): here the first two come from their npm
packages (through the test's route) and anywidget's from its Python package, beside
the page on a local HTTP server. Every other request is refused. The widget wins over
the output's saved picture, and its cards say it is a saved copy.
"""

from __future__ import annotations

import contextlib
import functools
import shutil
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import anywidget
import nbclient
import pytest
from nbconvert import HTMLExporter
from playwright.sync_api import Page, Route

from harness.lab import View, new_notebook, rgb_sha256
from tests.e2e.episodes import synthetic_frames
from tests.e2e.test_page_in_browser import OpenedPage
from tests.e2e.test_saved_state import says_saved_copy

pytestmark = pytest.mark.e2e

E2E = Path(__file__).parent
NODE_MODULES = E2E.parent.parent / "node_modules"
N = 300
FRAMES = synthetic_frames(N)
# What nbconvert's page asks the CDNs for, served from the npm packages instead.
FROM_NPM = {
    "require.min.js": NODE_MODULES / "requirejs" / "require.js",
    "embed-amd.js": NODE_MODULES / "@jupyter-widgets" / "html-manager" / "dist" / "embed-amd.js",
}
CELLS = [
    f"""import sys
sys.path.insert(0, {str(E2E)!r})
from episodes import synthetic_episode
from agent_widget import EpisodeViewer""",
    f"""viewer = EpisodeViewer(synthetic_episode({N}))
viewer.add_panel("notes", lambda step: f"t = {{step.t}}")
viewer""",
]


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Iterator[str]:
    """The exported page and anywidget's front end (its AMD build), served on 127.0.0.1."""
    folder = tmp_path_factory.mktemp("nbconvert")
    executed = new_notebook(CELLS)
    nbclient.NotebookClient(executed, timeout=120, store_widget_state=True).execute()
    html, _ = HTMLExporter().from_notebook_node(executed)
    (folder / "episode.html").write_text(html)
    shutil.copy(
        Path(anywidget.__file__).parent / "nbextension" / "index.js", folder / "anywidget.js"
    )
    with serve(folder) as url:
        yield f"{url}/episode.html"


@contextlib.contextmanager
def serve(folder: Path) -> Iterator[str]:
    """``folder`` served over HTTP on 127.0.0.1 while in the block: its URL."""
    handler = functools.partial(SimpleHTTPRequestHandler, directory=str(folder))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()


class ExportedPage(OpenedPage):
    """The export opened from the local server; CDN scripts from npm, nothing else."""

    def __init__(self, page: Page, url: str) -> None:
        self.local = url.rsplit("/", 1)[0]
        super().__init__(page, url)

    def _route(self, route: Route) -> None:
        url = route.request.url
        name = url.rsplit("/", 1)[-1]
        if url.startswith(self.local):
            route.continue_()
        elif name in FROM_NPM:
            route.fulfill(path=FROM_NPM[name], content_type="text/javascript")
        else:
            self.refused.append(url)
            route.abort()


def test_an_nbconvert_export_shows_the_saved_frames(new_page, site):
    page = new_page()
    try:
        exported = ExportedPage(page, site)
        view = View(exported, page.locator("div.agent-widget"))  # type: ignore[arg-type]
        view.wait_painted(0, timeout=30)
        assert view.canvas()["sha256"] == rgb_sha256(FRAMES[0])
        view.press("ArrowRight")
        view.wait_painted(1)
        assert view.canvas()["sha256"] == rgb_sha256(FRAMES[1])
        saved = int(view.root.get_attribute("data-saved-positions") or 0)
        assert 16 <= saved < N
        view.slide_to(saved - 1)
        view.wait_painted(saved - 1)
        assert view.canvas()["sha256"] == rgb_sha256(FRAMES[saved - 1])
        says_saved_copy(view)
        assert page.locator(".jp-OutputArea-output img").count() == 0
    finally:
        page.close()
