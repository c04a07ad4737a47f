"""Session-wide JupyterLab server and Chromium for the end-to-end tests."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from lab import CHROMIUM, CHROMIUM_ARGS, Server
from playwright.sync_api import Browser, Page, sync_playwright


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    server = Server(tmp_path_factory.mktemp("jupyter"))
    yield server
    server.stop()


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture(scope="session")
def new_page(browser: Browser) -> Iterator[Callable[[], Page]]:
    context = browser.new_context(viewport={"width": 1100, "height": 1000})
    yield context.new_page
    context.close()
