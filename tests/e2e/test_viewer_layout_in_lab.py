"""The viewer uses the width it has, in a real JupyterLab (a 1,400 px window): a
Pong-sized frame fills the room beside its cards (whole device pixels a frame pixel),
the controls sit on one row under both, the "1:1" toggle shows the frame at its own
size, and at 420 px the cards go below the frame, under the slider and the timeline
that stay right under the frame, and nothing overflows."""

from __future__ import annotations

import pytest

from harness.lab import Notebook
from tests.e2e import scene

PONG, PLAIN = 1, 2  # the cells
CELLS = [
    scene.SETUP,
    """pong = EpisodeViewer(synthetic_frames(5, height=210, width=160))
pong.add_panel("Q", lambda step: {"NOOP": 0.1, "FIRE": 0.5})
pong""",
    "EpisodeViewer(synthetic_frames(5, height=210, width=160))",
]

BOXES = """(root) => {
    const box = (selector) => {
        const {left, right, top, bottom, width, height} =
            root.querySelector(selector).getBoundingClientRect();
        return {left, right, top, bottom, width, height};
    };
    const controls = [...root.querySelectorAll(".aw-controls > *")]
        .filter((e) => e.offsetParent !== null);
    const middle = (e) => { const r = e.getBoundingClientRect(); return (r.top + r.bottom) / 2; };
    return {
        root: (({left, right, width}) => ({left, right, width}))(root.getBoundingClientRect()),
        frame: box("canvas.aw-frame"), cards: box(".aw-panels"),
        slider: box(".aw-slider"), timeline: box(".aw-timeline-box"), readout: box(".aw-readout"),
        // The middle of each control group: on one row, they are all within a few px.
        controlMiddles: controls.map(middle),
        overflow: root.scrollWidth - root.clientWidth,
    };
}"""


pytestmark = [pytest.mark.e2e, pytest.mark.notebook("layout.ipynb", CELLS)]


def boxes(notebook: Notebook, cell: int, width: int | None = None) -> dict:
    """The boxes of the viewer in ``cell`` in a 1,400 px window, shown ``width`` px wide
    if given (its output area set to that width, as in a narrow column or side panel)."""
    notebook.page.set_viewport_size({"width": 1400, "height": 1000})
    view = notebook.view(cell)
    view.root.evaluate(
        "(root, width) => { root.parentElement.style.width = width ? `${width}px` : ''; }", width
    )
    view.wait_painted(0)
    frame = view.root.locator("canvas.aw-frame")
    # The frame follows the new width once the widget has been laid out again.
    notebook.wait_for(
        """(root) => {
            const body = root.querySelector(".aw-body");
            return body.dataset.roomWidth === String(body.clientWidth);
        }""",
        view.root.element_handle(),
        what="the frame to be fitted to the new width",
    )
    assert frame.get_attribute("data-scaling") in {"pixelated", "smooth"}
    return dict(view.root.evaluate(BOXES))


def one_row(middles: list[float]) -> bool:
    return max(middles) - min(middles) < 5


def test_the_frame_fills_the_room_beside_its_cards(notebook):
    b = boxes(notebook, PONG)
    assert b["cards"]["left"] >= b["frame"]["right"]  # beside, not below
    assert b["frame"]["width"] > 320  # more than the old fixed 2x
    assert b["frame"]["width"] % 160 == 0  # whole pixels a frame pixel (ratio 1)
    assert b["cards"]["right"] > b["root"]["right"] - 20  # the cards take the rest of the width
    assert one_row(b["controlMiddles"])


def test_without_cards_the_frame_is_as_tall_as_the_window_allows(notebook):
    b = boxes(notebook, PLAIN)
    assert b["frame"]["height"] == 630  # 3x: 4x would be 840, more than 70% of 1,000 px
    assert one_row(b["controlMiddles"])


def test_the_1_to_1_toggle_shows_the_frame_at_its_own_size_and_back(notebook):
    boxes(notebook, PLAIN)
    view = notebook.view(PLAIN)
    toggle = view.root.get_by_role("button", name="1:1")
    frame = view.root.locator("canvas.aw-frame")
    toggle.click()
    assert toggle.get_attribute("aria-pressed") == "true"
    assert frame.evaluate("(c) => c.getBoundingClientRect().width") == 160
    toggle.click()
    assert toggle.get_attribute("aria-pressed") == "false"
    assert frame.evaluate("(c) => c.getBoundingClientRect().height") == 630


def test_at_420_px_the_cards_go_below_the_frame_and_nothing_overflows(notebook):
    b = boxes(notebook, PONG, 420)
    assert b["cards"]["top"] >= b["frame"]["bottom"]
    assert b["frame"]["right"] <= b["root"]["right"]
    assert b["overflow"] <= 0


def test_at_420_px_the_slider_and_timeline_stay_right_under_the_frame(notebook):
    b = boxes(notebook, PONG, 420)
    # The controls' row (buttons and slider, wrapped at this width) starts under the frame.
    assert b["frame"]["bottom"] <= b["slider"]["top"] < b["frame"]["bottom"] + 80
    assert b["slider"]["bottom"] <= b["timeline"]["top"] < b["slider"]["bottom"] + 60
    assert b["cards"]["top"] >= b["timeline"]["bottom"]
    assert b["readout"]["top"] >= b["timeline"]["bottom"]
