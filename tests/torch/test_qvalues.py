"""``QValues``: a Q-network's bars for one step, their fixed scale, and the episode's series."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agent_widget import EpisodeViewer, load
from agent_widget.episodes import Rollout
from agent_widget.panels import Step
from agent_widget.torch import ActionBars, QValues
from agent_widget.viewer._transport import unpack_series
from tests.torch_nets import NAMES, direct, mlp, vector_episode


def test_the_bars_are_a_direct_forward_pass_of_the_step_observation():
    model, rollout = mlp(), vector_episode()
    for t in range(rollout.num_positions):
        bars = QValues(model)(Step(rollout, t))
        expected = direct(model, rollout.observations[t : t + 1])[0]
        np.testing.assert_array_equal(np.asarray(bars), expected)


def test_the_bars_are_labelled_with_action_names_and_mark_taken_and_greedy():
    model, rollout = mlp(), vector_episode()
    q = direct(model, rollout.observations)
    bars = QValues(model)(Step(rollout, 1))
    assert list(bars) == NAMES
    assert bars.taken == rollout.actions[1]
    assert bars.greedy == int(np.argmax(q[1]))


def test_greedy_and_taken_differ_when_the_agent_explored():
    model, rollout = mlp(), vector_episode()
    q = direct(model, rollout.observations)
    explored = next(t for t in range(6) if rollout.actions[t] != np.argmax(q[t]))
    bars = QValues(model)(Step(rollout, explored))
    assert bars.taken != bars.greedy
    assert f"greedy {NAMES[bars.greedy]}" in bars.caption
    assert f"taken {NAMES[bars.taken]}" in bars.caption


def test_the_last_position_has_bars_but_no_taken_action():
    rollout = vector_episode()
    bars = QValues(mlp())(Step(rollout, rollout.num_positions - 1))
    assert bars.taken is None
    assert "A(taken)" not in bars.stats


def test_v_is_max_q_and_the_stats_hold_the_gap_and_the_taken_advantage():
    model, rollout = mlp(), vector_episode()
    q = direct(model, rollout.observations)[2]
    bars = QValues(model)(Step(rollout, 2))
    top = np.sort(q)
    assert bars.stats["V"] == pytest.approx(q.max())
    assert bars.stats["top-2 gap"] == pytest.approx(top[-1] - top[-2])
    assert bars.stats["A(taken)"] == pytest.approx(q[rollout.actions[2]] - q.max())


def test_v_of_an_epsilon_greedy_policy_weights_the_mean_in():
    model, rollout = mlp(), vector_episode()
    q = direct(model, rollout.observations)[0]
    bars = QValues(model, epsilon=0.1)(Step(rollout, 0))
    assert bars.stats["V"] == pytest.approx(0.9 * q.max() + 0.1 * q.mean())


def test_advantage_bars_are_q_minus_v():
    model, rollout = mlp(), vector_episode()
    q = direct(model, rollout.observations)[3]
    bars = QValues(model, advantages=True)(Step(rollout, 3))
    np.testing.assert_allclose(np.asarray(bars), q - q.max(), rtol=1e-6, atol=1e-12)


def test_the_scale_spans_the_whole_episode_and_is_the_same_at_every_step():
    model, rollout = mlp(), vector_episode()
    q = direct(model, rollout.observations)
    panel = QValues(model)
    scales = {panel(Step(rollout, t)).scale for t in range(rollout.num_positions)}
    assert len(scales) == 1
    assert scales.pop() == (pytest.approx(q.min()), pytest.approx(q.max()))


def test_the_scale_widens_as_a_live_episode_grows():
    model = mlp()
    observations = np.zeros((3, 4), np.float32)
    rollout = Rollout.from_arrays(observations=observations, actions=[0, 1])
    panel = QValues(model)
    first = panel(Step(rollout, 0)).scale
    rollout.observations = np.concatenate([observations, np.full((1, 4), 9.0, np.float32)])
    q = direct(model, rollout.observations)
    assert panel(Step(rollout, 0)).scale == (pytest.approx(q.min()), pytest.approx(q.max()))
    assert first != panel(Step(rollout, 0)).scale


def test_the_scale_widens_when_a_retrained_model_leaves_it():
    model, rollout = mlp(), vector_episode()
    panel = QValues(model)
    panel(Step(rollout, 0))
    with torch.no_grad():
        model[-1].bias += 100.0  # trained since: every Q-value is 100 higher
    bars = panel(Step(rollout, 0))
    assert bars.scale[1] == pytest.approx(np.asarray(bars).max())


def test_a_given_scale_is_kept_and_none_leaves_each_step_its_own():
    rollout = vector_episode()
    assert QValues(mlp(), scale=(-5, 5))(Step(rollout, 0)).scale == (-5.0, 5.0)
    assert QValues(mlp(), scale=None)(Step(rollout, 0)).scale is None


@pytest.mark.parametrize(
    ("options", "phrase"), [({"epsilon": 2}, "epsilon"), ({"scale": (1, 0)}, "low < high")]
)
def test_bad_options_are_refused_by_name(options, phrase):
    with pytest.raises(ValueError, match=phrase):
        QValues(mlp(), **options)


def test_an_action_the_network_has_no_output_for_is_named():
    rollout = vector_episode(actions=[7, 0, 0, 0, 0, 0])
    with pytest.raises(ValueError, match="step 0: action 7"):
        QValues(mlp())(Step(rollout, 0))


def test_a_step_without_observation_is_named():
    rollout = Rollout.from_arrays(frames=np.zeros((2, 2, 2, 3), np.uint8), actions=[0])
    with pytest.raises(ValueError, match="step 1: there is no observation"):
        QValues(mlp())(Step(rollout, 1))


def test_the_model_runs_in_eval_mode_and_gets_its_modes_back():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Dropout(0.9), torch.nn.Linear(8, 3))
    rollout = vector_episode()
    first = np.asarray(QValues(model)(Step(rollout, 0)))
    again = np.asarray(QValues(model)(Step(rollout, 0)))
    np.testing.assert_array_equal(first, again)  # dropout off
    assert all(module.training for module in model.modules())


def test_no_gradients_are_left_on_the_parameters():
    model = mlp()
    QValues(model)(Step(vector_episode(), 0))
    assert all(p.grad is None and p.requires_grad for p in model.parameters())


def test_series_hold_value_q_of_the_taken_action_and_td_error():
    model, rollout = mlp(), vector_episode()
    q = direct(model, rollout.observations)
    series = QValues(model).series(rollout, gamma=0.9)
    steps = np.arange(6)
    q_taken = q[steps, rollout.actions]
    following = np.where(rollout.terminated, 0.0, q[1:].max(axis=1))
    np.testing.assert_allclose(series["value"], q[:6].max(axis=1), rtol=1e-6)
    np.testing.assert_allclose(series["q_taken"], q_taken, rtol=1e-6)
    np.testing.assert_allclose(
        series["td_error"], rollout.rewards + 0.9 * following - q_taken, rtol=1e-6
    )
    assert all(len(values) == rollout.num_steps for values in series.values())


def test_series_are_computed_in_batches_that_agree_with_one_pass():
    model, rollout = mlp(), vector_episode(steps=40)
    whole = QValues(model, batch_size=1000).series(rollout)
    batched = QValues(model, batch_size=7).series(rollout)
    # float32 matrix products round differently with the batch's size (the CPU kernel's
    # blocking): values near zero differ by ~1e-8, so the tolerance is absolute too.
    for name in whole:
        np.testing.assert_allclose(batched[name], whole[name], rtol=1e-6, atol=1e-6)


def test_series_of_an_episode_read_from_a_file_equal_the_in_memory_ones(tmp_path):
    model, rollout = mlp(), vector_episode()
    loaded = load(rollout.save(tmp_path / "episode.rollout"))
    stored, kept = QValues(model).series(loaded), QValues(model).series(rollout)
    for name in kept:
        np.testing.assert_array_equal(stored[name], kept[name])


def test_the_td_error_is_nan_where_the_next_observation_is_missing():
    rollout = vector_episode(steps=3, terminated=[False, False, False])
    cut = Rollout.from_arrays(
        observations=rollout.observations[:3], actions=rollout.actions, rewards=rollout.rewards
    )
    td = QValues(mlp()).series(cut)["td_error"]
    assert np.isfinite(td[:2]).all()
    assert np.isnan(td[2])


def test_series_go_on_the_viewer_timeline_as_extras():
    rollout = vector_episode()
    series = QValues(mlp()).series(rollout)
    rollout.extras.update(series)
    viewer = EpisodeViewer(rollout, extras=["td_error"])
    timeline = unpack_series(viewer.series["extra:td_error"])
    np.testing.assert_array_equal(timeline, series["td_error"])


def test_the_result_is_action_bars():
    assert isinstance(QValues(mlp())(Step(vector_episode(), 0)), ActionBars)
