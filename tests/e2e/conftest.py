"""Session-wide JupyterLab, Notebook 7, Voila and marimo servers and Chromium for the
end-to-end tests.

Each server starts when a test first asks for it, so a run that needs only one front
end pays for one."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from playwright.sync_api import Browser, Page

from harness.chromium import chromium
from harness.hosts import HostServer, MarimoServer, VoilaServer
from harness.lab import NOTEBOOK7, Server
from tests.e2e import scene


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
def browser() -> Iterator[Browser]:
    with chromium() as browser:
        yield browser


@pytest.fixture(scope="session")
def new_page(browser: Browser) -> Iterator[Callable[[], Page]]:
    context = browser.new_context(viewport={"width": 1100, "height": 1000})
    yield context.new_page
    context.close()
