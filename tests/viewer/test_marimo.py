"""Widgets made outside a running marimo cell carry their ESM inline (agent_widget.viewer._marimo);
everywhere else they keep their bundle file's text. (The marimo case itself runs in a real
marimo kernel in tests/e2e/test_in_voila_and_marimo.py: the leaderboard's Open.)"""

from __future__ import annotations

from pathlib import Path

import marimo  # noqa: F401 (imported, as in a marimo kernel, but no marimo runtime here)
import numpy as np

from agent_widget.compare import CompareViewer
from agent_widget.episodes import Rollout
from agent_widget.viewer import EpisodeViewer

STATIC = Path(__file__).parents[2] / "agent_widget" / "static"


def test_outside_marimo_a_viewer_keeps_its_bundle_as_its_esm():
    viewer = EpisodeViewer(np.zeros((2, 4, 4, 3), np.uint8))
    assert viewer._esm == (STATIC / "widget.js").read_text()


def test_outside_marimo_a_comparison_and_its_children_keep_their_bundles():
    rollout = Rollout.from_arrays(frames=np.zeros((2, 4, 4, 3), np.uint8), actions=[0])
    compare = CompareViewer([rollout, rollout])
    assert compare._esm == (STATIC / "compare.js").read_text()
    assert all(not child._esm.startswith("data:") for child in compare.viewers)
