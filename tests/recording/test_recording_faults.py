"""Recording a misbehaving env or agent: what goes wrong at step t is kept at step t,
an exception loses none of the steps before it, and the recorder is never wedged.
Also: RecordRollout is a wrapper gymnasium's own checks accept, and recording holds
frames and image observations encoded (memory grows by the encoded size)."""

from __future__ import annotations

import gc
import re
import tracemalloc
import weakref
import zipfile
from typing import ClassVar

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from agent_widget.episodes import Rollout, load
from agent_widget.episodes._checked_input import MAX_INFO_DEPTH
from agent_widget.format import EncodedArray, FrameRows
from agent_widget.library import RunLibrary
from agent_widget.recording import RecordRollout, record, record_vector
from agent_widget.viewer import EpisodeViewer
from tests.cartpole import cartpole, lean


def pong() -> gym.Env:
    ale_py = pytest.importorskip("ale_py")
    gym.register_envs(ale_py)
    return gym.make("ALE/Pong-v5", render_mode="rgb_array")


class Faulty(gym.Wrapper):
    """A real env that goes wrong at step ``at``: ``reward`` replaces its reward there,
    ``frame`` its rendered frame from there on, ``raises`` is raised by its step."""

    def __init__(self, env, at, *, reward=None, frame=None, raises=None):
        super().__init__(env)
        self.at, self.reward, self.frame, self.raises = at, reward, frame, raises
        self.t = 0

    def reset(self, **kwargs):
        self.t = 0
        return self.env.reset(**kwargs)

    def step(self, action):
        if self.raises is not None and self.t == self.at:
            raise self.raises
        obs, reward, terminated, truncated, info = self.env.step(action)
        if self.reward is not None and self.t == self.at:
            reward = self.reward
        self.t += 1
        return obs, reward, terminated, truncated, info

    def render(self):
        if self.frame is not None and self.t > self.at:
            return self.frame
        return self.env.render()


# ------------------------------------------------------------------ a wrapper like gymnasium's


@pytest.mark.parametrize(
    "make",
    [
        cartpole,
        lambda: gym.make("FrozenLake-v1", render_mode="rgb_array"),
        lambda: gym.make("Pendulum-v1", render_mode="rgb_array"),
        pong,
    ],
    ids=["CartPole", "FrozenLake", "Pendulum", "Pong"],
)
def test_gymnasiums_check_env_accepts_the_wrapper_and_sees_the_envs_metadata(make):
    env = make()
    wrapped = RecordRollout(env)
    assert wrapped.metadata == env.metadata
    assert wrapped.metadata["render_fps"] == env.metadata["render_fps"]
    assert (wrapped.spec.id, wrapped.render_mode) == (env.spec.id, env.render_mode)
    assert wrapped.spec.additional_wrappers[-1].name == "RecordRollout"
    assert (wrapped.action_space, wrapped.observation_space) == (
        env.action_space,
        env.observation_space,
    )
    check_env(wrapped, skip_render_check=False)


# ------------------------------------------------------------------ bad values, kept at their step


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_a_non_finite_reward_is_kept_at_its_step_and_the_wrapper_goes_on(bad):
    env = RecordRollout(Faulty(cartpole(), at=9, reward=bad))
    obs, _ = env.reset(seed=0)
    for _ in range(12):
        obs, *_ = env.step(lean(obs))
    current = env.current
    assert current.num_steps == 12
    assert np.isnan(current.rewards[9]) if np.isnan(bad) else current.rewards[9] == bad
    assert np.isfinite(np.delete(current.rewards, 9)).all()
    rollout = env.end_episode()
    assert rollout.num_steps == 12
    env.reset(seed=1)  # not wedged
    env.step(0)
    assert env.current.num_steps == 1


def test_a_non_finite_reward_survives_a_save_and_the_library_refuses_it_clearly(tmp_path):
    rollout = record(Faulty(cartpole(), at=5, reward=np.nan), lean, seed=0, max_steps=20)
    path = rollout.save(tmp_path / "nan.rollout")
    assert np.isnan(load(path).rewards[5])
    lib = RunLibrary(tmp_path / "runs")
    with pytest.raises(ValueError, match=r"episode 0 cannot be added: the reward at step 5 is nan"):
        lib.add(rollout, algorithm="lean")
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").rglob("*.rollout"))


def test_a_frame_whose_size_changes_is_kept_at_its_new_size():
    small = np.full((40, 60, 3), 7, np.uint8)
    rollout = record(Faulty(cartpole(), at=10, frame=small), lean, seed=0, max_steps=30)
    assert rollout.frames[10].shape == (400, 600, 3)
    assert rollout.frames[11].shape == (40, 60, 3)
    assert np.array_equal(rollout.frames[30], small)
    assert len(rollout.frames) == rollout.num_positions == 31


class NoFrameAt(gym.Wrapper):
    """A real env whose render() returns None after step ``at`` (and only then)."""

    def __init__(self, env, at):
        super().__init__(env)
        self.at, self.t = at, 0

    def reset(self, **kwargs):
        self.t = 0
        return self.env.reset(**kwargs)

    def step(self, action):
        self.t += 1
        return self.env.step(action)

    def render(self):
        return None if self.t == self.at else self.env.render()


def test_a_missing_frame_is_kept_as_missing_and_survives_a_save(tmp_path):
    rollout = record(NoFrameAt(cartpole(), at=6), lean, seed=0, max_steps=20)
    assert len(rollout.frames) == rollout.num_positions == 21
    assert rollout.frames[6].shape == (0, 0, 3)
    assert [f.shape for f in rollout.frames].count((0, 0, 3)) == 1
    reference = record(cartpole(), lean, seed=0, max_steps=20)
    assert np.array_equal(rollout.frames[7], reference.frames[7])
    [missing] = [p for p in rollout.frames.chunk(0) if p.height == 0]
    assert (missing.start, missing.count, missing.encoding, missing.payload) == (6, 1, "raw", b"")
    loaded = load(rollout.save(tmp_path / "missing.rollout"))
    assert loaded.frames[6].shape == (0, 0, 3)
    assert np.array_equal(loaded.frames[20], reference.frames[20])


class Typed(gym.Env):
    """An env whose actions are words (a ``Text`` space, as in text games and LLM agents):
    the reward is the word's length."""

    metadata: ClassVar = {"render_modes": ["rgb_array"], "render_fps": 4}
    action_space = gym.spaces.Text(max_length=8)
    observation_space = gym.spaces.Box(0, 8, (1,), np.float32)
    render_mode = "rgb_array"

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.t = 0
        return np.zeros(1, np.float32), {}

    def step(self, action):
        self.t += 1
        return np.full(1, len(action), np.float32), float(len(action)), False, self.t == 3, {}

    def render(self):
        return np.full((4, 4, 3), self.t * 60, np.uint8)


def test_text_actions_are_kept_as_text_saved_and_read_out(tmp_path):
    words = iter(["go", "wait", "<b>x</b>"])
    rollout = record(Typed(), lambda obs: next(words), seed=0)
    assert rollout.actions.tolist() == ["go", "wait", "<b>x</b>"]
    assert rollout.rewards.tolist() == [2.0, 4.0, 8.0]
    loaded = load(rollout.save(tmp_path / "words.rollout"))
    assert loaded.actions.tolist() == ["go", "wait", "<b>x</b>"]
    with zipfile.ZipFile(tmp_path / "words.rollout") as archive:
        assert archive.read("actions.npy")[:6] == b"\x93NUMPY"  # a plain .npy, no pickle
    viewer = EpisodeViewer(loaded)
    assert [viewer._episode.action_text(t) for t in range(4)] == ["go", "wait", "<b>x</b>", ""]


def test_an_object_array_of_actions_is_still_refused_clearly():
    with pytest.raises(ValueError, match="actions: expected a per-step numeric array"):
        Rollout.from_arrays(actions=np.array([{"a": 1}], dtype=object), rewards=[0.0])


# ------------------------------------------------------------------ exceptions lose nothing


class Boom(Exception):
    pass


def test_a_policy_that_raises_leaves_the_steps_before_it_on_the_exception():
    def policy(obs):
        policy.calls += 1
        if policy.calls == 13:
            raise Boom("the agent broke")
        return lean(obs)

    policy.calls = 0
    with pytest.raises(Boom) as caught:
        record(cartpole(), policy, seed=0)
    partial = caught.value.rollout
    assert isinstance(partial, Rollout)
    assert partial.num_steps == 12
    assert len(partial.frames) == 13
    assert partial.truncated[-1]
    assert not partial.terminated[-1]
    assert any("12 steps recorded" in note for note in caught.value.__notes__)


@pytest.mark.parametrize("error", [Boom("the env broke"), KeyboardInterrupt()])
def test_an_env_that_raises_or_ctrl_c_leaves_the_steps_before_it(error):
    with pytest.raises(type(error)) as caught:
        record(Faulty(cartpole(), at=7, raises=error), lean, seed=0)
    assert caught.value.rollout.num_steps == 7
    reference = record(cartpole(), lean, seed=0, max_steps=7)
    assert np.array_equal(caught.value.rollout.observations, reference.observations)


def test_the_wrapper_keeps_the_episode_an_env_error_interrupted_and_starts_anew():
    env = RecordRollout(Faulty(cartpole(), at=4, raises=Boom("the env broke")))
    obs, _ = env.reset(seed=0)
    for _ in range(4):
        obs, *_ = env.step(lean(obs))
    with pytest.raises(Boom):
        env.step(lean(obs))
    assert env.current.num_steps == 4
    env.reset(seed=0)  # files the interrupted episode, marked truncated
    assert [r.num_steps for r in env.rollouts] == [4]
    assert env.rollouts[0].truncated[-1]


def test_extras_that_change_names_are_refused_before_the_env_steps():
    env = RecordRollout(cartpole())
    env.reset(seed=0)
    env.record_extras(q=1.0)
    env.step(0)
    env.record_extras(other=1.0)
    with pytest.raises(ValueError, match=r"step 1: extras \['other'\] differ"):
        env.step(0)
    env.record_extras(q=2.0)
    env.step(1)  # the refused step never reached the env: this is step 1
    rollout = env.current
    assert rollout.num_steps == 2
    assert rollout.extras["q"].tolist() == [1.0, 2.0]


def test_record_vector_leaves_the_episodes_before_an_error_on_it():
    envs = gym.make_vec("CartPole-v1", num_envs=2, vectorization_mode="sync")
    calls = []

    def policy(obs):
        calls.append(1)
        if len(calls) == 6:
            raise Boom("the batch policy broke")
        return (obs[:, 2] > 0).astype(int)

    with pytest.raises(Boom) as caught:
        record_vector(envs, policy, seed=0)
    assert [r.num_steps for r in caught.value.rollouts] == [5, 5]
    assert [r.metadata["seed"] for r in caught.value.rollouts] == [0, 1]


# ------------------------------------------------------------------ held encoded


def test_recording_pong_holds_frames_encoded_and_observations_as_the_frames(tmp_path):
    rollout = record(pong(), lambda obs: 2, seed=0, max_steps=100)
    assert isinstance(rollout.observations, FrameRows)  # Pong's observation is its screen
    raw = 101 * 210 * 160 * 3
    # Encoded: a few hundred bytes a position, plus the open chunk held raw (5 frames).
    assert rollout.frames.nbytes < raw / 10
    assert np.array_equal(rollout.observations[57], rollout.frames[57])
    assert np.array_equal(np.asarray(rollout.observations)[100], rollout.frames[100])
    loaded = load(rollout.save(tmp_path / "pong.rollout"))
    assert np.array_equal(np.asarray(loaded.observations), np.asarray(rollout.observations))
    with zipfile.ZipFile(tmp_path / "pong.rollout") as archive:
        stored = archive.getinfo("chunks.bin").file_size
    frames = sum(len(p.payload) for k in range(7) for p in rollout.frames.chunk(k))
    # The observations are stored as the frames, once; each chunk adds its infos and its
    # journal record (a few hundred bytes, so a cut file keeps its chunks).
    assert stored < frames + 7 * 500


def test_observations_that_stop_being_the_frame_are_held_encoded_from_there():
    small = np.full((40, 60, 3), 7, np.uint8)
    env = Faulty(pong(), at=20, frame=small)  # frames change; observations stay the screen
    rollout = record(env, lambda obs: 2, seed=0, max_steps=40)
    assert isinstance(rollout.observations, EncodedArray)
    assert rollout.observations.nbytes < 41 * 210 * 160 * 3 / 4
    assert np.array_equal(rollout.observations[20], rollout.frames[20])
    assert rollout.frames[21].shape == (40, 60, 3)
    assert rollout.observations[21].shape == (210, 160, 3)
    reference = record(pong(), lambda obs: 2, seed=0, max_steps=40)
    assert np.array_equal(np.asarray(rollout.observations), np.asarray(reference.observations))


def test_from_arrays_lets_go_of_the_callers_array_and_never_materializes_an_iterator():
    frames = np.random.default_rng(0).integers(0, 255, (40, 64, 64, 3), dtype=np.uint8)
    alive = weakref.ref(frames.base if frames.base is not None else frames)
    rollout = Rollout.from_arrays(frames=frames[:, ::1])  # a view: its rows are views too
    del frames
    gc.collect()
    assert alive() is None  # the last, open chunk holds copies, not views of the array
    assert rollout.frames[39].shape == (64, 64, 3)

    def screens():  # 300 Pong-sized frames: 30 MB raw
        for t in range(300):
            screen = np.zeros((210, 160, 3), np.uint8)
            screen[t % 200 : t % 200 + 10, 40:50] = 255
            yield screen

    tracemalloc.start()
    rollout = Rollout.from_arrays(frames=screens())
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert rollout.num_positions == 300
    assert peak < 16 * 210 * 160 * 3 * 2  # about one chunk raw at a time, never all 300


class OddAt(gym.Wrapper):
    """An env whose step ``at`` returns ``value`` as its reward (or as a flag)."""

    def __init__(self, env, at, value, field="reward"):
        super().__init__(env)
        self.at, self.value, self.field, self.t = at, value, field, 0

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(action)
        self.t += 1
        if self.t == self.at:
            fields = {"reward": reward, "terminated": terminated, "truncated": truncated}
            fields[self.field] = self.value
            reward, terminated, truncated = fields.values()
        return obs, reward, terminated, truncated, info


@pytest.mark.parametrize(
    ("field", "value", "shown"),
    [
        ("reward", "lots", "'lots' (str)"),
        ("reward", None, "None (NoneType)"),
        ("reward", np.ones(2), "array([1., 1.]) (ndarray)"),
        ("terminated", np.array([True, False]), "array([ True, False]) (ndarray)"),
    ],
)
def test_a_value_that_cannot_be_stored_names_its_step_and_keeps_the_steps_before(
    tmp_path, field, value, shown
):
    path = tmp_path / "ep.rollout"
    env = OddAt(gym.make("MountainCar-v0"), at=31, value=value, field=field)
    with pytest.raises(ValueError, match=rf"step 30: .*{field} is {re.escape(shown)}") as caught:
        record(env, lambda obs: 1, seed=0, path=path)
    kept = caught.value.rollout
    assert kept.num_steps == 30
    assert kept.truncated[-1]
    assert load(path).actions.tolist() == kept.actions.tolist() == [1] * 30
    wrapper = RecordRollout(OddAt(gym.make("MountainCar-v0"), at=31, value=value, field=field))
    wrapper.reset(seed=0)
    with pytest.raises(ValueError, match="step 30"):
        [wrapper.step(1) for _ in range(40)]
    assert wrapper.current is not None
    assert wrapper.current.num_steps == 30


class OddInfoAt(gym.Wrapper):
    """An env whose step ``at`` returns ``info`` as its info."""

    def __init__(self, env, at, info):
        super().__init__(env)
        self.at, self.info, self.t = at, info, 0

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(action)
        self.t += 1
        return obs, reward, terminated, truncated, self.info if self.t == self.at else info


class Unlistable(dict):
    def items(self):
        raise RuntimeError("a mapping that will not be listed")


class Unnamable:
    def __str__(self):
        raise RuntimeError("a key that will not be named")


def nested(depth: int) -> dict:
    outer = inner = {}
    for _ in range(depth):
        inner["x"] = inner = {}
    return outer


@pytest.mark.parametrize(
    ("info", "dropped"),
    [
        ({"deep": nested(500), "fine": 1}, "'deep' (first at step 6)"),
        ({"odd": Unlistable(a=1), "fine": 1}, "'odd' (first at step 6)"),
        ({Unnamable(): 1, "fine": 1}, "'Unnamable' (first at step 6)"),
    ],
    ids=["nested-500-deep", "items-raises", "key-str-raises"],
)
def test_an_info_that_cannot_be_stored_is_dropped_and_the_episode_kept(tmp_path, info, dropped):
    path = tmp_path / "ep.rollout"
    with pytest.warns(UserWarning, match=re.escape(dropped)):
        rollout = record(OddInfoAt(cartpole(None), at=6, info=info), lean, seed=0, path=path)
    assert load(path).num_steps == rollout.num_steps > 6
    assert rollout.infos[6] == {"fine": 1}
    assert load(path).infos[6] == {"fine": 1}


def test_an_info_at_the_depth_limit_is_kept_whole(tmp_path):
    path = tmp_path / "ep.rollout"
    info = {"deep": nested(MAX_INFO_DEPTH - 1)}
    rollout = record(OddInfoAt(cartpole(None), at=6, info=info), lean, seed=0, path=path)
    assert load(path).infos[6] == rollout.infos[6] == info
