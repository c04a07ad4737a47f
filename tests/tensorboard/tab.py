"""The Agent tab opened in Chromium, for the browser tests of the tab."""

from __future__ import annotations

from playwright.sync_api import Frame, Page

from harness.views import WatchedPage


def agent_tab(page: Page, url: str, rows: int = 4) -> tuple[WatchedPage, Frame]:
    """TensorBoard opened at ``url`` (its Agent tab), once the tab's table lists its
    ``rows`` episodes: the page, watched in the tab's iframe, and that frame."""
    page.goto("about:blank")  # a fresh load, even where only the hash differs
    page.goto(url)
    iframe = page.locator("iframe").element_handle(timeout=60_000)
    frame = iframe.content_frame()
    assert frame is not None
    watched = WatchedPage(page, frame)
    watched.wait_for(
        "(rows) => document.querySelectorAll('table.aw-tb-table tbody tr').length === rows",
        rows,
        timeout=60,
        what=f"the table's {rows} episodes",
    )
    return watched, frame
