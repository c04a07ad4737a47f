"""What every front end's browser test shares: a page whose console is kept (so a
failed wait shows it), and one displayed EpisodeViewer found by the DOM contract's
class names, whatever host (JupyterLab, Notebook 7, Voila, marimo) shows it."""

from __future__ import annotations

import time
from typing import Any

from playwright.sync_api import ElementHandle, Frame, Locator, Page


class WatchedPage:
    """A browser page with its console messages kept, and waits that fail showing them:
    waits in ``frame`` when given (a TensorBoard plugin's iframe), else in the page."""

    def __init__(self, page: Page, frame: Frame | None = None) -> None:
        self.page = page
        self.scope: Page | Frame = page if frame is None else frame
        self.console: list[str] = []
        page.on("console", lambda m: self.console.append(f"{m.type}: {m.text}"))
        page.on("pageerror", lambda e: self.console.append(f"pageerror: {e}"))

    def wait_for(
        self, script: str, arg: Any = None, *, timeout: float = 30, what: str = "a condition"
    ) -> Any:
        """Wait until ``script(arg)`` is truthy in the page; fail with the page's console."""
        try:
            return self.scope.wait_for_function(
                script, arg=arg, timeout=timeout * 1000
            ).json_value()
        except Exception as error:
            raise AssertionError(
                f"timed out waiting for {what}: {error}\n{self.console_tail()}"
            ) from None

    def wait_until(self, predicate: Any, *, timeout: float = 30, what: str = "a condition") -> Any:
        """Poll a Python-side ``predicate`` until it returns something truthy."""
        deadline = time.monotonic() + timeout
        while True:
            value = predicate()
            if value or time.monotonic() > deadline:
                break
            time.sleep(0.1)  # deliberate: the pause between two looks
        assert value, f"timed out waiting for {what}\n{self.console_tail()}"
        return value

    def animation_frames(self, count: int) -> None:
        """Wait until the page has drawn ``count`` more frames: to see that something
        driven by animation frames (playback) has stopped, in the page's own time, which a
        loaded machine slows along with the page."""
        self.page.evaluate(
            """(count) => new Promise((done) => {
                const next = (left) => left ? requestAnimationFrame(() => next(left - 1)) : done();
                next(count);
            })""",
            count,
        )

    def console_tail(self, lines: int = 30) -> str:
        return "browser console:\n" + "\n".join(self.console[-lines:])


class View:
    """One displayed EpisodeViewer, found by the DOM contract's class names."""

    def __init__(self, notebook: WatchedPage, root: Locator) -> None:
        self.notebook, self.root = notebook, root

    @property
    def handle(self) -> ElementHandle:
        handle = self.root.element_handle()
        assert handle is not None
        return handle

    def painted_step(self) -> int | None:
        value = self.root.get_attribute("data-painted-step")
        return None if value is None else int(value)

    def wait_painted(self, t: int, timeout: float = 30) -> None:
        self.notebook.wait_for(
            "([el, t]) => el.getAttribute('data-painted-step') === String(t)",
            [self.handle, t],
            timeout=timeout,
            what=f"step {t} to be painted (painted: {self.painted_step()})",
        )

    def canvas(self) -> dict[str, Any]:
        """The painted step and the canvas's size, opacity and SHA-256 of its RGB bytes,
        read in one go so playback cannot change the canvas in between."""
        return self.root.evaluate(
            """async (root) => {
                const step = root.getAttribute("data-painted-step");
                const canvas = root.querySelector("canvas.aw-frame");
                const {width, height} = canvas;
                const rgba = canvas.getContext("2d").getImageData(0, 0, width, height).data;
                const rgb = new Uint8Array(width * height * 3);
                let opaque = true;
                for (let i = 0, j = 0; i < rgba.length; i += 4, j += 3) {
                    rgb[j] = rgba[i]; rgb[j + 1] = rgba[i + 1]; rgb[j + 2] = rgba[i + 2];
                    opaque &&= rgba[i + 3] === 255;
                }
                const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", rgb));
                const sha256 = Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
                return {step: step === null ? null : Number(step), width, height, opaque, sha256};
            }"""
        )

    def card(self, name: str) -> Locator:
        """The card of panel ``name``."""
        return self.root.locator(f'div.aw-card[data-name="{name}"]')

    def wait_card(self, name: str, t: int, kind: str) -> dict[str, Any]:
        """Waits until card ``name`` shows the current step ``t`` as ``kind``; its data
        attributes."""
        self.notebook.wait_for(
            """([el, t, kind]) => el.dataset.step === String(t) && el.dataset.current === "true"
                && el.dataset.kind === kind""",
            [self.card(name).element_handle(), t, kind],
            what=f"card {name!r} to show step {t} as {kind}",
        )
        return dict(self.card(name).evaluate("(el) => ({...el.dataset})"))

    def slider(self) -> Locator:
        return self.root.locator("input.aw-slider[type=range]")

    def slide_to(self, t: int) -> None:
        """Move the slider as a user would: set its value and fire ``input``."""
        self.slider().evaluate(
            """(el, t) => {
                el.value = String(t);
                el.dispatchEvent(new Event("input", {bubbles: true}));
            }""",
            t,
        )

    def press(self, *keys: str) -> None:
        self.root.focus()
        for key in keys:
            self.root.press(key)

    def readout(self) -> str:
        """The readout's rows as ``key: value`` lines, a tree (the info) as the JSON its
        summary previews; its text when it has no rows ("empty episode")."""
        return str(
            self.root.locator(".aw-readout").evaluate(
                """(readout) => {
                const rows = [...readout.querySelectorAll(":scope > dl > .aw-readout-row")];
                if (rows.length === 0) return readout.textContent;
                return rows.map((row) => {
                    const value = row.querySelector(":scope > dd");
                    const tree = value.querySelector(":scope > details > summary");
                    const key = row.querySelector(":scope > dt").textContent;
                    return `${key}: ${(tree ?? value).textContent}`;
                }).join("\\n");
            }"""
            )
        )
