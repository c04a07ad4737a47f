"""What EpisodeViewer takes (a Rollout, an array or a list of frames, a stored episode)
and what it refuses, with a clear message; its traits: clamped, validated, documented,
and kept from a front end where the kernel owns them."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
import traitlets

from agent_widget.episodes import Rollout, load
from agent_widget.format._codec import CHUNK_SIZE
from agent_widget.viewer import EpisodeViewer
from tests.sample_frames import random_frames

# Input


def test_a_list_of_frames_is_an_episode():
    viewer = EpisodeViewer([np.zeros((4, 4, 3), np.uint8)] * 3)
    assert (viewer.length, viewer.has_frames, viewer.chunk_size) == (3, True, CHUNK_SIZE)


def test_the_title_defaults_to_the_env_id_algorithm_and_agent():
    rollout = Rollout.from_arrays(frames=random_frames(2), metadata={"env_id": "Pong-v5"})
    assert EpisodeViewer(rollout).title == "Pong-v5"
    assert EpisodeViewer(rollout, title="mine").title == "mine"
    named = {"env_id": "Pong-v5", "algorithm": "dqn", "agent": "mine", "seed": 3}
    rollout = Rollout.from_arrays(frames=random_frames(2), metadata=named)
    assert EpisodeViewer(rollout).title == "Pong-v5 · dqn · mine"


@pytest.mark.parametrize(
    ("episode", "problem"),
    [
        (np.zeros((0, 4, 4, 3), np.uint8), "the episode is empty"),
        ([], "the episode is empty"),
        (np.zeros((5, 4)), "expected an array \\(N, H, W, 3\\)"),
        (np.zeros((3, 4, 4, 2)), "expected an array"),
        (np.zeros((210, 160, 3), np.uint8), "looks like a single frame"),
        ([np.zeros((4, 4, 3)), np.zeros((5, 4, 3))], "frame at step 1: size changed"),
        ([np.zeros((4, 4, 3)), np.full((4, 4, 3), 2.0)], "frame at step 1: float images"),
    ],
)
def test_bad_frames_are_refused_with_a_clear_message(episode, problem):
    with pytest.raises(ValueError, match=problem):
        EpisodeViewer(episode)


def test_an_unknown_encoding_is_refused():
    with pytest.raises(ValueError, match="unknown encoding 'png'"):
        EpisodeViewer(random_frames(2), encoding="png")


def test_something_that_is_not_an_episode_is_refused():
    with pytest.raises(TypeError, match="takes a Rollout, an array of frames or a list"):
        EpisodeViewer("frames.npy")


def test_a_stored_episode_of_image_observations_opens_without_reading_them_all(tmp_path):
    n = 1000
    observations = np.zeros((n, 120, 120, 3), np.uint8)  # 43 MB: a dot moving on black
    observations[np.arange(n), np.arange(n) % 120, np.arange(n) // 120 % 120] = 255
    rollout = Rollout.from_arrays(observations=observations, actions=np.zeros(n - 1, int))
    path = rollout.save(tmp_path / "observations.rollout")
    tracemalloc.start()
    try:
        viewer = EpisodeViewer(load(path))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert viewer.has_frames
    assert peak < 8 * 2**20, peak  # taking them into ArrayFrames read all 43 MB at once
    stored = load(path)
    np.testing.assert_array_equal(viewer._episode.frames[777], stored.observations[777])


# Traits


def test_step_is_clamped_to_the_episode():
    viewer = EpisodeViewer(random_frames(10))
    viewer.step = 25
    assert viewer.step == 9
    viewer.step = -3
    assert viewer.step == 0


def test_the_front_end_moving_the_step_reaches_python():
    viewer = EpisodeViewer(random_frames(10))
    seen = []
    viewer.observe(lambda change: seen.append(change["new"]), "step")
    viewer._handle_msg(
        {"content": {"data": {"method": "update", "state": {"step": 6}}}, "buffers": []}
    )
    assert (viewer.step, seen) == (6, [6])


def test_a_front_end_cannot_set_the_traits_the_kernel_owns(caplog):
    viewer = EpisodeViewer(random_frames(40))
    panels = viewer.panels
    viewer.set_state({"length": 10**9, "panels": [{"name": "x"}], "step": 12, "fps": 5.0})
    assert (viewer.length, viewer.panels, viewer.step, viewer.fps) == (40, panels, 12, 5.0)
    assert "tried to set read-only ['length', 'panels']" in caplog.text
    viewer.set_state({"step": 10**8})
    assert viewer.step == 39  # clamped, as ever


def test_fps_must_be_positive_and_sizes_not_negative():
    with pytest.raises(traitlets.TraitError, match="fps must be a positive number"):
        EpisodeViewer(random_frames(2), fps=0)
    with pytest.raises(traitlets.TraitError, match="height must be >= 0"):
        EpisodeViewer(random_frames(2), height=-1)


def test_every_synced_trait_documents_itself():
    viewer = EpisodeViewer(random_frames(2))
    ours = [
        "step",
        "length",
        "chunk_size",
        "has_frames",
        "series",
        "action_names",
        "fps",
        "loop",
        "height",
        "scale",
        "title",
    ]
    for name in ours:
        trait = viewer.traits()[name]
        assert trait.metadata.get("sync"), name
        assert len(trait.help) > 20, name
