"""Each widget's output carries a saved copy beside the widget: a picture of what it
showed and a sentence, for where the widget cannot be drawn (GitHub, an nbconvert page,
an untrusted notebook), while the widget view stays in the bundle."""

from __future__ import annotations

import html.parser

import numpy as np
import pytest
from IPython.core.formatters import DisplayFormatter

from agent_widget import CompareViewer, EpisodeViewer, record, save, what_if
from agent_widget.episodes import Rollout, load
from agent_widget.library import RunLibrary
from agent_widget.viewer._saved_copy import MAX_PNG_BYTES, readout_lines, shown_frame
from harness.pictures import holds, png_pixels
from tests.cartpole import balance, cartpole
from tests.e2e.episodes import synthetic_episode, synthetic_frames
from tests.panel_comm import deliver
from tests.waiting import wait_for_trait

WIDGET = "application/vnd.jupyter.widget-view+json"
HOSTILE = "<img src=x onerror='window.__awInjected=1'>"


def shown(widget: object) -> dict[str, object]:
    """The display data IPython makes of ``widget`` (what a notebook output holds)."""
    data, _ = DisplayFormatter().format(widget)
    return data


def test_a_viewer_output_holds_the_widget_a_picture_of_its_step_and_a_sentence():
    viewer = EpisodeViewer(synthetic_episode(40))
    viewer.step = 17
    data = shown(viewer)
    assert data[WIDGET]["model_id"] == viewer.model_id
    picture = png_pixels(data["image/png"])
    assert holds(picture, shown_frame(synthetic_frames(40)[17]))
    assert not holds(picture, shown_frame(synthetic_frames(40)[16]))
    text = data["text/plain"]
    assert text.startswith("EpisodeViewer: Synthetic-v0, step 17 of 0 to 39.")
    assert "run the cell" in text
    assert "to_html()" in text
    assert "object at 0x" not in text


def test_the_picture_follows_the_step_shown_when_the_output_is_made():
    viewer = EpisodeViewer(synthetic_episode(40))
    viewer.step = 39
    picture = png_pixels(shown(viewer)["image/png"])
    assert holds(picture, shown_frame(synthetic_frames(40)[39]))


def test_small_frames_are_grown_in_blocks_and_large_ones_kept_as_they_are():
    small = shown_frame(synthetic_frames(1)[0])  # 48x64
    assert small.shape == (144, 192, 3)
    assert np.array_equal(small[::3, ::3], synthetic_frames(1)[0])
    pong = np.zeros((210, 160, 3), np.uint8)
    assert shown_frame(pong) is pong


def test_a_noisy_600x400_frame_fits_the_byte_bound():
    frames = np.random.default_rng(0).integers(0, 256, (3, 400, 600, 3), dtype=np.uint8)
    data = shown(EpisodeViewer(frames))
    png = png_pixels(data["image/png"])
    assert len(data["image/png"]) * 3 // 4 <= MAX_PNG_BYTES
    assert png.shape[1] >= 300  # shrunk or in 256 colours, not to a stamp


def test_a_viewer_without_frames_pictures_its_readout():
    viewer = EpisodeViewer(Rollout.from_arrays(actions=[1, 2], rewards=[0.5, 1.0]))
    picture = png_pixels(shown(viewer)["image/png"])
    assert picture.shape[0] > 50
    assert "step 0 of 0 to 2" in shown(viewer)["text/plain"]


def test_the_readout_says_whose_reward_return_and_end_it_shows_up_to_the_last_position():
    """Position t shows the state before action t: its reward is action t's, its return
    the one before it, its end flags action t's. The last position took no action: no
    reward of its own, and the return and flags after the action before it."""
    rollout = Rollout.from_arrays(actions=[0, 1], rewards=[0.5, 1.0], terminated=[False, True])
    episode = EpisodeViewer(rollout, action_names=["L", "R"])._episode
    assert readout_lines(episode, 1) == [
        "t = 1 / 2",
        "action: 1 (R)",
        "reward: 1 (of action 1)",
        "return: 0.5 (before action 1)",
        "terminated: true  truncated: false (after action 1)",
    ]
    assert readout_lines(episode, 2) == [
        "t = 2 / 2",
        "action: - (none at the last position)",
        "reward: -",
        "return: 1.5 (after action 1)",
        "terminated: true  truncated: false (after action 1)",
    ]


def test_a_picture_that_cannot_be_drawn_leaves_the_widget_and_the_sentence(tmp_path):
    path = save(synthetic_episode(40), tmp_path / "episode.rollout")
    viewer = EpisodeViewer(load(path))
    path.write_bytes(b"")  # the file is gone from under the lazy frames
    viewer.step = 35
    data = shown(viewer)
    assert data[WIDGET]["model_id"] == viewer.model_id
    assert "step 35" in data["text/plain"]
    assert "image/png" not in data


def test_a_comparison_pictures_each_rollouts_frame_at_the_shared_step():
    compare = CompareViewer({"long": synthetic_episode(40), "short": synthetic_episode(20)})
    compare.step = 30
    data = shown(compare)
    assert data[WIDGET]["model_id"] == compare.model_id
    picture = png_pixels(data["image/png"])
    assert holds(picture, shown_frame(synthetic_frames(40)[30]))
    assert holds(picture, shown_frame(synthetic_frames(20)[19]))  # ended: its last frame
    assert data["text/plain"].startswith("CompareViewer of long, short, shared step 30 of 0 to 39.")


def test_a_comparison_aligned_by_key_pictures_each_position_as_aligned():
    episodes = {"a": synthetic_episode(30), "b": synthetic_episode(30)}
    keyed = CompareViewer(episodes, align=lambda r: np.arange(r.num_positions) * 2)
    keyed.step = 10
    picture = png_pixels(shown(keyed)["image/png"])
    assert holds(picture, shown_frame(synthetic_frames(30)[10]))


class _Tags(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.cells: list[str] = []

    def handle_starttag(self, tag: str, attrs: object) -> None:
        self.tags.append(tag)

    def handle_data(self, data: str) -> None:
        self.cells.append(data)


@pytest.fixture
def library(tmp_path):
    lib = RunLibrary(tmp_path / "runs")
    lib.add([synthetic_episode(10)], algorithm="dqn", run=HOSTILE, params={"note": "<b>x</b>"})
    return lib


def test_a_leaderboard_output_holds_its_table_escaped_and_a_sentence(library):
    data = shown(library)
    assert WIDGET in data
    parsed = _Tags()
    parsed.feed(data["text/html"])
    assert set(parsed.tags) <= {"div", "p", "table", "thead", "tbody", "tr", "th", "td"}
    assert HOSTILE in parsed.cells  # shown as text
    assert 'note="<b>x</b>"' in parsed.cells  # params as the live table writes them
    assert data["text/plain"].startswith("Leaderboard of 1 run in ")
    assert "run the cell to sort, filter and open them." in data["text/plain"]


def test_a_what_if_pictures_the_episode_and_its_branch_side_by_side():
    episode = record(cartpole(), balance, seed=3, max_steps=80, agent="pd")
    viewer = what_if(episode, env=cartpole, policy=balance)
    deliver(viewer, {"type": "what-if", "step": 30, "action": 1 - int(episode.actions[30])})
    wait_for_trait(viewer, "what_if", lambda state: not state["busy"])
    viewer.step = 40
    data = shown(viewer)
    picture = png_pixels(data["image/png"])
    for child in viewer.viewers:
        assert holds(picture, shown_frame(child._episode.frames[min(40, child.length - 1)]))
    assert data["text/plain"].startswith("CompareViewer of pd, ")
