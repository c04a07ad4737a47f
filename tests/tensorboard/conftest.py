"""Fixtures of the TensorBoard tab's browser tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page


@pytest.fixture(scope="module")
def page(browser: Browser) -> Iterator[Page]:
    """A page of the run's one browser (tests/conftest.py), closed after the module."""
    page = browser.new_page(viewport={"width": 1400, "height": 1100})
    yield page
    page.close()
