"""A viewer read from a script: ``viewer.rollout`` (what is shown, steps appended live
included) and ``viewer.card(name, t)`` (what a panel's function returned there)."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import numpy as np
import pytest
import torch

from agent_widget import record
from agent_widget.episodes import Rollout
from agent_widget.panels import Step
from agent_widget.torch import QValues
from agent_widget.viewer import EpisodeViewer
from tests.cartpole import cartpole, lean
from tests.panel_comm import Outbox, ask

pytestmark = pytest.mark.usefixtures("empty_panel_registry")


@pytest.fixture(scope="module")
def episode() -> Rollout:
    """A CartPole episode with frames (about 30 steps of the leaning policy)."""
    return record(cartpole(), lean, seed=0)


@pytest.fixture
def viewer(episode: Rollout) -> Iterator[EpisodeViewer]:
    viewer = EpisodeViewer(episode)
    yield viewer
    viewer.close()


def q_net() -> torch.nn.Module:
    torch.manual_seed(0)
    return torch.nn.Linear(4, 2)


# card(): the panel function's own value


def test_card_is_what_the_panel_function_returned_at_the_step(viewer, episode):
    net = q_net()
    viewer.add_panel("Q", QValues(net))
    bars = viewer.card("Q", 7)
    expected = net(torch.as_tensor(episode.observations[7])).detach().numpy()
    assert type(bars).__name__ == "ActionBars"  # the panel's value, not the encoded card
    np.testing.assert_allclose(np.asarray(bars), expected, rtol=1e-6)
    assert bars.taken == int(episode.actions[7])


def test_card_reads_the_step_shown_by_default(viewer):
    viewer.add_panel("t", lambda step: step.t)
    viewer.step = 12
    assert viewer.card("t") == 12
    assert viewer.card("t", -1) == viewer.length - 1


def test_card_uses_the_value_the_view_computed(viewer, monkeypatch):
    calls = []
    viewer.add_panel("obs", lambda step: calls.append(step.t) or step.obs)
    outbox = Outbox()
    monkeypatch.setattr(viewer, "send", outbox)
    ask(viewer, 5, ["obs"])  # a front end shows step 5
    outbox.wait(1)
    np.testing.assert_array_equal(viewer.card("obs", 5), viewer.rollout.observations[5])
    assert calls == [5]  # computed once, for the view


def test_card_of_an_unknown_panel_names_the_panels_there(viewer):
    viewer.add_panel("Q", QValues(q_net()))
    with pytest.raises(KeyError, match=r"no panel 'q' \(it has: 'Q'\)"):
        viewer.card("q")


def test_card_of_a_panel_that_raised_raises_its_exception(viewer):
    def broken(step: Step) -> None:
        raise ValueError(f"no value at {step.t}")

    viewer.add_panel("broken", broken)
    with pytest.raises(ValueError, match="no value at 3") as raised:
        viewer.card("broken", 3)
    assert raised.traceback[-1].name == "broken"  # its own traceback, down to the raise


def test_card_of_a_position_out_of_range_says_the_range(viewer):
    viewer.add_panel("t", lambda step: step.t)
    last = viewer.length - 1
    with pytest.raises(IndexError, match=rf"no position 999: the episode has 0 to {last}"):
        viewer.card("t", 999)


def test_card_past_the_panel_time_limit_is_a_timeout_error(viewer):
    release = threading.Event()
    viewer.add_panel("stuck", lambda step: release.wait() and step.t, timeout=0.2)
    try:
        with pytest.raises(TimeoutError, match=r"panel 'stuck' at step 2: no answer after 0.2 s"):
            viewer.card("stuck", 2)
    finally:
        release.set()


# rollout: what is shown


def test_rollout_is_the_episode_given(viewer, episode):
    assert viewer.rollout is episode


def test_rollout_of_frames_alone_holds_them(episode):
    frames = np.stack([episode.frames[t] for t in range(3)])
    rollout = EpisodeViewer(frames).rollout
    assert rollout.num_positions == 3
    np.testing.assert_array_equal(rollout.frames[2], frames[2])


def test_rollout_holds_the_steps_appended_live(episode):
    viewer = EpisodeViewer(Rollout.from_arrays(
        frames=[episode.frames[0]], observations=episode.observations[:1],
        metadata=episode.metadata,
    ))  # fmt: skip
    for t in range(episode.num_steps):
        viewer.append(
            frame=episode.frames[t + 1],
            action=episode.actions[t],
            reward=episode.rewards[t],
            terminated=episode.terminated[t],
            truncated=episode.truncated[t],
            obs=episode.observations[t + 1],
        )
    rollout = viewer.rollout
    assert rollout.num_positions == episode.num_positions
    np.testing.assert_array_equal(rollout.actions, episode.actions)
    np.testing.assert_array_equal(rollout.rewards, episode.rewards)
    np.testing.assert_array_equal(rollout.terminated, episode.terminated)
    np.testing.assert_array_equal(rollout.observations, episode.observations)
    np.testing.assert_array_equal(rollout.frames[-1], episode.frames[-1])
    assert rollout.metadata["env_id"] == "CartPole-v1"


def test_rollout_taken_stays_as_it_was_when_more_steps_come(episode):
    viewer = EpisodeViewer(Rollout.from_arrays(frames=[episode.frames[0]]))
    viewer.append(frame=episode.frames[1], action=0, reward=1.0)
    taken = viewer.rollout
    viewer.append(frame=episode.frames[2], action=1, reward=1.0)
    assert (taken.num_positions, len(taken.frames)) == (2, 2)
    assert viewer.rollout.num_positions == 3
