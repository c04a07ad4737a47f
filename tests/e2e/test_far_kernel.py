"""A distant kernel in a real JupyterLab: the browser reaches the server through the
harness's far-link proxy (40 ms round trip, 20 Mbit/s each way), and a jump paints
its frame, and its readout, from the frame sent ahead of its big chunk."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from harness.lab import rgb_sha256
from tests.e2e.episodes import noise_frames

ROOT = Path(__file__).resolve().parents[2]
POSITIONS = 160_001  # 10,000 chunks of ~200 KB (80 ms each at 20 Mbit): never filled
TARGET = 123_457

CELLS = [
    f"""import sys
sys.path.insert(0, {str(ROOT)!r})
sys.path.insert(0, {str(Path(__file__).parent)!r})
from episodes import noise_frames
from agent_widget.episodes import Rollout
from agent_widget.viewer import EpisodeViewer
from harness.long_episodes import repeated
tile = Rollout.from_arrays(
    frames=noise_frames(64), actions=[0] * 63, infos=[{{"tile": i}} for i in range(64)]
)
viewer = EpisodeViewer(repeated(tile, {POSITIONS}), embed_bytes=0)
sent = []
send = viewer.send
def logged(content, buffers=None):
    sent.append([content.get("type"), content.get("id")])
    send(content, buffers)
viewer.send = logged
viewer""",
]

pytestmark = [pytest.mark.e2e, pytest.mark.notebook("far.ipynb", CELLS, link="40ms-20mbit")]


def test_far_from_the_kernel_a_jump_paints_the_frame_and_readout_sent_ahead_of_its_chunk(
    notebook,
):
    view = notebook.view(0)
    view.wait_painted(0)
    frames = noise_frames(64)
    assert view.canvas()["sha256"] == rgb_sha256(frames[0])
    # A few steps let the page time its replies: the link reads as far.
    for t in (1, 2, 3):
        view.press("ArrowRight")
        view.wait_painted(t)
    before = len(notebook.python("sent"))
    # At the paint, copy the canvas and note whether the target's chunk had arrived yet.
    view.root.evaluate(
        """(root, t) => {
            const canvas = root.querySelector("canvas.aw-frame");
            const cached = () => root.getAttribute("data-cached-chunks");
            const at = cached();
            new MutationObserver((_, observer) => {
                if (root.getAttribute("data-painted-step") !== String(t)) return;
                observer.disconnect();
                const {width, height} = canvas;
                const rgba = canvas.getContext("2d").getImageData(0, 0, width, height).data;
                const readout = root.querySelector(".aw-readout").textContent;
                const chunkArrived = cached() !== at;
                window.__awFirstPaint = {rgba: Array.from(rgba), readout, chunkArrived};
            }).observe(root, {attributes: true, attributeFilter: ["data-painted-step"]});
        }""",
        TARGET,
    )
    view.slide_to(TARGET)
    view.wait_painted(TARGET)
    first = notebook.page.evaluate("() => window.__awFirstPaint")
    rgb = np.array(first["rgba"], np.uint8).reshape(64, 64, 4)[..., :3]
    assert np.array_equal(rgb, frames[TARGET % 64])
    assert first["chunkArrived"] is False
    assert f'{{"tile":{TARGET % 64}}}' in first["readout"]  # the info came with it
    replies = notebook.python("sent")[before:]
    jump = next(i for i, (kind, _) in enumerate(replies) if kind == "frame")
    assert replies[jump + 1] == ["chunks", replies[jump][1]]  # the chunk follows its frame
    notebook.wait_for(
        "([el]) => Number(el.getAttribute('data-cached-chunks')) > 0", [view.handle], what="chunk"
    )
    assert view.canvas()["sha256"] == rgb_sha256(frames[TARGET % 64])
