"""CheckpointViewer on the run of a real SB3 DQN trained on CartPole: each checkpoint's
panels computed with its own network, the seed and episode step kept across checkpoints,
the divergence where the recorded actions part, and bad weights as error cards."""

from __future__ import annotations

import base64
import json
import pathlib
import pickle
import re
import shutil

import gymnasium as gym
import numpy as np
import pytest
import torch
from torch import nn

import agent_widget
from agent_widget.checkpoints import Checkpoints, CheckpointViewer, save_weights
from agent_widget.library import RunLibrary
from agent_widget.recording import record
from agent_widget.torch import QValues
from harness.dqn_run import RUN, dqn, train

STEPS = [1000, 2000, 3000, 4000]


@pytest.fixture(scope="module")
def trained(tmp_path_factory) -> pathlib.Path:
    """The library of a DQN trained 4,000 steps, a checkpoint every 1,000 (seeds 0, 1)."""
    root = tmp_path_factory.mktemp("runs")
    train(root)
    return root


@pytest.fixture
def library(trained, tmp_path) -> RunLibrary:
    """A copy of the trained library, for a test to break its files."""
    shutil.copytree(trained, tmp_path / "runs")
    return RunLibrary(tmp_path / "runs")


def viewer_of(root, **options) -> CheckpointViewer:
    viewer = CheckpointViewer(root, RUN, model=dqn(), **options)
    viewer.add_panel("Q", QValues)
    return viewer


def q_card(viewer: CheckpointViewer, t: int):
    return viewer.episode._panels.card_now("Q", t)[1]


def test_it_is_exported_from_the_package():
    assert agent_widget.CheckpointViewer is CheckpointViewer


def test_each_checkpoints_q_card_is_its_networks_forward_pass_on_the_steps_observation(trained):
    viewer = viewer_of(trained)
    assert viewer.training_steps == STEPS
    assert viewer.seeds == [0, 1]
    checkpoints = Checkpoints(RunLibrary(trained), RUN)
    cards = []
    for index, step in enumerate(STEPS):
        viewer.checkpoint = index
        episode = checkpoints.recorded(step, viewer.seed)
        network = checkpoints.load_weights(step, dqn().policy)
        for t in (0, episode.num_steps // 2):
            card = q_card(viewer, t)
            assert card.kind == "bars", card.meta
            shown = np.frombuffer(card.buffers[0], "<f8")
            with torch.no_grad():
                expected = network.q_net(torch.as_tensor(episode.observations[t])[None])[0]
            np.testing.assert_allclose(shown, expected.numpy(), rtol=1e-6)
        cards.append(q_card(viewer, 0).buffers[0])
    assert len(set(cards)) == len(STEPS)  # three networks, three different cards
    assert viewer.networks.loads == len(STEPS)
    viewer.checkpoint = 0  # kept: not loaded again
    q_card(viewer, 1)
    assert viewer.networks.loads == len(STEPS)


def test_at_most_kept_networks_stay_loaded_least_recently_used_first_out(trained):
    viewer = viewer_of(trained, kept=2, ahead=False)  # no neighbour loaded meanwhile
    for index in (0, 1, 2):
        viewer.checkpoint = index
        q_card(viewer, 0)
    assert viewer.networks.loaded == [2000, 3000]
    viewer.checkpoint = 1
    q_card(viewer, 2)
    assert viewer.networks.loaded == [3000, 2000]


def test_the_next_checkpoint_is_prepared_while_one_is_shown(trained):
    viewer = viewer_of(trained, checkpoint=1)
    viewer._ahead.join()
    assert set(viewer.networks.loaded) == {1000, 3000}  # before and after the one shown
    after = viewer._episodes[3000, 0]
    assert after.step == viewer.episode.step
    loads = viewer.networks.loads
    viewer.checkpoint = 2
    assert viewer.episode is after  # made ahead
    assert q_card(viewer, after.step).kind == "bars"
    assert viewer.networks.loads == loads  # its card was computed ahead


def test_switching_checkpoint_keeps_the_seed_and_the_episode_step(trained):
    viewer = viewer_of(trained, checkpoint=3, seed=1)
    checkpoints = viewer.checkpoints
    t = min(checkpoints.recorded(step, 1).num_positions for step in STEPS) - 1
    viewer.episode.step = t
    for index in (0, 1, 2):
        viewer.checkpoint = index
        assert (viewer.seed, viewer.episode.step) == (1, t)
        assert viewer.episode.title == f"training step {STEPS[index]:,} · seed 1"
        shown = viewer.episode._episode
        assert np.array_equal(shown.actions, checkpoints.recorded(STEPS[index], 1).actions)
    viewer.seed = 0
    assert (viewer.training_step, viewer.episode.step) == (3000, t)


def test_a_step_past_a_shorter_episode_shows_its_end_and_comes_back_on_a_longer_one(trained):
    viewer = viewer_of(trained)
    lengths = {s: viewer.checkpoints.recorded(s, 0).num_positions for s in STEPS}
    longest, shortest = max(lengths, key=lengths.get), min(lengths, key=lengths.get)
    assert lengths[longest] > lengths[shortest]
    viewer.checkpoint = STEPS.index(longest)
    viewer.episode.step = lengths[longest] - 1
    viewer.checkpoint = STEPS.index(shortest)
    assert viewer.episode.step == lengths[shortest] - 1
    assert viewer.message == (
        f"t = {lengths[longest] - 1} is past the end of this episode: it ended at "
        f"t = {lengths[shortest] - 1}, shown"
    )
    viewer.checkpoint = STEPS.index(longest)
    assert viewer.episode.step == lengths[longest] - 1
    assert viewer.message == ""


def test_the_divergence_is_where_consecutive_checkpoints_recorded_actions_first_differ(trained):
    viewer = viewer_of(trained)
    found = []
    for seed in (0, 1):
        viewer.seed = seed
        for index, step in enumerate(STEPS):
            viewer.checkpoint = index
            if index == 0:
                assert viewer.divergence is None
                continue
            before = viewer.checkpoints.recorded(STEPS[index - 1], seed).actions
            now = viewer.checkpoints.recorded(step, seed).actions
            common = min(len(before), len(now))
            differ = np.flatnonzero(before[:common] != now[:common])
            expected = (
                int(differ[0]) if len(differ) else (None if len(before) == len(now) else common)
            )
            assert viewer.divergence == expected == viewer.episode.timeline_mark, (seed, step)
            found.append(expected)
    assert any(t is not None for t in found)  # the agent's behaviour did change


class RunsCode:
    """Unpickling this touches a file: what a pickled 'weights file' could do."""

    def __init__(self, marker: pathlib.Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (pathlib.Path.touch, (self.marker,))


def test_bad_weights_files_give_error_cards_naming_the_file_and_run_nothing(library, tmp_path):
    folder = library.open(RUN).run.path
    marker = tmp_path / "code-ran"
    (folder / "checkpoint-0000001000.safetensors").write_bytes(pickle.dumps(RunsCode(marker)))
    whole = (folder / "checkpoint-0000002000.safetensors").read_bytes()
    (folder / "checkpoint-0000002000.safetensors").write_bytes(whole[: len(whole) // 2])
    save_weights(nn.Linear(4, 2).state_dict(), folder / "checkpoint-0000003000.safetensors")
    viewer = viewer_of(library.root)
    said = {}
    for index, step in enumerate(STEPS[:3]):
        viewer.checkpoint = index
        card = q_card(viewer, 0)
        assert card.kind == "error"
        assert card.meta["error"] == "WeightsFileError"
        assert f"checkpoint-{step:010d}.safetensors" in card.meta["message"]
        said[step] = card.meta["message"]
    assert "is a pickle" in said[1000]
    assert not marker.exists()
    assert "not a whole safetensors file" in said[2000]
    assert "does not fit DQNPolicy" in said[3000]
    assert "unexpected: bias, weight" in said[3000]
    assert viewer.episode.has_frames  # the episode itself shows
    viewer.checkpoint = 3
    assert q_card(viewer, 0).kind == "bars"  # and a checkpoint with good weights loads


def test_a_missing_weights_file_is_an_error_card_and_the_others_still_load(library):
    (library.open(RUN).run.path / "checkpoint-0000002000.safetensors").unlink()
    viewer = viewer_of(library.root, checkpoint=1)
    card = q_card(viewer, 0)
    assert card.kind == "error"
    assert "is missing" in card.meta["message"]
    viewer.checkpoint = 2
    assert q_card(viewer, 0).kind == "bars"


def test_a_run_mixing_envs_is_refused_naming_each_env(library):
    acrobot = record(gym.make("Acrobot-v1"), lambda obs: 0, seed=0, max_steps=5)
    acrobot.metadata.update(training_step=5000, checkpoint=None)
    library.add([acrobot], env_id="CartPole-v1", algorithm="DQN", run="dqn")
    mixed = (
        r"the run mixes envs \(CartPole-v1 at training steps \[1000, 2000, 3000, 4000\]; "
        r"Acrobot-v1 at training steps \[5000\]\)"
    )
    with pytest.raises(ValueError, match=mixed):
        CheckpointViewer(library, RUN)


def test_panels_need_a_model_and_a_library_needs_a_run(trained):
    viewer = CheckpointViewer(trained, RUN)
    with pytest.raises(ValueError, match="pass model="):
        viewer.add_panel("Q", QValues)
    with pytest.raises(ValueError, match="name the run"):
        CheckpointViewer(trained)


def test_its_saved_copy_says_what_is_shown_and_pictures_the_step(trained):
    viewer = viewer_of(trained, checkpoint=1, seed=1)
    data, _ = viewer._repr_mimebundle_()
    assert data["text/plain"].startswith(
        "CheckpointViewer: DQN on CartPole-v1 · run dqn, "
        "training step 2,000, seed 1 of 4 checkpoints"
    )
    assert data["image/png"]


def page_data(page: str) -> dict:
    start = page.index('id="agent-widget-data">') + len('id="agent-widget-data">')
    return json.loads(page[start : page.index("</script>", start)])


def test_its_page_holds_each_chosen_episode_with_its_checkpoints_cards(trained):
    viewer = viewer_of(trained, checkpoint=3, seed=1)
    page = viewer.to_html(steps=[1000, 4000], progress=False)
    data = page_data(page)
    assert data["widget"] == "checkpoints"
    assert data["state"]["training_steps"] == STEPS
    assert data["state"]["seed"] == 1
    keys = {key: entry["child"] for key, entry in data["episodes"].items()}
    assert keys == {"0/0": 0, "0/1": 1, "3/0": 2, "3/1": 3}
    assert data["state"]["episode"] == "IPY_MODEL_3"  # the episode shown
    assert data["episodes"]["3/1"]["divergence"] == viewer.divergence
    for i, step in ((1, 1000), (3, 4000)):
        child = data["children"][i]["state"]
        assert child["title"] == f"training step {step:,} · seed 1"
        assert [panel["name"] for panel in child["panels"]] == ["Q"]
    block = re.search(r'id="agent-widget-block-1-0">(.*?)</script>', page)
    assert block is not None
    meta, buffers = json.loads(block.group(1))["cards"]["Q"][0]
    assert meta["kind"] == "bars"
    viewer.checkpoint = 0
    expected = q_card(viewer, 0)
    assert base64.b64decode(buffers[0]) == expected.buffers[0]  # computed with step 1000's network


def test_a_page_of_checkpoints_the_run_has_not_is_refused(trained):
    with pytest.raises(KeyError, match=r"no checkpoint at training steps \[1500\]"):
        viewer_of(trained).to_html(steps=[1500], progress=False)
