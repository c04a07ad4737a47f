"""CompareViewer: child viewers, shared length, alignment maps, divergence, shared panels,
diff panels (driven through the comm handler of the viewer that shows them)."""

import numpy as np
import pytest

from agent_widget.compare import CompareViewer
from agent_widget.episodes import Rollout
from agent_widget.viewer import EpisodeViewer
from tests.panel_comm import Outbox, ask


def episode(actions, env_id="Grid-v0", seed=0, infos=None, extras=None, **metadata):
    n = len(actions) + 1
    return Rollout.from_arrays(
        frames=np.zeros((n, 2, 3, 3), np.uint8),
        actions=actions,
        infos=infos,
        extras=extras,
        metadata={"env_id": env_id, "seed": seed, **metadata},
    )


def positions(compare):
    return [np.frombuffer(b, "<i4").tolist() for b in compare.positions]


@pytest.fixture
def outbox(monkeypatch):
    """The messages each viewer sends: ``outbox(viewer)`` captures that viewer's."""
    boxes = {}

    def capture(viewer):
        boxes[viewer] = Outbox()
        monkeypatch.setattr(viewer, "send", boxes[viewer])
        return boxes[viewer]

    return capture


def seen(compare, outbox, b, at):
    """What a (step_a, step_b) recording diff panel on ``b`` gets at ``b``'s positions ``at``."""
    calls = []
    compare.add_diff_panel("seen", lambda sa, sb: calls.append((sa, sb)) and None, b=b)
    viewer = compare.viewers[compare.labels.index(b)]
    box = outbox(viewer)
    for i, t in enumerate(at):
        ask(viewer, t, ["seen"], request_id=i)
        box.wait(i + 1)
    compare.close()
    return [((sa.t, sa.action), (sb.t, sb.action)) for sa, sb in calls]


def test_each_rollout_gets_its_own_viewer_titled_with_its_label():
    compare = CompareViewer({"DQN": episode([0, 1]), "PPO": episode([0, 1, 1])})
    assert all(isinstance(v, EpisodeViewer) for v in compare.viewers)
    assert [v.title for v in compare.viewers] == ["DQN", "PPO"] == compare.labels
    assert [v.length for v in compare.viewers] == [3, 4]


def test_the_viewers_travel_as_widget_references():
    compare = CompareViewer([episode([0]), episode([1])])
    state = compare.get_state()
    assert state["viewers"] == [f"IPY_MODEL_{v.model_id}" for v in compare.viewers]


def test_a_list_is_labelled_from_metadata_and_repeated_names_are_told_apart():
    rollouts = [episode([0], agent="dqn"), episode([0], algorithm="ppo"), episode([0], agent="dqn")]
    assert CompareViewer(rollouts).labels == ["dqn (0)", "ppo", "dqn (2)"]
    assert CompareViewer([episode([0]), episode([1])]).labels == ["0", "1"]


def test_by_step_the_shared_length_is_the_longest_episode_and_no_map_is_sent():
    compare = CompareViewer([episode([0] * 9), episode([0] * 3)])
    assert compare.length == 10
    assert compare.positions == []


def test_the_step_is_clamped_to_the_shared_length():
    compare = CompareViewer([episode([0] * 9), episode([0] * 3)])
    compare.step = 99
    assert compare.step == 9
    compare.step = -4
    assert compare.step == 0


def test_the_divergence_is_the_first_step_where_any_rollout_acts_otherwise():
    base = [0, 1, 2, 3, 0, 1]
    late, early = base.copy(), base.copy()
    late[4], early[2] = 3, 0
    compare = CompareViewer([episode(base), episode(late), episode(early)])
    assert compare.divergence == 2


def test_rollouts_that_act_alike_have_no_divergence():
    assert CompareViewer([episode([0, 1]), episode([0, 1])]).divergence is None


def test_rollouts_of_other_seeds_or_envs_have_no_divergence():
    assert CompareViewer([episode([0, 1], seed=0), episode([1, 1], seed=1)]).divergence is None
    assert CompareViewer([episode([0, 1]), episode([1, 1], env_id="Other-v0")]).divergence is None


def test_jump_to_divergence_moves_the_shared_step_there():
    compare = CompareViewer([episode([0, 0, 0, 1]), episode([0, 0, 0, 2])])
    compare.jump_to_divergence()
    assert compare.step == 3


def test_jump_to_divergence_without_one_is_a_value_error():
    with pytest.raises(ValueError, match="no divergence"):
        CompareViewer([episode([0]), episode([0])]).jump_to_divergence()


def test_aligning_by_a_key_lines_the_rollouts_up_where_their_keys_meet():
    # One agent acts every 4 frames, the other every 2: aligned by frame number.
    coarse = episode([0, 0], infos=[{"frame": f} for f in (0, 4, 8)])
    fine = episode([0, 0, 0, 0, 0], infos=[{"frame": f} for f in (0, 2, 4, 6, 8, 10)])
    compare = CompareViewer({"coarse": coarse, "fine": fine}, align="frame")
    assert compare.length == 6  # frames 0, 2, 4, 6, 8, 10
    assert positions(compare) == [[0, 0, 1, 1, 2, 2], [0, 1, 2, 3, 4, 5]]
    assert compare.divergence is None


def test_aligning_by_a_function_of_the_rollout():
    a, b = episode([0, 0]), episode([0, 0])
    compare = CompareViewer(
        [a, b], align=lambda r: np.arange(r.num_positions) * (2 if r is a else 3)
    )
    assert positions(compare) == [[0, 1, 1, 2, 2], [0, 0, 1, 1, 2]]  # keys 0, 2, 3, 4, 6


def test_a_key_that_decreases_is_a_value_error_naming_the_rollout_and_position():
    bad = episode([0, 0], infos=[{"frame": f} for f in (0, 5, 3)])
    with pytest.raises(ValueError, match=r"B: the alignment key decreases at position 2"):
        CompareViewer(
            {"A": episode([0], infos=[{"frame": 0}, {"frame": 1}]), "B": bad}, align="frame"
        )


def test_a_missing_info_key_is_a_value_error_naming_the_position():
    with pytest.raises(ValueError, match=r"0: the info at position 0 has no 'frame'"):
        CompareViewer([episode([0]), episode([0])], align="frame")


def test_a_panel_added_to_the_comparison_is_on_every_viewer():
    compare = CompareViewer([episode([0]), episode([1])])

    @compare.panel("action")
    def action(step):
        return str(step.action)

    assert [[p["name"] for p in v.panels] for v in compare.viewers] == [["action"], ["action"]]
    compare.remove_panel("action")
    assert [v.panels for v in compare.viewers] == [[], []]


def test_a_diff_panel_is_a_panel_of_rollout_b_only():
    compare = CompareViewer({"DQN": episode([0]), "PPO": episode([1]), "random": episode([2])})
    compare.add_diff_panel("diff", lambda step_a, step_b: None, a="random", b="PPO")
    assert [[p["name"] for p in v.panels] for v in compare.viewers] == [[], ["diff"], []]
    compare.remove_panel("diff")
    assert [v.panels for v in compare.viewers] == [[], [], []]
    with pytest.raises(KeyError, match="no panel 'diff'"):
        compare.remove_panel("diff")


def test_a_diff_panel_defaults_to_the_first_two_rollouts_and_decorates():
    compare = CompareViewer([episode([0]), episode([1]), episode([2])])

    @compare.diff_panel("diff")
    def diff(step_a, step_b):
        return None

    assert diff.__name__ == "diff"
    assert [[p["name"] for p in v.panels] for v in compare.viewers] == [[], ["diff"], []]


def test_a_diff_panel_on_the_first_rollout_compares_it_with_the_second(outbox):
    compare = CompareViewer({"DQN": episode([1, 2]), "PPO": episode([5, 6])})
    assert seen(compare, outbox, "DQN", [0]) == [((0, 5), (0, 1))]


def test_by_step_a_diff_panel_gets_both_rollouts_at_the_same_step(outbox):
    compare = CompareViewer({"short": episode([1, 2]), "long": episode([5, 6, 7, 8])})
    # Once "short" has ended (its last position is 2, without an action) it holds there.
    assert seen(compare, outbox, "long", [1, 4]) == [((1, 2), (1, 6)), ((2, None), (4, None))]


def test_by_key_a_diff_panel_gets_a_where_b_reaches_its_step(outbox):
    coarse = episode([1, 2], infos=[{"frame": f} for f in (0, 4, 8)])
    fine = episode([5, 6, 7, 8, 9], infos=[{"frame": f} for f in (0, 2, 4, 6, 8, 10)])
    rollouts = {"coarse": coarse, "fine": fine}
    # Frames 6 and 10: coarse is at frame 4, then holds its last position (frame 8).
    compare = CompareViewer(rollouts, align="frame")
    assert seen(compare, outbox, "fine", [3, 5]) == [((1, 2), (3, 8)), ((2, None), (5, None))]
    # Coarse step 1 is frame 4, fine step 2.
    compare = CompareViewer(rollouts, align="frame")
    assert seen(compare, outbox, "coarse", [1]) == [((2, 7), (1, 2))]


def test_a_q_value_difference_dict_is_drawn_as_bars(outbox):
    names = ["LEFT", "RIGHT"]
    dqn = episode([0, 1], extras={"q_values": [[1.0, 2.0], [0.5, 0.0]]}, action_names=names)
    ppo = episode([1, 1], extras={"q_values": [[1.5, 1.0], [0.0, 3.0]]}, action_names=names)
    compare = CompareViewer({"DQN": dqn, "PPO": ppo})

    @compare.diff_panel("PPO - DQN", a="DQN", b="PPO")
    def q_gain(step_a, step_b):
        gain = step_b.extras["q_values"] - step_a.extras["q_values"]
        return dict(zip(step_b.action_names, gain, strict=True))

    box = outbox(compare.viewers[1])
    ask(compare.viewers[1], 1, ["PPO - DQN"])
    [(card, buffers)] = box.wait(1)
    compare.close()
    assert (card["kind"], card["labels"], card["highlight"]) == ("bars", names, 1)
    assert np.frombuffer(buffers[0], "<f8").tolist() == [-0.5, 3.0]


def test_a_diff_panel_of_unknown_or_equal_rollouts_is_a_value_error():
    compare = CompareViewer({"DQN": episode([0]), "PPO": episode([1])})
    with pytest.raises(ValueError, match=r"no rollout is labelled 'A2C' \(labels: 'DQN', 'PPO'\)"):
        compare.add_diff_panel("diff", lambda step_a, step_b: None, b="A2C")
    with pytest.raises(ValueError, match="a and b are both 'PPO'"):
        compare.add_diff_panel("diff", lambda step_a, step_b: None, a="PPO", b="PPO")
    with pytest.raises(ValueError, match="needs two rollouts"):
        CompareViewer([episode([0])]).add_diff_panel("diff", lambda step_a, step_b: None)
    with pytest.raises(TypeError, match="callable with two steps"):
        compare.add_diff_panel("diff", "not a function")


def test_closing_the_comparison_closes_its_viewers():
    compare = CompareViewer([episode([0]), episode([1])])
    viewers = list(compare.viewers)
    compare.close()
    assert all(v.comm is None for v in viewers)


def test_no_rollouts_or_other_values_are_errors():
    with pytest.raises(ValueError, match="at least one rollout"):
        CompareViewer([])
    with pytest.raises(TypeError, match="B: expected a Rollout, got ndarray"):
        CompareViewer({"A": episode([0]), "B": np.zeros(3)})


def test_a_front_end_cannot_rewrite_the_comparison():
    compare = CompareViewer({"a": episode([0, 1, 1]), "b": episode([0, 2])})
    compare.set_state({"labels": ["x"], "length": 10**9, "step": 2})
    assert (compare.labels, compare.length, compare.step) == (["a", "b"], 4, 2)


def test_a_comparison_keeps_every_step_of_its_long_episodes_for_its_shared_chart():
    """Its chart aligns the returns position by position: its viewers send their series
    whole, where a lone viewer of more than 4,096 steps sends a summary."""
    rollouts = [Rollout.from_arrays(rewards=np.ones(5000)) for _ in range(2)]
    compare = CompareViewer(rollouts)
    assert all(len(viewer.series["rewards"]) == 4 + 5000 for viewer in compare.viewers)
    assert all(viewer.summary == {} for viewer in compare.viewers)


def test_bars_cards_share_one_scale_across_the_columns_unless_turned_off():
    assert CompareViewer([episode([0]), episode([1])]).shared_scales is True
    assert CompareViewer([episode([0]), episode([1])], shared_scales=False).shared_scales is False


def test_a_plain_comparison_has_no_what_if_bar():
    """Only ``what_if()`` sets the bar's state; a plain comparison's is None, not ``{}``."""
    compare = CompareViewer({"a": episode([0, 1]), "b": episode([0, 2])})
    assert compare.what_if is None
    assert compare.get_state()["what_if"] is None
