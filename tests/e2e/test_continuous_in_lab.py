"""Continuous control in a real JupyterLab (issue #41): a 6-dimensional action's means
drawn on the timeline as six lines of six colours, named in the legend, and a Gaussian
actor's card with a whisker and the action taken on each dimension's bar."""

from __future__ import annotations

import pytest

from harness.charts import tallest_run

VIEWER = 1
# The timeline's light extras colours and the bars' highlight (js/shared/timeline-draw.ts,
# js/panels/bars.ts).
EXTRAS = ["#8e44ad", "#16a085", "#d35400", "#7f8c8d", "#b7950b", "#6d4c41"]
HIGHLIGHT = "#e65100"
CELLS = [
    """import gymnasium as gym
import numpy as np
import torch
from torch import nn
from agent_widget import EpisodeViewer, record
from agent_widget.torch import Policy

class SixTorques(gym.ActionWrapper):
    '''Pendulum taking six torques (HalfCheetah's Box(-1, 1, (6,))), using the first.'''
    def __init__(self, env):
        super().__init__(env)
        self.action_space = gym.spaces.Box(-1.0, 1.0, (6,), np.float32)
    def action(self, action):
        return action[:1] * 2.0

class Actor(nn.Module):
    def __init__(self):
        super().__init__()
        self.mean = nn.Linear(3, 6)
        self.log_std = nn.Parameter(torch.full((6,), -1.0))
    def forward(self, x):
        return torch.tanh(self.mean(x)), self.log_std

torch.manual_seed(0)
actor = Actor()
def act(obs):
    with torch.no_grad():
        mean, log_std = actor(torch.as_tensor(obs[None]))
    action = (mean + 0.3 * torch.randn_like(mean)).clamp(-1, 1)[0].numpy()
    return action, {"mean": mean[0].numpy()}

env = SixTorques(gym.make("Pendulum-v1", render_mode="rgb_array"))
rollout = record(env, act, seed=0, max_steps=60)
viewer = EpisodeViewer(rollout, extras=["mean"])
viewer.add_panel("policy", Policy(actor))""",
    "viewer",
]


# Which of the bars' 18 px rows hold a pixel of the highlight colour (a mark).
MARKED_ROWS = """(canvas, colour) => {
    const rgb = [1, 3, 5].map((i) => parseInt(colour.slice(i, i + 2), 16));
    const {width, height} = canvas;
    const data = canvas.getContext("2d").getImageData(0, 0, width, height).data;
    const ratio = width / canvas.getBoundingClientRect().width;
    const rows = Array(Math.round(height / ratio / 18)).fill(false);
    for (let y = 0; y < height; y++) {
        for (let x = 0; x < width; x++) {
            const i = 4 * (y * width + x);
            if (data[i + 3] > 250 && rgb.every((v, k) => Math.abs(data[i + k] - v) <= 10)) {
                rows[Math.floor(y / ratio / 18)] = true;
            }
        }
    }
    return rows;
}"""


pytestmark = [
    pytest.mark.e2e,
    pytest.mark.notebook("continuous.ipynb", CELLS, viewport={"width": 1200, "height": 1000}),
]


def test_each_action_dimension_is_a_line_of_its_own_colour_named_in_the_legend(notebook):
    view = notebook.view(VIEWER)
    view.wait_painted(0)
    keys = view.root.locator(".aw-timeline-key")
    names = [f"mean[{i}]" for i in range(6)]
    notebook.wait_for(
        "([root, names]) => names.every((n) => root.textContent.includes(n))",
        [view.root.element_handle(), names],
        what="the legend to name the six dimensions",
    )
    assert [name for name in names if keys.filter(has_text=name).count() == 1] == names
    canvas = view.root.locator("canvas.aw-timeline")
    for colour in EXTRAS:  # each line painted across the strip
        assert tallest_run(canvas, colour, within=40)["columns"] > 100, colour


def test_the_policy_card_marks_the_action_taken_on_each_dimension(notebook):
    view = notebook.view(VIEWER)
    view.slide_to(10)
    view.wait_painted(10)
    card = view.root.locator('.aw-card[data-name="policy"]')
    notebook.wait_for(
        "(card) => card.dataset.kind === 'bars' && card.dataset.step === '10'",
        card.element_handle(),
        what="the policy card at step 10",
    )
    assert card.get_attribute("data-highlight") == ""  # no discrete action's bar
    assert "entropy" in card.locator(".aw-caption").inner_text()
    rows = card.locator("canvas.aw-bars").evaluate(MARKED_ROWS, HIGHLIGHT)
    assert rows == [True] * 6, rows  # an orange mark on every dimension's row
