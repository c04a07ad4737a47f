"""A 100,000-step episode opens and seeks to its end in a real JupyterLab."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from harness.charts import axis_labels, chart_of
from harness.lab import rgb_sha256
from tests.e2e.episodes import synthetic_frames

N = 100_001  # 100,000 actions
SIZE = 16

CELLS = [
    f"""import sys
sys.path.insert(0, {str(Path(__file__).parent)!r})
from episodes import synthetic_episode
from agent_widget.viewer import EpisodeViewer
viewer = EpisodeViewer(synthetic_episode({N}, {SIZE}, {SIZE}, infos=False))
viewer""",
]

pytestmark = [pytest.mark.e2e, pytest.mark.notebook("long.ipynb", CELLS)]


def test_a_100000_step_episode_opens_and_seeks_to_its_end(notebook):
    view = notebook.view(0)
    last = N - 1
    frames = synthetic_frames(N, SIZE, SIZE)
    view.wait_painted(0)
    assert view.canvas()["sha256"] == rgb_sha256(frames[0])
    assert view.slider().get_attribute("max") == str(last)
    view.press("End")
    view.wait_painted(last)
    canvas = view.canvas()
    assert (canvas["step"], canvas["sha256"]) == (last, rgb_sha256(frames[last]))
    notebook.wait_until(
        lambda: notebook.python("viewer.step") == last, what="viewer.step at the end"
    )


def test_a_long_episode_sends_its_timeline_as_a_summary_and_its_readout_with_its_chunks(
    notebook,
):
    """Past 4,096 steps the state carries 2,048 columns of the timeline, not 100,000 steps
    of series; the strip still draws the return rising to its end, its legend says the
    return's range, and the readout's reward and return come with the position's chunk."""
    view = notebook.view(0)
    assert notebook.python("[len(viewer.series), len(viewer.summary['returns.max']) < 4096]") == [
        0,
        True,
    ]
    timeline = view.root.locator("canvas.aw-timeline")
    assert timeline.get_attribute("data-summarized") == "true"
    legend = view.root.locator(".aw-timeline-legend").inner_text()
    assert "return 0 to 10000" in legend
    # Rows of the return line's colour near the strip's ends (past the scale labels at the
    # left): low on the left, high on the right.
    heights = timeline.evaluate(
        """(canvas) => {
            const {width, height} = canvas;
            const data = canvas.getContext("2d").getImageData(0, 0, width, height).data;
            const rows = (x0, x1) => {
                const found = [];
                for (let y = 0; y < height; y++) for (let x = x0; x < x1; x++) {
                    const i = 4 * (y * width + x);
                    const d = Math.abs(data[i] - 0x1f) + Math.abs(data[i + 1] - 0x5f)
                        + Math.abs(data[i + 2] - 0xbf);
                    if (data[i + 3] > 200 && d < 60) found.push(y);
                }
                return found;
            };
            const left = rows(Math.round(width * 0.12), Math.round(width * 0.2));
            const right = rows(Math.round(width * 0.9), Math.round(width * 0.98));
            return [Math.min(...left), Math.max(...right), height];
        }"""
    )
    left_top, right_bottom, height = heights
    assert left_top > height / 2, heights  # the return starts low...
    assert right_bottom < height / 2, heights  # ...and ends high
    view.slide_to(43_219)
    view.wait_painted(43_219)
    notebook.wait_until(lambda: "return: 4321" in view.readout(), what="the readout's return")
    readout = view.readout()
    assert "t: 43219 / 100000" in readout, readout
    assert "reward: 1" in readout, readout
    assert "action: 3 (FIRE)" in readout, readout  # 43219 % 4, with its name


def test_zooming_into_a_long_timeline_brings_the_ranges_exact_columns_from_the_kernel(notebook):
    """Ctrl+wheel zooms in around the pointer; past the summary's 49 positions a column the
    page asks the kernel for the range, whose returns then read exactly in the legend; a
    double click shows the whole episode again."""
    view = notebook.view(0)
    timeline = view.root.locator("canvas.aw-timeline")
    steps = axis_labels(chart_of(timeline))["steps"]
    assert steps[0] == "0", steps
    assert all(label.endswith("k") for label in steps[1:]), steps  # 20k, not 20000
    timeline.evaluate(
        """(el) => {
            const rect = el.getBoundingClientRect();
            el.dispatchEvent(new WheelEvent("wheel", {deltaY: -2000, ctrlKey: true, bubbles: true,
                cancelable: true, clientX: rect.left + rect.width / 2, clientY: rect.top + 5}));
        }"""
    )
    shown = timeline.get_attribute("data-range")
    start, stop = map(int, shown.split(","))
    assert 1000 < stop - start < 3000, shown  # e^-4 of 100,001 positions
    assert start < N // 2 < stop, shown  # around the pointer, in the middle
    notebook.wait_for("(el) => el.dataset.detail === 'true'", timeline.element_handle())
    legend = view.root.locator(".aw-timeline-legend").inner_text()
    assert f"return {start // 10} to {(stop - 1) // 10}" in legend, legend
    assert f"steps {start} to {stop - 1}" in legend, legend
    zoomed = axis_labels(chart_of(timeline))["steps"]
    assert zoomed != steps, zoomed  # finer ticks, inside the range
    # 49,250 is written whole: "49.25k" would hide the step of 250 the ticks are apart.
    positions = [
        float(label[:-1]) * 1000 if label.endswith("k") else float(label) for label in zoomed
    ]
    assert all(start <= t < stop for t in positions), zoomed
    timeline.dblclick()
    assert timeline.get_attribute("data-range") == ""
    assert axis_labels(chart_of(timeline))["steps"] == steps
    assert "return 0 to 10000" in view.root.locator(".aw-timeline-legend").inner_text()
    view.press("Home")  # back to where the next test expects
    view.wait_painted(0)


def test_a_kernel_that_does_not_answer_is_said_in_words_and_the_view_recovers(notebook):
    """A kernel that answers nothing (here: stopped with SIGSTOP, as a hung or suspended
    one) is said so, where the frame would be and on the cards; once it answers again
    (SIGCONT) the view shows the frame by itself. How soon the note comes (3 s) is
    js/shared/no-answer.ts's, tested there on a fake clock."""
    view = notebook.view(0)
    notebook.execute("viewer.add_panel('notes', lambda step: f't = {step.t}')")
    pid = notebook.python("__import__('os').getpid()")
    target = 54_321
    os.kill(pid, signal.SIGSTOP)
    try:
        view.slide_to(target)
        late = "(el) => el.dataset.noAnswer === 'true'"
        notebook.wait_for(late, view.handle, what="the frame's note")
        status = view.root.locator(".aw-status").inner_text()
        assert "no answer from the kernel: it may be busy running a cell" in status
        assert view.painted_step() != target
        card = view.card("notes")
        notebook.wait_for(late, card.element_handle(), what="the card's note")
        assert "no answer from the kernel" in card.inner_text().lower()
    finally:
        os.kill(pid, signal.SIGCONT)
    view.wait_painted(target)
    assert view.canvas()["sha256"] == rgb_sha256(synthetic_frames(target + 1, SIZE, SIZE)[target])
    view.wait_card("notes", target, "text")
    assert view.root.get_attribute("data-no-answer") == "false"
    assert view.root.locator(".aw-status").inner_text() == ""
    assert card.get_attribute("data-no-answer") == "false"
