"""The benchmark's additions to the harness (harness/): a Chromium page with the
in-page probes of ``probes.js`` installed, and the JS heap read through CDP."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page

PROBES = Path(__file__).with_name("probes.js")
HEAP_PARTS = ("usedSize", "embedderHeapUsedSize", "backingStorageSize")


class ProbedPage:
    """A page whose probes (``window.__bench``) are installed before JupyterLab loads."""

    def __init__(self, browser: Browser) -> None:
        self.context = browser.new_context(viewport={"width": 1100, "height": 1000})
        self.context.add_init_script(path=str(PROBES))
        self.page: Page = self.context.new_page()
        self._cdp = self.context.new_cdp_session(self.page)
        self.peak_heap = 0

    def call(self, method: str, *args: Any) -> Any:
        """``window.__bench[method](...args)``, awaited."""
        return self.page.evaluate(
            "([method, args]) => window.__bench[method](...args)", [method, list(args)]
        )

    def heap(self, collect: bool = False) -> int:
        """Bytes the page's scripts hold: V8's heap, Blink's (DOM) heap and ArrayBuffer
        contents, which V8 keeps outside its heap (the viewer's frame caches live there).
        After a full garbage collection when ``collect``."""
        if collect:
            self._cdp.send("HeapProfiler.collectGarbage")
        usage = self._cdp.send("Runtime.getHeapUsage")
        used = sum(int(usage.get(k, 0)) for k in HEAP_PARTS)
        self.peak_heap = max(self.peak_heap, used)
        return used

    def close(self) -> None:
        self.context.close()
