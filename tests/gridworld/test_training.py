"""TrainingViewer: training snapshots as the positions of an EpisodeViewer, shown live."""

from __future__ import annotations

import base64
import io

import gymnasium as gym
import numpy as np
import pytest
from IPython.core.interactiveshell import InteractiveShell
from PIL import Image

from agent_widget.agents import QLearning
from agent_widget.gridworld import TrainingViewer, ValueMap
from agent_widget.gridworld import _training as training_module
from agent_widget.gridworld._glyphs import AGENT
from agent_widget.gridworld._training import CELL_SIZE
from agent_widget.viewer import EpisodeViewer
from agent_widget.viewer._transport import unpack_series
from tests.waiting import wait_for_trait, wait_until


@pytest.fixture
def viewers():
    made = []
    yield made
    for viewer in made:
        viewer.close()


def trained(lake, viewers, episodes=300, **kwargs):
    viewer = TrainingViewer(lake, **kwargs)
    viewers.append(viewer)
    returns = QLearning(lake, seed=0).train(episodes, callback=viewer.snapshot)
    return viewer, returns


def synced(viewer, length):
    """Wait for the timeline's update to ``length`` positions (sent at most every 0.1 s,
    from a timer): its series, set after its length, hold a reward for each step."""
    wait_for_trait(
        viewer.timeline, "series", lambda s: len(unpack_series(s["rewards"])) == length - 1
    )


def shown(viewer, episode):
    """Wait until the newest position is the snapshot after ``episode`` (a timer adds it
    once the interval has passed)."""
    wait_until(lambda: viewer.info(-1)["episode"] == episode, f"a position of episode {episode}")


def test_every_snapshot_is_kept(lake, viewers):
    viewer, returns = trained(lake, viewers, episodes=50, interval=60)
    assert len(viewer.snapshots) == 50
    assert viewer.snapshots.returns.tolist() == returns.tolist()


def test_with_no_interval_every_snapshot_is_a_position_showing_its_value_map(lake, viewers):
    viewer, _ = trained(lake, viewers, episodes=30, interval=0)
    assert viewer.num_positions == 31
    frames = viewer.timeline._episode.frames  # what the front end is sent
    for position, k in [(0, None), (1, 0), (30, 29)]:
        table = np.zeros((16, 4)) if k is None else viewer.snapshots[k]
        assert np.array_equal(frames[position], ValueMap(lake, cell_size=20).grid(table)[0])


def test_each_position_carries_its_colour_scales_ends_for_the_front_end_to_write(lake, viewers):
    viewer, _ = trained(lake, viewers, episodes=30, interval=0)
    # Sent at most every SCALES_INTERVAL, the last ones from a timer.
    wait_for_trait(viewer, "scales", lambda scales: len(scales) == 31 * 16)
    scales = np.frombuffer(viewer.scales, "<f8").reshape(-1, 2)
    assert len(scales) == viewer.num_positions == 31
    for position in (0, 10, 30):
        _, ends = ValueMap(lake, cell_size=20).grid(viewer.table(position))
        assert tuple(scales[position]) == ends
    assert scales[30][1] > scales[30][0]  # a trained table's values spread


def test_scales_are_sent_at_most_once_an_interval_not_once_a_position(lake, viewers, monkeypatch):
    # An interval longer than the test: one send at most while 300 positions come (not
    # judged by the clock), the rest waiting together for the interval's end.
    monkeypatch.setattr(training_module, "SCALES_INTERVAL", 3600.0)
    viewer = TrainingViewer(lake, interval=0)
    viewers.append(viewer)
    sends = []
    viewer.observe(lambda change: sends.append(len(change["new"])), "scales")
    QLearning(lake, seed=0).train(300, callback=viewer.snapshot)
    assert len(sends) <= 1
    assert viewer._sends.pending  # the rest's send, due at the interval's end


def test_the_frames_hold_no_text_the_front_end_writes_s_and_g(lake, viewers):
    viewer, _ = trained(lake, viewers, episodes=3, interval=0)
    assert viewer.grid == {"rows": 4, "cols": 4, "cell": CELL_SIZE}
    assert viewer.labels == [
        {"row": 0, "col": 0, "text": "S", "corner": True},
        {"row": 3, "col": 3, "text": "G", "corner": False},
    ]
    frame = viewer.timeline._episode.frames[0]
    goal = frame[3 * CELL_SIZE + 1 : 4 * CELL_SIZE, 3 * CELL_SIZE + 1 : 4 * CELL_SIZE]
    assert len(np.unique(goal.reshape(-1, 3), axis=0)) == 1  # a plain tile: no "G" in pixels
    assert frame.shape == (4 * CELL_SIZE + 1, 4 * CELL_SIZE + 1, 3)  # no colour bar either


def test_snapshots_faster_than_the_interval_share_a_position(lake, viewers):
    viewer, _ = trained(lake, viewers, episodes=200, interval=60)
    assert viewer.num_positions == 2  # before training, and the first snapshot
    assert viewer.info(1)["episode"] == 0


def test_the_newest_snapshot_gets_a_position_once_the_interval_has_passed(lake, viewers):
    viewer, _ = trained(lake, viewers, episodes=200, interval=0.2)
    shown(viewer, 199)
    assert viewer.info(viewer.num_positions - 1)["episode"] == 199
    assert np.allclose(viewer.table(viewer.num_positions - 1), viewer.snapshots[-1])


def test_the_readout_gives_episode_return_moving_average_and_success_rate(lake, viewers):
    viewer, returns = trained(lake, viewers, episodes=300, interval=0, window=50)
    info = viewer.info(300)
    assert info["episode"] == 299
    assert info["return"] == returns[-1]
    assert info["moving average"] == pytest.approx(returns[-50:].mean())
    assert info["success rate"] == pytest.approx((returns[-50:] > 0).mean())


def curve(viewer, episodes):
    """The learning curve the front end has, once it holds ``episodes`` and every
    position (sent from a timer)."""
    wait_for_trait(
        viewer,
        "curve",
        lambda c: (
            len(unpack_series(c["rewards"])) == episodes
            and len(unpack_series(c["positions"])) == viewer.num_positions
        ),
    )
    return {name: unpack_series(data).astype(np.float64) for name, data in viewer.curve.items()}


def test_each_episodes_return_is_a_point_of_the_curve_not_a_sum_per_position(lake, viewers):
    # Snapshots faster than the interval: 500 episodes on two positions, 500 points.
    viewer, returns = trained(lake, viewers, episodes=500, interval=60, window=50)
    assert viewer.num_positions == 2
    got = curve(viewer, 500)
    assert got["rewards"].tolist() == returns.tolist()
    assert set(got["rewards"].tolist()) == {0.0, 1.0}  # FrozenLake's, none summed
    moving = got["extra:moving average"]
    for k in (0, 49, 499):
        assert moving[k] == pytest.approx(returns[max(0, k - 49) : k + 1].mean())
    assert got["extra:success rate"][-1] == pytest.approx((returns[-50:] > 0).mean())
    # The positions sample the curve: the table before training, after the first episode.
    assert got["positions"].tolist() == [0, 1]
    # Smoothed to start with (raw faint), in the timeline's trait that the views share.
    assert viewer.timeline.timeline_smoothing == 0.6


def test_the_positions_are_the_curves_points_their_snapshots_were_taken_at(lake, viewers):
    viewer, returns = trained(lake, viewers, episodes=2_000, interval=0.05)
    shown(viewer, 1_999)
    got = curve(viewer, 2_000)
    assert got["rewards"].tolist() == returns.tolist()
    positions = got["positions"].astype(int).tolist()
    assert len(positions) == viewer.num_positions
    assert positions[-1] == 2_000
    assert [viewer.info(p)["episode"] for p in range(1, len(positions))] == [
        x - 1 for x in positions[1:]
    ]


def test_the_curve_is_the_same_however_fast_positions_come(lake, viewers):
    slow, _ = trained(lake, viewers, episodes=300, interval=60)
    every, _ = trained(lake, viewers, episodes=300, interval=0)
    assert slow.num_positions != every.num_positions
    slow_curve, every_curve = curve(slow, 300), curve(every, 300)
    for name in ("rewards", "extra:moving average", "extra:success rate"):
        assert slow_curve[name].tolist() == every_curve[name].tolist(), name
    assert every_curve["positions"].tolist() == list(range(301))


def test_in_steps_each_episode_is_a_point_at_the_env_steps_taken_by_its_end(lake, viewers):
    viewer = TrainingViewer(lake, interval=60, x="steps")
    viewers.append(viewer)
    ends = []
    agent = QLearning(lake, seed=0)
    returns = agent.train(
        200, callback=lambda q, **kw: (viewer.snapshot(q, **kw), ends.append(kw["steps"]))
    )
    got = curve(viewer, 200)
    assert got["rewards"].tolist() == returns.tolist()  # the same points as in episodes
    assert got["steps"].astype(int).tolist() == ends
    assert ends[-1] == agent.steps > 200  # FrozenLake's episodes take several steps


def test_in_episodes_the_curve_sends_no_steps(lake, viewers):
    viewer, _ = trained(lake, viewers, episodes=20, interval=60)
    assert "steps" not in curve(viewer, 20)


def test_a_curve_in_steps_refuses_a_snapshot_without_them(lake, viewers):
    viewer = TrainingViewer(lake, x="steps")
    viewers.append(viewer)
    with pytest.raises(ValueError, match=r"env steps so far .* steps=n"):
        viewer.snapshot(np.zeros((16, 4)), episode=0, ret=0.0)
    viewer.snapshot(np.zeros((16, 4)), episode=0, ret=0.0, steps=8)
    with pytest.raises(ValueError, match="steps went back from 8 to 3"):
        viewer.snapshot(np.zeros((16, 4)), episode=1, ret=0.0, steps=3)
    with pytest.raises(ValueError, match=r"x must be one of \('episodes', 'steps'\)"):
        TrainingViewer(lake, x="positions")


def test_a_long_curve_stays_compact_on_the_wire(lake, viewers):
    viewer, _ = trained(lake, viewers, episodes=3_000, interval=60)
    curve(viewer, 3_000)
    assert sum(len(data) for data in viewer.curve.values()) < 10 * 3_000  # 9 bytes an episode


def test_the_view_follows_the_newest_position_unless_scrubbed_back(lake, viewers):
    viewer, _ = trained(lake, viewers, episodes=10, interval=0)
    wait_for_trait(viewer.timeline, "step", lambda step: step == 10)
    viewer.timeline.step = 3
    QLearning(lake, seed=1).train(5, callback=viewer.snapshot)
    synced(viewer, 16)
    assert viewer.timeline.step == 3


def test_play_records_the_greedy_policy_of_a_position_with_value_maps(lake, viewers):
    viewer, _ = trained(lake, viewers, episodes=300, interval=0)
    played = viewer.play(300, seed=0)
    assert isinstance(played, EpisodeViewer)
    assert [panel["name"] for panel in played.panels] == ["values"]
    frame = played._episode.frames[0]
    start = np.all(frame == AGENT, axis=-1)
    rows, cols = np.nonzero(start)
    assert rows.size > 0
    assert rows.max() < 40  # the agent ringed in the start cell, (0, 0)
    assert cols.max() < 40
    assert played.title == "FrozenLake-v1 · greedy policy at position 300 (after episode 299)"


def test_the_play_button_shows_the_shown_positions_episode_below_and_closes_the_last(lake, viewers):
    viewer, _ = trained(lake, viewers, episodes=20, interval=0)
    wait_for_trait(viewer.timeline, "step", lambda step: step == 20)  # following the newest
    viewer._on_message(viewer, {"type": "play"}, [])
    first = viewer.played
    assert isinstance(first, EpisodeViewer)
    assert "(after episode 19)" in first.title
    viewer._on_message(viewer, {"type": "play"}, [])
    assert viewer.played is not first
    assert first.comm is None  # closed
    assert viewer.message == ""


def test_a_play_that_fails_says_why_under_the_button(lake, viewers):
    viewer, _ = trained(lake, viewers, episodes=3, interval=0)
    viewer.env = gym.make("CliffWalking-v1")  # swapped for a bigger world: its start is state 36
    for _ in range(2):  # the same failure twice is said twice (the message is cleared first)
        viewer._on_message(viewer, {"type": "play"}, [])
        assert viewer.message.startswith("could not play: IndexError: "), viewer.message
    assert viewer.played is None


def test_a_position_out_of_range_is_refused(lake, viewers):
    viewer, _ = trained(lake, viewers, episodes=3, interval=0)
    with pytest.raises(IndexError, match="position 4 out of range: there are 4"):
        viewer.table(4)


@pytest.mark.parametrize(
    ("settings", "problem"),
    [({"interval": -1}, "interval must be"), ({"window": 0}, "window must be at least 1")],
)
def test_bad_settings_are_refused(lake, settings, problem):
    with pytest.raises(ValueError, match=problem):
        TrainingViewer(lake, **settings)


def test_the_played_episodes_values_card_is_coloured_on_the_training_maps_scale(lake, viewers):
    viewer, _ = trained(lake, viewers, episodes=300, interval=0, value_range=(0, 1))
    played = viewer.play(300, seed=0)
    _, card = played._panels.card_now("values", 0)
    card_image = np.asarray(Image.open(io.BytesIO(card.buffers[0])))[..., :3]
    frame = viewer.timeline._episode.frames[300]
    for row, col in [(0, 1), (2, 1), (3, 2)]:  # valued cells: their far corners show the colour
        in_card = card_image[(row + 1) * 40 - 3, (col + 1) * 40 - 3]
        in_frame = frame[(row + 1) * CELL_SIZE - 2, (col + 1) * CELL_SIZE - 2]
        assert in_card.tolist() == in_frame.tolist()


def test_the_readout_shows_each_positions_info_not_an_env_steps_fields(lake, viewers):
    viewer, _ = trained(lake, viewers, episodes=3, interval=0)
    assert viewer.timeline.readout == "info"
    assert set(viewer.info(3)) == {"episode", "return", "moving average", "success rate"}


def test_the_titles_name_the_env_and_the_algorithm(lake, viewers):
    viewer, _ = trained(lake, viewers, episodes=3, interval=0, algorithm="Q-learning")
    assert viewer.timeline.title == "FrozenLake-v1 · Q-learning · training"
    assert viewer.play(3, seed=0).title.startswith("FrozenLake-v1 · Q-learning · greedy policy")


def test_its_output_carries_a_picture_of_the_shown_snapshot_and_a_sentence(lake, viewers):
    """Where the widget cannot run (GitHub, an nbconvert page, an untrusted notebook)."""
    viewer, _ = trained(lake, viewers, episodes=30, interval=0)
    synced(viewer, 31)
    viewer.timeline.step = 12
    data, _ = viewer._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in data
    assert "snapshot 12 of 0 to 30" in data["text/plain"]
    assert "run the cell" in data["text/plain"]
    png = base64.b64decode(data["image/png"])
    assert len(png) <= 100_000
    picture = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))
    drawn = ValueMap(lake, cell_size=20).image(viewer.table(12))
    # The value map of snapshot 12 is in the picture, pixel for pixel (grown in blocks).
    factor = max(1, 192 // max(drawn.shape[:2]))
    grown = drawn.repeat(factor, axis=0).repeat(factor, axis=1)
    rows, cols = grown.shape[:2]
    found = any(
        np.array_equal(picture[y : y + rows, x : x + cols], grown)
        for y in range(picture.shape[0] - rows + 1)
        for x in range(0, 40)
    )
    assert found


def test_a_cell_that_ends_leaves_the_newest_snapshot_shown_and_everything_sent(lake, viewers):
    """nbconvert --execute saves the widget state as the cell ends: nothing may wait for a timer."""
    shell = InteractiveShell.instance()
    try:
        viewer = TrainingViewer(lake, interval=60)  # the rest of the snapshots wait a minute
        viewers.append(viewer)
        shell.user_ns.update(viewer=viewer, agent=QLearning(lake, seed=0))
        assert shell.run_cell("agent.train(500, callback=viewer.snapshot);").success
        # Read at once, no waiting: the cell's end showed and sent them.
        assert viewer.num_positions == 3
        assert viewer.info(2)["episode"] == 499
        assert viewer.timeline.length == 3
        assert viewer.timeline.step == 2  # followed: the saved copy shows the trained table
        assert len(unpack_series(viewer.curve["rewards"])) == 500
        assert unpack_series(viewer.curve["positions"]).tolist() == [0, 1, 500]
        viewer.close()
        assert viewer._at_cell_end not in shell.events.callbacks["post_run_cell"]
    finally:
        InteractiveShell.clear_instance()


def test_its_output_shown_after_training_pictures_the_last_snapshot(lake, viewers):
    viewer, _ = trained(lake, viewers, episodes=500, interval=60)
    assert viewer.num_positions == 2  # the last snapshot still waits for its position
    data, _ = viewer._repr_mimebundle_()
    assert "snapshot 2 of 0 to 2" in data["text/plain"]
    assert viewer.info(2)["episode"] == 499
