"""An SB3 vector env's episode in Chromium: its last position, the terminal observation
kept without a frame (issue #41), says so on the canvas and in the readout."""

from __future__ import annotations

import numpy as np
import pytest
from stable_baselines3.common.vec_env import DummyVecEnv

from agent_widget import EpisodeViewer, record_vector
from harness.lab import rgb_sha256
from tests.cartpole import cartpole
from tests.e2e.test_page_in_browser import OpenedPage

pytestmark = pytest.mark.e2e


def test_the_terminal_observation_says_it_has_no_frame(new_page, tmp_path):
    venv = DummyVecEnv([cartpole] * 2)
    rollout = record_vector(venv, lambda obs: (obs[:, 2] > 0).astype(int), seed=0)[0]
    last = rollout.num_steps
    path = EpisodeViewer(rollout).to_html(tmp_path / "sb3.html", progress=False)
    page = new_page()
    try:
        view = OpenedPage(page, path.as_uri()).view()
        view.wait_painted(0)
        view.slide_to(last - 1)
        view.wait_painted(last - 1)
        assert view.canvas()["sha256"] == rgb_sha256(np.asarray(rollout.frames[last - 1]))
        view.slide_to(last)
        view.wait_painted(last)
        label = view.root.locator("canvas.aw-frame").get_attribute("aria-label")
        assert label == f"terminal observation, no frame at step {last}"
        # The readout shows the position's info, which says why.
        assert '"no_frame":"terminal observation: the vector env reset' in view.readout()
    finally:
        page.close()
