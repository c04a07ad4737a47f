"""RecordCheckpoints in a real Stable-Baselines3 DQN's training on CartPole."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
import torch
from stable_baselines3 import DQN
from stable_baselines3.common.callbacks import BaseCallback, CallbackList
from stable_baselines3.common.env_util import make_vec_env

from agent_widget.checkpoints import Checkpoints
from agent_widget.library import RunLibrary
from agent_widget.recording import record
from agent_widget.sb3 import RecordCheckpoints

EVERY, STEPS, SEEDS = 1_000, 3_000, [0, 1]
RUN = "CartPole-v1/DQN/dqn"


class QValuesThen(BaseCallback):
    """Keeps the model's Q-values of ``probe`` at every checkpoint, as they were then
    (called after RecordCheckpoints at the same step: training has moved on since)."""

    def __init__(self, probe: torch.Tensor) -> None:
        super().__init__()
        self.probe, self.seen = probe, {}

    def _on_step(self) -> bool:
        if self.num_timesteps % EVERY == 0:
            with torch.no_grad():
                self.seen[self.num_timesteps] = self.model.q_net(self.probe).clone()
        return True


def dqn() -> DQN:
    return DQN("MlpPolicy", "CartPole-v1", learning_starts=500, seed=0, device="cpu")


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """A DQN trained 3,000 steps with a checkpoint every 1,000 (on one thread: a network
    this small only loses time to a second one on a busy machine)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield _train(tmp_path_factory)
    finally:
        torch.set_num_threads(threads)


def _train(tmp_path_factory) -> tuple[RunLibrary, QValuesThen]:
    library = RunLibrary(tmp_path_factory.mktemp("runs"))
    probe = torch.as_tensor(np.random.default_rng(0).normal(size=(32, 4)), dtype=torch.float32)
    q_values = QValuesThen(probe)
    model = dqn()
    checkpoints = RecordCheckpoints(
        "CartPole-v1", every=EVERY, seeds=SEEDS, library=library, run="dqn"
    )
    model.learn(STEPS, callback=CallbackList([checkpoints, q_values]))
    return library, q_values


def test_the_run_holds_one_episode_per_seed_per_checkpoint(trained):
    library, _ = trained
    episodes = library.open(RUN)
    found = sorted((e.metadata["training_step"], e.metadata["seed"]) for e in episodes)
    assert found == [(step, seed) for step in (1000, 2000, 3000) for seed in SEEDS]
    assert {e.metadata["algorithm"] for e in episodes} == {"DQN"}
    assert all(e.frames is None and e.observations is not None for e in episodes)
    files = sorted(p.name for p in library.open(RUN).run.path.glob("*.safetensors"))
    assert files == [f"checkpoint-{s:010d}.safetensors" for s in (1000, 2000, 3000)]


def test_a_checkpoints_weights_give_the_q_values_of_the_model_at_that_step(trained):
    library, q_values = trained
    checkpoints = Checkpoints(library, RUN)
    assert checkpoints.steps == sorted(q_values.seen)
    for step, then in q_values.seen.items():
        fresh = dqn()
        checkpoints.load_weights(step, fresh.policy)
        with torch.no_grad():
            assert torch.equal(fresh.q_net(q_values.probe), then), step
    assert not torch.equal(q_values.seen[1000], q_values.seen[3000])  # it learned


def test_frames_rendered_by_replay_are_those_recorded_with_rendering(trained):
    library, _ = trained
    checkpoints = Checkpoints(library, RUN)
    model = checkpoints.load_weights(2000, dqn().policy)
    policy = lambda obs: model.predict(obs, deterministic=True)[0]  # noqa: E731
    for seed in SEEDS:
        rendered = record(gym.make("CartPole-v1", render_mode="rgb_array"), policy, seed=seed)
        replayed = checkpoints.episode(2000, seed)
        assert np.array_equal(replayed.actions, rendered.actions)
        assert len(replayed.frames) == len(rendered.frames)
        for t in range(rendered.num_positions):
            assert np.array_equal(replayed.frames[t], rendered.frames[t]), (seed, t)


def test_every_must_be_a_positive_whole_number(tmp_path):
    for every in (0, 2.5, True):
        with pytest.raises(ValueError, match="every must be a whole number"):
            RecordCheckpoints("CartPole-v1", every=every, library=tmp_path)


def test_with_several_envs_a_checkpoint_is_taken_at_the_first_step_past_each_multiple(tmp_path):
    """Four envs count four steps at a time: past 250 comes 252; learning again from
    where it stopped goes on from there, into the same run."""
    library = RunLibrary(tmp_path)
    model = DQN("MlpPolicy", make_vec_env("CartPole-v1", n_envs=4, seed=0), seed=0, device="cpu")
    callback = RecordCheckpoints("CartPole-v1", every=250, seeds=[3], library=library, run="dqn")
    model.learn(600, callback=callback)
    assert Checkpoints(library, RUN).steps == [252, 500]
    model.learn(200, callback=callback, reset_num_timesteps=False)
    assert Checkpoints(library, RUN).steps == [252, 500, 752]


def stacked_cartpole() -> gym.Env:
    """CartPole seen as its last 2 observations, flattened (8 numbers)."""
    env = gym.wrappers.FrameStackObservation(gym.make("CartPole-v1"), 2)
    return gym.wrappers.FlattenObservation(env)


def dqn_on(env: gym.Env) -> DQN:
    return DQN("MlpPolicy", env, learning_starts=100, seed=0, device="cpu")


def test_the_run_remembers_its_wrapped_env_for_the_viewer_the_next_morning(tmp_path):
    """A training on a wrapped env; the viewer opened later, given nothing but the run,
    makes the env again (id and gymnasium's wrappers, from the episodes) to render the
    frames, and its Q-values panel reads the stacked observations."""
    from agent_widget.checkpoints import CheckpointViewer
    from agent_widget.torch import QValues

    model = dqn_on(stacked_cartpole())
    callback = RecordCheckpoints(stacked_cartpole, every=200, seeds=[0], library=tmp_path)
    model.learn(400, callback=callback)
    run = f"CartPole-v1/DQN/{callback.recorder.run}"
    spec = RunLibrary(tmp_path).open(run)[0].metadata["env_spec"]
    assert [w["name"] for w in spec["additional_wrappers"]] == [
        "FrameStackObservation",
        "FlattenObservation",
    ]
    viewer = CheckpointViewer(tmp_path, run, model=dqn_on(stacked_cartpole()))
    viewer.add_panel("Q", QValues)
    episode = viewer.episode
    assert viewer.message == ""
    assert episode.rollout.frames[0].shape == (400, 600, 3)
    assert len(episode.rollout.frames) == episode.length
    then = viewer.checkpoints.load_weights(viewer.training_step, dqn_on(stacked_cartpole()).policy)
    with torch.no_grad():
        expected = then.q_net(torch.as_tensor(episode.rollout.observations[1])[None])[0].numpy()
    np.testing.assert_allclose(np.asarray(episode.card("Q", 1)), expected, rtol=1e-5)
