"""The timeline's data: each per-step series in the narrowest dtype that holds it
exactly; past 4096 steps, a summary of a size independent of the length, finer ranges
on request and readout values in the chunks; extras drawn as lines; the timeline's
names and rates."""

from __future__ import annotations

import zlib

import numpy as np
import pytest
import traitlets

from agent_widget.episodes import Rollout
from agent_widget.viewer import EpisodeViewer
from agent_widget.viewer._transport import (
    chunk_reply,
    pack_series,
    unpack_series,
)
from tests.sample_frames import random_frames
from tests.viewer.front_end import (
    exchange,
    index,
    returns,
    series,
)

# The series


def test_series_hold_the_rewards_flags_and_scalar_actions():
    rollout = Rollout.from_arrays(
        frames=random_frames(4),
        actions=[1, 0, 1],
        rewards=[1.0, -0.5, 2.0],
        terminated=[False, False, True],
        truncated=[False, True, False],
    )
    viewer = EpisodeViewer(rollout)
    assert sorted(viewer.series) == ["actions", "rewards", "terminated", "truncated"]
    assert series(viewer, "rewards").tolist() == [1.0, -0.5, 2.0]
    assert returns(viewer).tolist() == [0.0, 1.0, 0.5, 2.5]
    assert series(viewer, "terminated").tolist() == [0, 0, 1]
    assert series(viewer, "truncated").tolist() == [0, 1, 0]
    assert series(viewer, "actions").tolist() == [1, 0, 1]


@pytest.mark.parametrize(
    ("values", "header"),
    [
        ([True, False], b"|u1 "),
        ([-1.0, 0.0, 1.0], b"|i1 "),  # Atari rewards
        ([0, 300], b"<u2 "),
        ([-70_000, 1], b"<i4 "),
        ([0.5, -0.25], b"<f4 "),
        (np.array([0.1], np.float32), b"<f4 "),
        ([0.1], b"<f8 "),  # not exact in float32
        ([1e300], b"<f8 "),
        ([2.0**40 + 1], b"<f8 "),  # integral, beyond int32 and float32
        ([np.nan, 1.5], b"<f4 "),
        ([], b"|u1 "),
    ],
)
def test_a_series_travels_in_the_narrowest_dtype_that_holds_it_exactly(values, header):
    packed = pack_series(values)
    assert packed[:4] == header
    unpacked = unpack_series(packed)
    assert unpacked.dtype.str == header.decode().strip()
    np.testing.assert_array_equal(unpacked.astype(np.float64), np.asarray(values, np.float64))


def pong_like(steps: int) -> Rollout:
    rng = np.random.default_rng(0)
    return Rollout.from_arrays(
        actions=rng.integers(6, size=steps),
        rewards=rng.choice([-1.0, 0.0, 1.0], steps, p=[0.01, 0.98, 0.01]),
        terminated=np.arange(steps) == steps - 1,
        infos=[{}] * (steps + 1),
    )


def test_100000_pong_steps_of_series_take_about_400_kb():
    steps = 100_000
    viewer = EpisodeViewer(pong_like(steps), full_series=True)
    assert sum(map(len, viewer.series.values())) == 4 * (steps + 4)  # was 4 MB as float64
    assert viewer.summary == {}


def test_vector_actions_have_no_actions_series():
    viewer = EpisodeViewer(Rollout.from_arrays(frames=random_frames(2), actions=[[0.1, 0.2]]))
    assert "actions" not in viewer.series


# A long episode's summary (agent_widget/viewer/_summary.py)


def summary_of(viewer: EpisodeViewer, name: str) -> np.ndarray:
    return unpack_series(zlib.decompress(viewer.summary[name])).astype(np.float64)


def test_past_4096_steps_the_state_carries_a_summary_of_a_size_independent_of_the_length():
    assert EpisodeViewer(pong_like(4096)).series != {}
    sizes = []
    for steps in (4097, 100_000, 421_968):
        viewer = EpisodeViewer(pong_like(steps))
        assert viewer.series == {}
        assert summary_of(viewer, "returns.max").size == 2048
        sizes.append(sum(map(len, viewer.summary.values())))
    assert max(sizes) < 20_000, sizes  # the series of 421,968 steps: 1.7 MB


def test_the_summary_holds_each_columns_min_and_max_and_marks():
    steps = 10_000
    rollout = pong_like(steps)
    rewards = np.asarray(rollout.rewards)
    rewards[123] = np.nan
    rollout.extras["value"] = np.linspace(-1, 1, steps)
    viewer = EpisodeViewer(rollout, extras=["value"])
    n = steps + 1
    starts = np.arange(2048) * n // 2048
    returns = np.concatenate([[0], np.cumsum(np.nan_to_num(rewards, nan=0.0))])
    ends = [*starts[1:], n]
    column = [returns[a:b] for a, b in zip(starts, ends, strict=True)]
    np.testing.assert_array_equal(summary_of(viewer, "returns.min"), [c.min() for c in column])
    np.testing.assert_array_equal(summary_of(viewer, "returns.max"), [c.max() for c in column])
    nan_column = np.searchsorted(starts, 123, side="right") - 1
    assert np.flatnonzero(summary_of(viewer, "nonfinite")).tolist() == [nan_column]
    assert np.flatnonzero(summary_of(viewer, "terminated")).tolist() == [2047]
    assert summary_of(viewer, "extra:value.min")[0] == -1
    assert summary_of(viewer, "extra:value.max")[-1] == np.float32(1)
    # The column holding only the last position (no action) has no reward.
    assert np.isnan(summary_of(viewer, "rewards.min")).sum() == 0


def test_a_long_episodes_chunks_carry_the_readout_values_the_series_would_have():
    rollout = pong_like(5000)
    viewer = EpisodeViewer(rollout)
    values = index(chunk_reply({"id": 1, "chunks": [312]}, viewer._episode)[1])["values"]
    positions = range(312 * 16, 5001)  # 4992 .. 5000: the last chunk
    rewards = np.asarray(rollout.rewards)
    assert values["steps"] == 5000
    assert values["reward"] == [*rewards[positions.start :].tolist(), None]
    assert values["return"] == [float(rewards[:t].sum()) for t in positions]
    assert values["terminated"] == [False] * 7 + [True, True]  # the last position: the last step's
    assert values["action"] == [*np.asarray(rollout.actions)[positions.start :].tolist(), None]
    short = index(chunk_reply({"id": 1, "chunks": [0]}, EpisodeViewer(pong_like(50))._episode)[1])
    assert "values" not in short


def test_readout_values_keep_non_finite_and_fractional_rewards_and_vector_actions_apart():
    rewards = np.zeros(5000)
    rewards[[10, 11, 12, 13]] = [np.nan, np.inf, -np.inf, 0.5]
    rollout = Rollout.from_arrays(rewards=rewards, actions=np.ones((5000, 2)))
    viewer = EpisodeViewer(rollout)
    values = index(chunk_reply({"id": 1, "chunks": [0]}, viewer._episode)[1])["values"]
    assert values["reward"][9:15] == [0.0, "NaN", "Infinity", "-Infinity", 0.5, 0.0]
    assert "action" not in values  # vectors go as texts
    whole = index(chunk_reply({"id": 1, "chunks": [1]}, viewer._episode)[1])["values"]
    assert whole["reward"][:2] == [0, 0]
    assert type(whole["reward"][0]) is int


def test_a_zoomed_timeline_gets_a_range_in_finer_columns(monkeypatch):
    rollout = pong_like(100_000)
    viewer = EpisodeViewer(rollout)
    request = {"type": "timeline", "id": 9, "start": 40_000, "stop": 40_800, "columns": 400}
    [(reply, buffers)] = exchange(viewer, request, monkeypatch)
    assert (reply["type"], reply["id"], reply["start"], reply["stop"]) == (
        "timeline",
        9,
        40_000,
        40_800,
    )
    got = {
        key: unpack_series(zlib.decompress(bytes(b)))
        for key, b in zip(reply["keys"], buffers, strict=True)
    }
    returns = np.concatenate([[0], np.cumsum(rollout.rewards)])[40_000:40_800].reshape(400, 2)
    np.testing.assert_array_equal(got["returns.min"], returns.min(axis=1))
    np.testing.assert_array_equal(got["returns.max"], returns.max(axis=1))
    rewards = np.asarray(rollout.rewards)[40_000:40_800].reshape(400, 2)
    np.testing.assert_array_equal(got["rewards.max"], rewards.max(axis=1))


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"stop": 100_002}, "not within the episode's 100001"),
        ({"start": 500, "stop": 500}, "positions 500 to 500"),
        ({"columns": 0}, "0 columns: take 1 to 8192"),
        ({"columns": 10**9}, "take 1 to 8192"),
        ({"start": "0"}, "needs an integer 'start'"),
        ({"columns": True}, "needs an integer 'columns'"),
    ],
)
def test_a_bad_timeline_request_gets_a_timeline_error(change, problem, monkeypatch):
    viewer = EpisodeViewer(pong_like(100_000))
    request = {"type": "timeline", "id": 3, "start": 0, "stop": 100, "columns": 10, **change}
    [(reply, buffers)] = exchange(viewer, request, monkeypatch)
    assert (reply["type"], reply["id"], buffers) == ("timeline-error", 3, [])
    assert problem in reply["message"]


def test_an_episode_growing_past_4096_steps_turns_to_a_summary():
    viewer = EpisodeViewer(pong_like(4090))
    assert viewer.summary == {}
    viewer.extend(pong_like(20))
    viewer._sync()
    assert viewer.series == {}
    assert summary_of(viewer, "returns.max").size == 2048


# Extras


def test_named_scalar_extras_go_on_the_timeline():
    rollout = Rollout.from_arrays(
        frames=random_frames(3),
        actions=[0, 1],
        extras={"value": [0.5, 0.25], "q": [[1, 2], [3, 4]]},
    )
    viewer = EpisodeViewer(rollout, extras=["value"])
    assert series(viewer, "extra:value").tolist() == [0.5, 0.25]
    assert "extra:q" not in viewer.series


def test_a_vector_extra_is_drawn_as_one_line_per_component():
    means = np.arange(12, dtype=np.float32).reshape(2, 6) / 10  # HalfCheetah's 6 dimensions
    rollout = Rollout.from_arrays(frames=random_frames(3), actions=means, extras={"mean": means})
    viewer = EpisodeViewer(rollout, extras=["mean"])
    for i in range(6):
        np.testing.assert_array_equal(series(viewer, f"extra:mean[{i}]"), means[:, i])
    assert "extra:mean" not in viewer.series


def test_a_long_episodes_vector_extra_is_summarized_per_component():
    steps = 20_000
    means = np.stack([np.linspace(-1, 1, steps), np.linspace(2, 3, steps)], axis=1)
    rollout = Rollout.from_arrays(actions=means, extras={"mean": means})
    viewer = EpisodeViewer(rollout, extras=["mean"])
    assert summary_of(viewer, "extra:mean[0].min")[0] == -1
    assert summary_of(viewer, "extra:mean[1].max")[-1] == 3


def test_a_vector_extra_grows_with_the_episode(monkeypatch):
    monkeypatch.setattr("agent_widget.viewer._serving._SYNC_INTERVAL", 0.0)
    rollout = Rollout.from_arrays(frames=random_frames(2), actions=[0], extras={"mean": [[1, 2]]})
    viewer = EpisodeViewer(rollout, extras=["mean"])
    viewer.append(frame=random_frames(1)[0], action=1, extras={"mean": [3, 4]})
    assert series(viewer, "extra:mean[1]").tolist() == [2, 4]
    with pytest.raises(ValueError, match=r"mean at step 3: got int64 of shape \(3,\)"):
        viewer.append(frame=random_frames(1)[0], action=1, extras={"mean": [5, 6, 7]})


def test_an_unknown_or_undrawable_extra_is_refused():
    rollout = Rollout.from_arrays(
        frames=random_frames(3),
        actions=[0, 1],
        extras={"q": [[1, 2], [3, 4]], "wide": np.zeros((2, 9)), "image": np.zeros((2, 3, 3))},
    )
    with pytest.raises(ValueError, match="no extra 'value' \\(it has: image, q, wide\\)"):
        EpisodeViewer(rollout, extras=["value"])
    for name in ("wide", "image"):
        with pytest.raises(ValueError, match=r"\(T, k\) as k lines \(k <= 8\)"):
            EpisodeViewer(rollout, extras=[name])


# Names and rates


def test_the_timeline_names_only_the_rewards_return_and_steps():
    frames = np.zeros((3, 2, 2, 3), np.uint8)
    assert EpisodeViewer(frames).timeline_names == {}
    names = {"reward": "episode returns", "return": "total return"}
    assert EpisodeViewer(frames, timeline_names=names).timeline_names == names
    with pytest.raises(traitlets.TraitError):
        EpisodeViewer(frames, timeline_names={"rewards": "typo"})
    with pytest.raises(traitlets.TraitError):
        EpisodeViewer(frames, timeline_names={"reward": 3})


def test_the_timeline_draws_declared_rates_on_0_to_1_and_smooths_only_when_asked():
    frames = np.zeros((3, 2, 2, 3), np.uint8)
    plain = EpisodeViewer(frames)
    assert plain.timeline_rates == []
    assert plain.timeline_smoothing is None
    curves = EpisodeViewer(frames, timeline_rates=["success rate"], timeline_smoothing=0.6)
    assert curves.timeline_rates == ["success rate"]
    assert curves.timeline_smoothing == 0.6
    for weight in (-0.1, 1.0):
        with pytest.raises(traitlets.TraitError):
            EpisodeViewer(frames, timeline_smoothing=weight)
