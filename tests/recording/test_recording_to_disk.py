"""Recording straight to disk: ``record(path=...)``, ``RecordRollout(directory=...)`` and
``record_vector(directory=...)`` write each episode as it is recorded, let go of what
they wrote, and a run killed at any moment leaves a file that loads up to its last
whole chunk."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys

import gymnasium as gym
import numpy as np
import pytest

from agent_widget.episodes import load
from agent_widget.format._codec import CHUNK_SIZE
from agent_widget.format._lazy_columns import StoredFrames
from agent_widget.library import RunLibrary
from agent_widget.recording import RecordRollout, record, record_vector
from agent_widget.recording._encoder._ring import SLOTS
from tests.cartpole import cartpole, lean, with_angle


def mountain_car() -> gym.Env:
    """An episode as long as asked: the car rocks but never reaches the flag."""
    return gym.make("MountainCar-v0", render_mode="rgb_array", max_episode_steps=1000)


lean_noting_angle = with_angle(lean)


def assert_same_episode(got, want, positions=None):
    n = want.num_positions if positions is None else positions
    assert got.num_positions == n
    for t in range(n):
        np.testing.assert_array_equal(got.frames[t], want.frames[t], err_msg=f"frame {t}")
        assert got.infos[t] == want.infos[t]
    np.testing.assert_array_equal(np.asarray(got.observations), np.asarray(want.observations)[:n])
    steps = n - 1
    np.testing.assert_array_equal(got.actions, want.actions[:steps])
    np.testing.assert_array_equal(got.rewards, want.rewards[:steps])
    np.testing.assert_array_equal(got.extras["angle"], want.extras["angle"][:steps])


def test_record_to_a_path_writes_the_episode_it_returns(tmp_path):
    in_memory = record(cartpole(), lean_noting_angle, seed=3, agent="lean")
    on_disk = record(
        cartpole(), lean_noting_angle, seed=3, agent="lean", path=tmp_path / "ep.rollout"
    )
    assert isinstance(on_disk.frames, StoredFrames)  # read from the file
    assert_same_episode(on_disk, in_memory)
    assert_same_episode(load(tmp_path / "ep.rollout"), in_memory)
    np.testing.assert_array_equal(on_disk.terminated, in_memory.terminated)
    assert on_disk.metadata["agent"] == "lean"
    assert "recovered" not in on_disk.metadata


def test_what_was_written_is_let_go_and_read_back_from_the_file(tmp_path):
    env = RecordRollout(mountain_car(), directory=tmp_path)
    reference = RecordRollout(mountain_car())
    for recorder in (env, reference):
        recorder.reset(seed=0)
        for t in range(400):
            recorder.step([0, 2][(t // 30) % 2])  # rocks back and forth
    # Held: the one frame of the chunk being filled (position 400), raw, and the first
    # bytes of its stream, and the chunks the encoder process may still have had (they
    # are written once back); the reference holds 25 chunks encoded besides.
    in_flight = SLOTS // CHUNK_SIZE
    largest = max(sum(len(p.payload) for p in reference.current.frames.chunk(k)) for k in range(25))
    assert 400 * 600 * 3 <= env.current.frames.nbytes < 400 * 600 * 3 + 1000 + in_flight * largest
    assert reference.current.frames.nbytes > 400 * 600 * 3 + 25 * 4000
    held_infos = sum(info is not None for info in env._episode.infos)
    assert held_infos <= (2 + in_flight) * 16  # the chunks not written yet; the others read back
    current = env.current
    assert list(current.infos) == list(reference.current.infos)
    for t in (0, 17, 200, 399, 400):
        np.testing.assert_array_equal(current.frames[t], reference.current.frames[t])
    np.testing.assert_array_equal(np.asarray(current.observations), reference.current.observations)
    # Dropped unfinished, the recorder leaves its file as a killed one would: every
    # chunk written, which is every whole one but those still with the encoder process.
    del env, current
    gc.collect()
    with pytest.warns(UserWarning, match="stopped before the end"):
        kept = load(tmp_path / "episode-000.rollout").num_positions
    assert kept % CHUNK_SIZE == 0
    assert 400 - in_flight * CHUNK_SIZE <= kept <= 400


def test_each_episode_of_a_directory_gets_its_own_file_and_an_empty_one_none(tmp_path):
    env = RecordRollout(cartpole(), directory=tmp_path / "runs", algorithm="lean")
    for seed in (0, 1):
        obs, _ = env.reset(seed=seed)
        done = False
        while not done:
            action, extras = lean_noting_angle(obs)
            env.record_extras(**extras)
            obs, _, terminated, truncated, _ = env.step(action)
            done = terminated or truncated
    env.reset(seed=2)
    env.reset(seed=3)  # the episode of seed 2 took no action: nothing is kept of it
    files = sorted(p.name for p in (tmp_path / "runs").iterdir())
    assert files == ["episode-000.rollout", "episode-001.rollout", "episode-002.rollout"]
    assert [r.metadata["seed"] for r in env.rollouts] == [0, 1]
    for rollout, seed in zip(env.rollouts, (0, 1), strict=True):
        assert_same_episode(rollout, record(cartpole(), lean_noting_angle, seed=seed))
    again = env.end_episode()  # seed 3's, no action either: one position, kept
    assert again.num_positions == 1


def test_record_vector_writes_each_sub_envs_episode_to_its_own_file(tmp_path):
    def batched(obs):
        return (obs[:, 2] > 0).astype(int), {"angle": obs[:, 2].astype(np.float32)}

    envs = gym.make_vec(
        "CartPole-v1", num_envs=2, vectorization_mode="sync", render_mode="rgb_array"
    )
    rollouts = record_vector(envs, batched, seed=5, directory=tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "episode-000.rollout",
        "episode-001.rollout",
    ]
    for i, rollout in enumerate(rollouts):
        assert isinstance(rollout.frames, StoredFrames)
        assert rollout.metadata["seed"] == 5 + i
        assert_same_episode(rollout, record(cartpole(), lean_noting_angle, seed=5 + i))


def test_a_policy_that_raises_leaves_a_whole_file_of_the_steps_before_it(tmp_path):
    steps = iter(range(10**6))

    def breaks_at_20(obs):
        if next(steps) == 20:
            raise RuntimeError("bad agent")
        return lean_noting_angle(obs)

    path = tmp_path / "ep.rollout"
    with pytest.raises(RuntimeError, match="bad agent") as caught:
        record(cartpole(), breaks_at_20, seed=0, path=path)
    partial = caught.value.rollout
    assert partial.num_steps == 20
    assert partial.truncated[-1]
    loaded = load(path)  # a complete file: no warning, nothing recovered
    assert "recovered" not in loaded.metadata
    assert_same_episode(loaded, record(cartpole(), lean_noting_angle, seed=0), positions=21)


class LongInfos(gym.Wrapper):
    """An env whose infos hold ``chars`` characters more (``"log"``) at the steps from
    ``at`` to ``until`` (excluded; None: to the end)."""

    def __init__(self, env, at, chars, until=None):
        super().__init__(env)
        self.at, self.chars, self.until, self.t = at, chars, until, 0

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(action)
        self.t += 1
        if self.at <= self.t and (self.until is None or self.t < self.until):
            info = {**info, "log": "x" * self.chars}
        return obs, reward, terminated, truncated, info


def test_a_step_the_file_cannot_take_is_said_once_and_kept_in_memory(tmp_path):
    # An info over what a file takes (1 MiB) at step 20.
    env = RecordRollout(LongInfos(mountain_car(), 20, 17 * 2**20, until=21), directory=tmp_path)
    env.reset(seed=0)
    errors = []
    for _ in range(60):
        try:
            env.step(0)
        except ValueError as error:
            errors.append(error)
    assert len(errors) == 1  # the write of chunk 1 (positions 16..31), when step 32 came
    assert "ends before chunk 1" in "".join(errors[0].__notes__)
    rollout = env.end_episode()
    assert rollout.num_steps == 60  # nothing lost: the episode went on in memory
    assert len(rollout.infos[20]["log"]) == 17 * 2**20
    with pytest.warns(UserWarning, match="stopped before the end"):
        cut = load(tmp_path / "episode-000.rollout")
    assert cut.num_positions == 16


# The child records Pong to a file and is killed with SIGKILL at a random moment; it
# starts with the imports done by the parent process (forked), so 20 kills are quick.
# Its policy takes a millisecond a step, as a small network would: episodes last seconds.
KILLER = """
import json, os, random, signal, sys, time
import gymnasium as gym, ale_py
from agent_widget import record
gym.register_envs(ale_py)
folder, runs = sys.argv[1], int(sys.argv[2])
random.seed(0)
outcomes = []
for i in range(runs):
    ready_r, ready_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(ready_r)
        try:
            env = gym.make("ALE/Pong-v5", render_mode="rgb_array", frameskip=1)
            def policy(obs, t=iter(range(10**9))):
                if next(t) == 20:
                    os.write(ready_w, b"x")  # recording for real: kill from now on
                time.sleep(0.001)  # deliberate: a small network's thinking time
                return [0, 2, 3][(obs[100, 80, 0] // 16) % 3]
            record(env, policy, seed=7, max_steps=100_000, path=f"{folder}/{i}.rollout")
        finally:
            os._exit(3)  # never carry on as the parent
    os.close(ready_w)
    os.read(ready_r, 1)
    time.sleep(random.uniform(0.0, 1.0))  # deliberate: the kill at a random moment
    os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    outcomes.append("killed" if os.WIFSIGNALED(status) else f"exited {os.WEXITSTATUS(status)}")
print(json.dumps(outcomes))
"""


def pong_policy(obs):
    return [0, 2, 3][(obs[100, 80, 0] // 16) % 3]


def test_a_recording_killed_at_random_moments_leaves_files_that_load(tmp_path):
    ale_py = pytest.importorskip("ale_py")
    gym.register_envs(ale_py)
    runs = 20
    done = subprocess.run(
        [sys.executable, "-c", KILLER, str(tmp_path), str(runs)],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    assert json.loads(done.stdout.splitlines()[-1]) == ["killed"] * runs, done.stderr
    cuts = []
    for i in range(runs):
        assert not (tmp_path / f"{i}.rollout").exists()  # the episode never ended
        with pytest.warns(UserWarning, match="recording stopped before the end"):
            cut = load(tmp_path / f"{i}.rollout.part")
        assert cut.num_positions % 16 == 0  # whole chunks, every one of them
        assert cut.truncated[-1]
        assert "stopped after position" in cut.metadata["recovered"]
        cuts.append(cut)
    lengths = [cut.num_positions for cut in cuts]
    # The reference: the same episode, recorded in memory, as far as the longest cut.
    env = gym.make("ALE/Pong-v5", render_mode="rgb_array", frameskip=1)
    reference = record(env, pong_policy, seed=7, max_steps=max(lengths))
    for cut, n in zip(cuts, lengths, strict=True):
        np.testing.assert_array_equal(cut.actions, reference.actions[: n - 1])
        np.testing.assert_array_equal(cut.rewards, reference.rewards[: n - 1])
        for t in (0, n // 2, n - 1):
            np.testing.assert_array_equal(cut.frames[t], reference.frames[t])
            np.testing.assert_array_equal(cut.observations[t], reference.observations[t])
        assert json.dumps(cut.infos[n - 1]) == json.dumps(reference.infos[n - 1])
    assert len(set(lengths)) > 5, lengths  # the kills did land at different moments


def test_a_recorded_file_goes_into_a_library_run_as_it_is(tmp_path):
    rollout = record(
        cartpole(), lean_noting_angle, seed=0, algorithm="lean", path=tmp_path / "ep.rollout"
    )
    library = RunLibrary(tmp_path / "library")
    run = library.add(rollout, run="first")
    assert run.env_id == "CartPole-v1"
    assert run.algorithm == "lean"
    assert_same_episode(library.open(run)[0], rollout)


def test_a_wrapper_with_a_path_writes_each_episode_over_that_one_file(tmp_path):
    path = tmp_path / "one.rollout"
    env = RecordRollout(cartpole(), path=path)
    for seed in (0, 1):
        obs, _ = env.reset(seed=seed)
        done = False
        while not done:
            obs, _, terminated, truncated, _ = env.step(lean(obs))
            done = terminated or truncated
    first, second = env.rollouts
    assert isinstance(second.frames, StoredFrames)  # read back from the file
    again = load(path)
    assert again.metadata["seed"] == 1
    assert again.actions.tolist() == second.actions.tolist() != first.actions.tolist()
    np.testing.assert_array_equal(again.frames[-1], second.frames[-1])
    # The first episode's file was replaced, not changed: its rollout still reads it.
    alone = record(cartpole(), lean, seed=0)
    np.testing.assert_array_equal(first.frames[-1], alone.frames[-1])
    assert first.infos[-1] == alone.infos[-1]


def test_a_wrapper_takes_a_directory_or_a_path_not_both(tmp_path):
    with pytest.raises(ValueError, match="not both"):
        RecordRollout(cartpole(), directory=tmp_path, path=tmp_path / "x.rollout")
    assert list(tmp_path.iterdir()) == []


def breaks_at(step: int):
    """``lean``, raising at its ``step``-th call."""
    calls = iter(range(10**6))

    def policy(obs):
        if next(calls) == step:
            raise RuntimeError("bad agent")
        return lean(obs)

    return policy


def test_a_recording_cut_short_keeps_the_file_it_was_to_replace(tmp_path):
    path = tmp_path / "ep.rollout"
    before = record(cartpole(), lean, seed=0, path=path)
    saved = path.read_bytes()
    with pytest.raises(RuntimeError, match="bad agent") as caught:
        record(cartpole(), breaks_at(5), seed=1, path=path)
    assert path.read_bytes() == saved  # untouched
    part = tmp_path / "ep.rollout.part"
    assert f"in {part}; the file that was at {path} is kept" in caught.value.__notes__[-1]
    assert load(part).actions.tolist() == caught.value.rollout.actions.tolist()
    assert load(path).actions.tolist() == before.actions.tolist()
    record(cartpole(), lean, seed=2, path=path)  # a whole episode replaces it, and the part
    assert load(path).metadata["seed"] == 2
    assert not part.exists()


def test_a_recording_cut_short_with_nothing_at_its_path_is_there(tmp_path):
    path = tmp_path / "ep.rollout"
    with pytest.raises(RuntimeError, match="bad agent") as caught:
        record(cartpole(), breaks_at(5), seed=1, path=path)
    assert f"and in {path}" in caught.value.__notes__[-1]
    assert load(path).num_steps == caught.value.rollout.num_steps == 5
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ep.rollout"]


FULL_DISK = """
import resource, sys
import gymnasium as gym
from agent_widget import EpisodeViewer, Rollout, RunLibrary, load, record
path, limit = sys.argv[1], int(sys.argv[2])
record(gym.make("CartPole-v1", render_mode="rgb_array"), lambda o: int(o[2] > 0), 0, path=path)
resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))  # writes past it: EFBIG
try:
    record(gym.make("MountainCar-v0", render_mode="rgb_array"), lambda o: 1, 0, path=path)
except OSError as error:
    print(error.filename, error.errno, error.rollout.num_steps, flush=True)
    print(*error.__notes__, sep="\\n", flush=True)
big = Rollout.from_arrays(actions=[0] * 100_000)
for write in (
    lambda: big.save(path),
    lambda: RunLibrary(path + ".library").add(big, run="big", env_id="none-v0", algorithm="none"),
    lambda: EpisodeViewer(big).to_html(path + ".html"),
):
    try:
        write()
    except OSError as error:
        print(error.filename, error.errno, flush=True)
"""


def test_a_full_disk_names_the_file_keeps_the_steps_and_the_file_there(tmp_path):
    path = tmp_path / "ep.rollout"
    done = subprocess.run(
        [sys.executable, "-c", FULL_DISK, str(path), str(80_000)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "SDL_VIDEODRIVER": "dummy"},
    )
    lines = done.stdout.splitlines()
    assert len(lines) >= 5, done.stderr
    recording, *notes, saving, adding, page = lines
    part = f"{path}.part"
    filename, errno, steps = recording.split()
    assert (filename, int(errno)) == (part, 27)  # EFBIG, naming the file written
    assert 16 < int(steps) < 200  # the steps before the failed write, held in memory
    assert any(f"{part} ends before chunk" in note for note in notes)
    assert saving == f"{path} 27"
    assert adding == f"{path}.library/none-v0/none/big 27"  # the run, not a staging file
    assert page == f"{path}.html 27"
    assert load(path).metadata["env_id"] == "CartPole-v1"  # the file there is untouched
    assert not any(p.name.endswith(".tmp") for p in tmp_path.iterdir())


def test_a_url_to_record_to_is_refused_before_anything_is_written(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # where Path("s3://runs/a.rollout") would have made s3:/runs/
    with pytest.raises(ValueError, match="recording writes local files, not 's3://runs/a"):
        record(cartpole(), lean, seed=0, path="s3://runs/a.rollout")
    with pytest.raises(ValueError, match="recording writes local files, not 's3://runs/'"):
        RecordRollout(cartpole(), directory="s3://runs/")
    assert list(tmp_path.iterdir()) == []
