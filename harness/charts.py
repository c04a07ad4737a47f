"""Reading a chart's scales in a browser: its axes' tick labels (DOM text beside the
canvas, js/shared/chart-frame.ts), how tall the bars of a colour are painted, and the
values the hover box shows under the pointer (js/shared/hover.ts)."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Locator

from harness.views import WatchedPage


def axis_labels(chart: Locator) -> dict[str, list[str]]:
    """The tick labels of a chart (an ``.aw-chart`` element), by axis: ``left``,
    ``right`` (value axes, top to bottom) and ``steps`` (left to right), as shown."""
    return dict(
        chart.evaluate(
            """(chart) => {
            const texts = (axis) => [...chart.querySelectorAll(`.aw-axis-${axis} .aw-axis-tick`)]
                .map((tick) => [tick.getBoundingClientRect(), tick.textContent])
                .filter(([box]) => box.width > 0)
                .sort(([a], [b]) => (axis === "steps" ? a.left - b.left : a.top - b.top))
                .map(([, text]) => text);
            return {left: texts("left"), right: texts("right"), steps: texts("steps")};
        }"""
        )
    )


def chart_of(canvas: Locator) -> Locator:
    """The ``.aw-chart`` framing a chart's canvas."""
    return canvas.locator("xpath=ancestor::div[contains(@class, 'aw-chart ')][1]")


def hover(page: WatchedPage, canvas: Locator, x: float, what: str) -> dict[str, Any]:
    """Moves the pointer over ``canvas`` at ``x`` (a fraction of its width, half its
    height) and reads the hover box once its heading is ``what``: its rows (each a
    series' name and values as shown), the rule's x and the pointer (CSS pixels from the
    canvas's left), and whether the box stays in the chart and off the pointer."""
    box = canvas.bounding_box()
    assert box is not None
    pointer = {"x": box["x"] + x * box["width"], "y": box["y"] + box["height"] / 2}
    page.page.mouse.move(pointer["x"], pointer["y"])
    chart = chart_of(canvas)
    page.wait_for(
        """([chart, heading]) => {
            const box = chart.querySelector(".aw-hover");
            return !box.hidden && box.querySelector(".aw-hover-heading").textContent === heading;
        }""",
        [chart.element_handle(), what],
        what=f"the hover box to show {what!r}",
    )
    return dict(
        chart.evaluate(
            """(chart, pointer) => {
            const box = chart.querySelector(".aw-hover");
            const rows = [];
            for (const cell of box.querySelector(".aw-hover-table").children) {
                if (cell.classList.contains("aw-hover-swatch")) rows.push([]);
                else if (rows.length > 0) rows.at(-1).push(cell.textContent);
            }
            const b = box.getBoundingClientRect();
            const c = chart.getBoundingClientRect();
            const canvas = chart.querySelector("canvas").getBoundingClientRect();
            const rule = chart.querySelector(".aw-hover-rule").getBoundingClientRect();
            return {
                rows,
                rule: rule.left - canvas.left,
                pointer: pointer.x - canvas.left,
                inside: b.left >= c.left && b.right <= c.right
                    && b.top >= c.top && b.bottom <= c.bottom,
                covers: pointer.x >= b.left && pointer.x <= b.right
                    && pointer.y >= b.top && pointer.y <= b.bottom,
            };
        }""",
            pointer,
        )
    )


def hover_hidden(chart: Locator) -> bool:
    """Whether the hover box and rule of ``chart`` (an ``.aw-chart``) are gone."""
    return bool(
        chart.evaluate(
            """(chart) => chart.querySelector(".aw-hover").hidden
                && chart.querySelector(".aw-hover-rule").hidden"""
        )
    )


def painted_rows(canvas: Locator, colour: str) -> dict[str, Any]:
    """Where a line of ``colour`` (``#rrggbb``, each channel within 40, alpha >= 100) is
    painted on ``canvas``: ``rows[x]``, the rows holding it in device-pixel column x; the
    device pixel ratio; and the left value axis's ``ticks`` as (value, device y)."""
    return dict(
        canvas.evaluate(
            """(canvas, colour) => {
            const rgb = [1, 3, 5].map((i) => parseInt(colour.slice(i, i + 2), 16));
            const {width, height} = canvas;
            const ratio = width / canvas.getBoundingClientRect().width;
            const data = canvas.getContext("2d").getImageData(0, 0, width, height).data;
            const rows = [];
            for (let x = 0; x < width; x++) {
                rows.push([]);
                for (let y = 0; y < height; y++) {
                    const i = 4 * (y * width + x);
                    const near = rgb.every((v, k) => Math.abs(data[i + k] - v) <= 40);
                    if (near && data[i + 3] >= 100) rows[x].push(y);
                }
            }
            const chart = canvas.closest(".aw-chart");
            const ticks = [...chart.querySelectorAll(".aw-axis-left .aw-axis-tick")]
                .map((t) => [Number(t.textContent), parseFloat(t.style.top) * ratio]);
            return {rows, ratio, ticks};
        }""",
            colour,
        )
    )


def tallest_run(
    canvas: Locator, colour: str, within: int = 3, *, min_alpha: int = 251, max_alpha: int = 255
) -> dict[str, Any]:
    """The tallest vertical run of opaque pixels of ``colour`` (``#rrggbb``, each channel
    within ``within``) in any column of ``canvas``, in CSS pixels, and how many columns
    hold such a pixel: how tall the bars of that colour are painted. ``min_alpha`` lower
    counts a thin line's antialiased pixels too (half covered: alpha ~128); ``min_alpha``
    and ``max_alpha`` around a faint fill's opacity count that fill alone."""
    return dict(
        canvas.evaluate(
            """(canvas, [colour, within, minAlpha, maxAlpha]) => {
            const rgb = [1, 3, 5].map((i) => parseInt(colour.slice(i, i + 2), 16));
            const {width, height} = canvas;
            const data = canvas.getContext("2d").getImageData(0, 0, width, height).data;
            let tallest = 0, columns = 0;
            for (let x = 0; x < width; x++) {
                let run = 0, any = false;
                for (let y = 0; y < height; y++) {
                    const i = 4 * (y * width + x);
                    const near = data[i + 3] >= minAlpha && data[i + 3] <= maxAlpha
                        && rgb.every((v, k) => Math.abs(data[i + k] - v) <= within);
                    run = near ? run + 1 : 0;
                    any ||= near;
                    tallest = Math.max(tallest, run);
                }
                columns += any ? 1 : 0;
            }
            const ratio = width / canvas.getBoundingClientRect().width;
            return {tallest: tallest / ratio, columns};
        }""",
            [colour, within, min_alpha, max_alpha],
        )
    )


def band_axes(chart: Locator) -> dict[str, list[tuple[str, float]]]:
    """The left axis of a timeline (an ``.aw-chart``) band by band: ``""`` the main band's
    labels, then each band's, under its name (its title over the plot), as (label, CSS y
    from the plot's top) from top to bottom."""
    return {
        name: [(label, y) for label, y in ticks]
        for name, ticks in chart.evaluate(
            """(chart) => {
            const titles = [...chart.querySelectorAll(".aw-band-title")]
                .map((t) => [t.textContent, parseFloat(t.style.top)]);
            const bands = {"": []};
            for (const [name] of titles) bands[name] = [];
            for (const tick of chart.querySelectorAll(".aw-axis-left .aw-axis-tick")) {
                const y = parseFloat(tick.style.top);
                const above = titles.filter(([, top]) => top < y);
                bands[above.length ? above[above.length - 1][0] : ""].push([tick.textContent, y]);
            }
            for (const ticks of Object.values(bands)) ticks.sort((a, b) => a[1] - b[1]);
            return bands;
        }"""
        ).items()
    }


def hover_at(page: WatchedPage, canvas: Locator, fraction: float, y: float = 10) -> dict[str, Any]:
    """Moves the pointer over ``canvas`` (a chart's plot), ``fraction`` of its width from
    its left and ``y`` CSS pixels from its top, and reads the hover box: its heading and
    its rows (each the row's texts: name, value, and smoothed value where shown)."""
    canvas.scroll_into_view_if_needed()
    box = canvas.bounding_box()
    assert box is not None
    page.page.mouse.move(box["x"] + fraction * box["width"], box["y"] + y)
    chart = chart_of(canvas)
    page.wait_for(
        "(chart) => !chart.querySelector('.aw-hover').hidden",
        chart.element_handle(),
        what="the hover box",
    )
    return dict(
        chart.evaluate(
            """(chart) => {
            const box = chart.querySelector(".aw-hover");
            const cells = [...box.querySelectorAll(".aw-hover-table > *")];
            const rows = [];
            let row = null;
            for (const cell of cells) {
                if (cell.classList.contains("aw-hover-swatch") || row === null) rows.push(row = []);
                if (!cell.classList.contains("aw-hover-swatch")) row.push(cell.textContent);
            }
            const rule = chart.querySelector(".aw-hover-rule");
            return {
                heading: box.querySelector(".aw-hover-heading").textContent,
                rows: rows.filter((r) => r.length > 0 && r[0] !== ""),
                rule: rule.hidden ? null : parseFloat(rule.style.left),
            };
        }"""
        )
    )


def learning_curve(page: WatchedPage, training: Locator, episodes: int) -> dict[str, Any]:
    """A TrainingViewer's learning curve (``training`` its ``.aw-training``) as drawn, once
    it holds ``episodes`` episodes and its cursor is on the last: its x ticks (``steps``),
    legend, caption, cursor (in episodes) and title (the legend's help text)."""
    curve = training.locator(".aw-learning-curve")
    curve.wait_for(timeout=60_000)
    page.wait_for(
        """([el, n]) => {
            const canvas = el.querySelector("canvas.aw-timeline");
            return canvas.dataset.episodes === String(n) && canvas.dataset.cursor === String(n)
                && el.querySelectorAll(".aw-axis-steps .aw-axis-tick").length > 1;
        }""",
        [curve.element_handle(), episodes],
        timeout=60,
        what=f"the learning curve to hold {episodes} episodes",
    )
    drawn = curve.evaluate(
        """(el) => ({
            legend: [...el.querySelectorAll(".aw-timeline-key")].map((k) => k.textContent),
            caption: el.querySelector(".aw-curve-caption").textContent,
            cursor: Number(el.querySelector("canvas.aw-timeline").dataset.cursor),
            title: el.querySelector(".aw-timeline-legend").title,
        })"""
    )
    return {**drawn, "steps": axis_labels(curve.locator(".aw-chart"))["steps"]}
