"""Reading how a widget looks in JupyterLab: switching its theme, the theme's colours
and those an element paints, the colours of a canvas's text pixels, a canvas's pixel
size against its shown size, a cell narrowed to a given width and what overflows it."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any, cast

from PIL import Image
from playwright.sync_api import Locator, ViewportSize

from harness.views import WatchedPage

RGB = tuple[int, int, int]

LIGHT, DARK = "JupyterLab Light", "JupyterLab Dark"
AXE = Path(__file__).parents[1] / "node_modules" / "axe-core" / "axe.min.js"


def set_theme(page: WatchedPage, theme: str) -> None:
    """Switches JupyterLab's theme and waits until the page says it is in place."""
    page.page.evaluate(
        """async (theme) =>
            await window.jupyterapp.commands.execute("apputils:change-theme", {theme})""",
        theme,
    )
    # JupyterLab hides its shell and shows a splash while it swaps the stylesheets.
    page.wait_for(
        """(theme) => document.body.dataset.jpThemeName === theme
            && !document.querySelector("#jupyterlab-splash")
            && !document.querySelector(".jp-LabShell.lm-mod-hidden")""",
        theme,
        what=f"the theme {theme!r} to be applied",
    )


def parse_rgb(css: str) -> tuple[int, int, int]:
    """The r, g, b of a computed ``rgb()``/``rgba()`` colour."""
    inside = css[css.index("(") + 1 : css.index(")")]
    parts = inside.replace("/", " ").replace(",", " ").split()
    r, g, b = (round(float(part)) for part in parts[:3])
    return r, g, b


def theme_colours(page: WatchedPage) -> dict[str, tuple[int, int, int]]:
    """The r, g, b of JupyterLab's layout colours 1-3 and text colour 1 in the theme shown."""
    colours = page.page.evaluate(
        """() => {
            const probe = document.body.appendChild(document.createElement("div"));
            const colour = (name) => {
                probe.style.color = `var(${name})`;
                return getComputedStyle(probe).color;
            };
            const names = ["--jp-layout-color1", "--jp-layout-color2", "--jp-layout-color3",
                "--jp-ui-font-color1"];
            const colours = Object.fromEntries(names.map((name) => [name, colour(name)]));
            probe.remove();
            return colours;
        }"""
    )
    return {name: parse_rgb(css) for name, css in colours.items()}


def colours_of(element: Locator) -> dict[tuple[int, int, int], int]:
    """The colours ``element`` paints on the page (its screenshot), each with its count
    of pixels."""
    image = Image.open(io.BytesIO(element.screenshot())).convert("RGB")
    counted = image.getcolors(image.width * image.height) or []  # RGB: (count, (r, g, b))
    return {cast(RGB, colour): count for count, colour in counted}


def most_common_colour(element: Locator) -> tuple[int, int, int]:
    """The colour of most of the pixels ``element`` paints: its background."""
    colours = colours_of(element)
    return max(colours, key=lambda colour: colours[colour])


def near(a: tuple[int, ...], b: tuple[int, ...], within: int = 3) -> bool:
    """Whether colours ``a`` and ``b`` differ by at most ``within`` in each channel."""
    return all(abs(x - y) <= within for x, y in zip(a, b, strict=True))


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


def set_cell_width(page: WatchedPage, element: Locator, width: int) -> None:
    """Resizes the page so that the output area holding ``element`` is ``width`` px
    wide. A notebook's cells follow the window's width, less its side bars and the
    prompt, by parts (JupyterLab narrows its side bars below some width): each step
    resizes by what is missing and waits until JupyterLab has laid the cell out anew."""
    area = "(el) => Math.round(el.closest('.jp-OutputArea-output').getBoundingClientRect().width)"
    for _ in range(4):
        shown = int(element.evaluate(area))
        if shown == width:
            return
        viewport = page.page.viewport_size
        assert viewport is not None
        grown = ViewportSize(width=viewport["width"] + width - shown, height=viewport["height"])
        page.page.set_viewport_size(grown)
        page.wait_for(
            f"([el, shown]) => ({area})(el) !== shown",
            [element.element_handle(), shown],
            what=f"the cell to be laid out again at a window {grown['width']} px wide",
        )
    raise AssertionError(f"the cell is {element.evaluate(area)} px wide, not {width}")


def horizontal_overflow(element: Locator) -> dict[str, float]:
    """How ``element`` fits its output area across: its own scroll and client widths
    (what its children push past its edge), its width and the output area's."""
    return dict(
        element.evaluate(
            """(el) => ({
            scrollWidth: el.scrollWidth,
            clientWidth: el.clientWidth,
            width: el.getBoundingClientRect().width,
            cell: el.closest(".jp-OutputArea-output").getBoundingClientRect().width,
        })"""
        )
    )


def broken_words(element: Locator, selector: str) -> list[str]:
    """The words of the text in ``element``'s ``selector`` parts (shown ones) that are
    split across lines: each word's rectangles, one per line it is on."""
    return list(
        element.evaluate(
            """(root, selector) => {
            const broken = [];
            for (const part of root.querySelectorAll(selector)) {
                if (part.getClientRects().length === 0) continue;  // not shown
                const walker = document.createTreeWalker(part, NodeFilter.SHOW_TEXT);
                for (let node = walker.nextNode(); node; node = walker.nextNode()) {
                    for (const match of node.data.matchAll(/\\S+/g)) {
                        const range = document.createRange();
                        range.setStart(node, match.index);
                        range.setEnd(node, match.index + match[0].length);
                        const lines = [...range.getClientRects()].map((r) => Math.round(r.top));
                        if (new Set(lines).size > 1) broken.push(match[0]);
                    }
                }
            }
            return broken;
        }""",
            selector,
        )
    )


def canvas_names(element: Locator) -> list[dict[str, str | None]]:
    """Each canvas in ``element``: its class, role and aria-label. A canvas is a picture
    to a screen reader only with ``role="img"`` and a name (axe does not ask for either
    on a bare canvas). Canvases hidden from screen readers (``aria-hidden``: a part of
    a picture another element names, as the training map's letters) are left out."""
    return list(
        element.locator("canvas:not([aria-hidden='true'])").evaluate_all(
            """(canvases) => canvases.map((c) => ({
            class: c.className, role: c.getAttribute("role"), label: c.getAttribute("aria-label"),
        }))"""
        )
    )


def axe_violations(element: Locator) -> list[str]:
    """What axe-core (injected from node_modules) finds wrong in ``element``: one line
    per violation and element, with axe's rule, impact and summary. Any page will do
    (a notebook, an exported page): axe goes in as an inline script.

    JupyterLab's body is 0 px tall with ``overflow: hidden`` (its shell is positioned
    absolutely), which axe takes for a clip hiding all text, so that it checks no text
    contrast at all; the body gets the window's height while axe runs. Only what is
    scrolled into view is checked, so the element is scrolled to first. An axe that
    checked no text's contrast fails, rather than passing for having seen nothing."""
    if not element.page.evaluate("() => typeof window.axe === 'object'"):
        element.page.add_script_tag(path=str(AXE))
    result = element.evaluate(
        """async (root) => {
            root.scrollIntoView({block: "start"});
            const height = document.body.style.height;
            document.body.style.height = "100vh";
            try {
                const results = await axe.run(root);
                const contrast = results.passes.find((r) => r.id === "color-contrast");
                const overlapped = results.incomplete
                    .filter((r) => r.id === "color-contrast")
                    .flatMap((r) => r.nodes)
                    .filter((n) => n.any.some((a) => /overlapped/.test(a.message)));
                return {
                    violations: results.violations.flatMap((v) => v.nodes.map((n) =>
                        `${v.id} (${v.impact}): ${n.target.join(" ")}: ${n.failureSummary}`)),
                    contrastChecked: contrast ? contrast.nodes.length : 0,
                    overlapped: overlapped.map((n) => n.target.join(" ")),
                };
            } finally {
                document.body.style.height = height;
            }
        }"""
    )
    assert result["contrastChecked"] > 0, "axe checked no text's contrast"
    assert not result["overlapped"], f"axe could not see behind: {result['overlapped']}"
    return list(result["violations"])
