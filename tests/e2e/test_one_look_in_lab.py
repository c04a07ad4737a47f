"""Every widget speaks one visual language (issue #53, item 11): the playhead is painted
in one colour, in either theme, by the viewer's timeline, the comparison's chart and the
checkpoint viewer's chart (js/shared/theme.ts's Palette.playhead, from base.css)."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.appearance import DARK, LIGHT, set_theme
from harness.lab import Notebook

E2E = Path(__file__).parent
VIEWER, COMPARE, CHECKPOINTS = 1, 2, 3  # the cells

CELLS = [
    f"""import sys
sys.path.insert(0, {str(E2E)!r})
import tempfile
import numpy as np
from episodes import synthetic_frames
from agent_widget import CheckpointViewer, CompareViewer, EpisodeViewer, RunLibrary
from agent_widget.checkpoints import CheckpointRecorder
from agent_widget.episodes import Rollout
from tests.cartpole import cartpole, lean

def episode(n):  # a reward every 7th step: no bar reaches across the strip
    return Rollout.from_arrays(frames=synthetic_frames(n), actions=np.arange(n - 1) % 4,
                               rewards=np.where(np.arange(n - 1) % 7 == 6, 1.0, 0.0))

viewer = EpisodeViewer(episode(40), step=20)
compare = CompareViewer({{"a": episode(40), "b": episode(30)}})
compare.step = 20
library = RunLibrary(tempfile.mkdtemp())
recorder = CheckpointRecorder(lambda: cartpole(None), seeds=[0, 1], library=library, run="lean")
for step in (10, 20, 30):
    recorder.record(step, lean)
checkpoints = CheckpointViewer(library, "CartPole-v1/torch/lean", checkpoint=1)""",
    "viewer",
    "compare",
    "checkpoints",
]

pytestmark = [pytest.mark.e2e, pytest.mark.notebook("one_look.ipynb", CELLS)]

# The colours of the canvas's playhead: each column of pixels painted top to bottom in
# one opaque, saturated colour (gridlines are grey and faint, lines and marks are not
# full height, bars here are short).
PLAYHEAD_COLOURS = """(canvas) => {
    const {width, height} = canvas;
    const pixels = canvas.getContext("2d").getImageData(0, 0, width, height).data;
    const found = new Set();
    for (let x = 0; x < width; x++) {
        const at = (y) => pixels.slice(4 * (y * width + x), 4 * (y * width + x) + 4).join(",");
        const first = at(0);
        const [r, g, b, a] = first.split(",").map(Number);
        if (a !== 255 || Math.max(r, g, b) - Math.min(r, g, b) < 60) continue;
        let y = 1;
        while (y < height && at(y) === first) y++;
        if (y === height) found.add(`${r},${g},${b}`);
    }
    return [...found];
}"""

CHARTS = {
    "viewer": (VIEWER, "canvas.aw-timeline"),
    "comparison": (COMPARE, ".aw-shared canvas.aw-compare-chart"),
    "checkpoints": (CHECKPOINTS, ".aw-checkpoints canvas.aw-compare-chart"),
}


def playhead_colours(notebook: Notebook) -> dict[str, list[str]]:
    colours = {}
    for name, (cell, selector) in CHARTS.items():
        canvas = notebook.page.locator(".jp-Notebook .jp-Cell").nth(cell).locator(selector).first
        canvas.wait_for(timeout=30_000)
        canvas.scroll_into_view_if_needed()
        notebook.wait_for(
            f"(canvas) => ({PLAYHEAD_COLOURS})(canvas).length > 0",
            canvas.element_handle(),
            what=f"the {name}'s playhead to be painted",
        )
        colours[name] = canvas.evaluate(PLAYHEAD_COLOURS)
    return colours


@pytest.mark.parametrize("theme", [LIGHT, DARK])
def test_the_playhead_is_one_colour_in_the_viewer_comparison_and_checkpoint_chart(notebook, theme):
    set_theme(notebook, theme)
    try:
        colours = playhead_colours(notebook)
        assert len(colours["viewer"]) == 1, colours
        assert colours["comparison"] == colours["viewer"], colours
        assert colours["checkpoints"] == colours["viewer"], colours
    finally:
        set_theme(notebook, LIGHT)
