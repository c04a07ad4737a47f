"""Reading how a widget looks in JupyterLab: switching its theme, the colours of a
canvas's text pixels, a canvas's pixel size against its shown size."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Locator
from views import WatchedPage

LIGHT, DARK = "JupyterLab Light", "JupyterLab Dark"


def set_theme(page: WatchedPage, theme: str) -> None:
    """Switches JupyterLab's theme and waits until the page says it is in place."""
    page.page.evaluate(
        """async (theme) =>
            await window.jupyterapp.commands.execute("apputils:change-theme", {theme})""",
        theme,
    )
    page.wait_for(
        "(theme) => document.body.dataset.jpThemeName === theme",
        theme,
        what=f"the theme {theme!r} to be applied",
    )


def parse_rgb(css: str) -> tuple[int, int, int]:
    """The r, g, b of a computed ``rgb()``/``rgba()`` colour."""
    inside = css[css.index("(") + 1 : css.index(")")]
    parts = inside.replace("/", " ").replace(",", " ").split()
    r, g, b = (round(float(part)) for part in parts[:3])
    return r, g, b


def text_pixels(bars: Locator) -> dict[str, Any]:
    """The bars canvas's text colour as painted: the RGB of every well-covered pixel
    left of the bars (the labels) and right of them (the values), and the card's CSS
    text colour. Bars start at 30% of the width and end at 82% (js/panels/bars.ts)."""
    return dict(
        bars.evaluate(
            """(canvas) => {
            const {width, height} = canvas;
            const pixels = canvas.getContext("2d").getImageData(0, 0, width, height).data;
            const left = Math.round(width * 0.3) - 2, right = Math.round(width * 0.82) + 2;
            const colours = {};
            for (let y = 0; y < height; y++) {
                for (let x = 0; x < width; x++) {
                    if (x >= left && x <= right) continue;
                    const i = 4 * (y * width + x);
                    if (pixels[i + 3] < 160) continue;
                    const key = `${pixels[i]},${pixels[i + 1]},${pixels[i + 2]}`;
                    colours[key] = (colours[key] ?? 0) + 1;
                }
            }
            return {colours, css: getComputedStyle(canvas).color, theme: canvas.dataset.theme};
        }"""
        )
    )


def canvas_size(canvas: Locator) -> dict[str, float]:
    """A canvas's pixel size, its shown (CSS) size and the page's device pixel ratio."""
    return dict(
        canvas.evaluate(
            """(canvas) => {
            const rect = canvas.getBoundingClientRect();
            return {width: canvas.width, height: canvas.height, shownWidth: rect.width,
                    shownHeight: rect.height, ratio: window.devicePixelRatio};
        }"""
        )
    )
