"""Recording with the frames encoded by the encoder process: the same stored bytes as
encoding them on the stepping thread (where there is one core), an encoder killed
mid-episode is an error naming it with every step kept, a policy that forks records on,
and a recording killed while chunks were with the encoder process keeps them."""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys

import gymnasium as gym
import numpy as np
import pytest

from agent_widget.episodes import load
from agent_widget.format import CHUNK_SIZE, ArrayFrames, Spool
from agent_widget.recording import RecordRollout, record
from agent_widget.recording._encoder._process import EncoderDied, cores, encoder_process
from tests.cartpole import balance, cartpole
from tests.recording.test_recording_to_disk import LongInfos
from tests.waiting import LIMIT, wait_until

pytestmark = pytest.mark.skipif(cores() < 2, reason="the encoder process needs a second core")

STEPS = 200


def digest(frames):
    """The stored chunks of ``frames``, as one hash."""
    parts = [part for k in range(frames.num_chunks) for part in frames.chunk(k)]
    return hashlib.sha256(repr(parts).encode()).hexdigest()


ONE_CORE = f"""
import os, sys
os.sched_setaffinity(0, {{0}})
from agent_widget.recording import record
from agent_widget.recording._encoder import _process as _encoder_process
from tests.cartpole import balance, cartpole
from tests.recording.test_recording_off_thread import digest
rollout = record(cartpole(), balance, seed=0, max_steps={STEPS})
print(_encoder_process._process is None, digest(rollout.frames))
"""


def test_one_core_encodes_on_the_stepping_thread_the_same_bytes():
    process = encoder_process()
    assert process is not None
    assert process.wait_ready()
    rollout = record(cartpole(), balance, seed=0, max_steps=STEPS)
    done = subprocess.run(
        [sys.executable, "-c", ONE_CORE],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "SDL_VIDEODRIVER": "dummy"},
    )
    assert done.stdout.split() == ["True", digest(rollout.frames)], done.stderr


class KillsTheEncoder:
    """A policy that kills the encoder process (SIGKILL) at step ``at``."""

    def __init__(self, at):
        self.at, self.t = at, 0

    def __call__(self, obs):
        if self.t == self.at:
            os.kill(encoder_process().process.pid, signal.SIGKILL)
        self.t += 1
        return balance(obs)


@pytest.mark.parametrize("to_disk", [False, True], ids=["memory", "path"])
def test_an_encoder_killed_mid_episode_is_an_error_naming_it_with_the_steps_kept(tmp_path, to_disk):
    process = encoder_process()
    assert process is not None
    assert process.wait_ready()
    pid = process.process.pid
    path = tmp_path / "ep.rollout" if to_disk else None
    with pytest.raises(
        EncoderDied, match=rf"frame encoder process \(pid {pid}\) died \(killed by signal 9\)"
    ) as caught:
        record(cartpole(), KillsTheEncoder(at=100), seed=0, max_steps=STEPS, path=path)
    kept = caught.value.rollout
    assert 100 <= kept.num_steps < STEPS  # up to the step that found it dead
    reference = record(cartpole(), balance, seed=0, max_steps=kept.num_steps)
    assert digest(kept.frames) == digest(reference.frames)
    assert digest(kept.frames) == digest(ArrayFrames(list(reference.frames)))
    if to_disk:
        assert digest(load(path).frames) == digest(reference.frames)
    again = encoder_process()  # the next episode started another
    assert again is not None
    assert again.process.pid != pid
    assert again.wait_ready()


class Forks:
    """A policy that forks at step ``at``; the child records an episode of its own
    (with an encoder process of its own) and exits 0 if it holds the right bytes."""

    def __init__(self, at, expected):
        self.at, self.t, self.expected, self.child = at, 0, expected, None

    def __call__(self, obs):
        if self.t == self.at:
            self.child = os.fork()
            if self.child == 0:
                process = encoder_process()
                ok = process.wait_ready() and process.process.pid != self.parent_encoder
                rollout = record(cartpole(), balance, seed=0, max_steps=STEPS)
                os._exit(0 if ok and digest(rollout.frames) == self.expected else 1)
        self.t += 1
        return balance(obs)


def test_a_policy_that_forks_records_on_and_so_does_its_child():
    process = encoder_process()
    assert process is not None
    assert process.wait_ready()
    reference = record(cartpole(), balance, seed=0, max_steps=STEPS)
    policy = Forks(at=40, expected=digest(reference.frames))
    policy.parent_encoder = process.process.pid
    rollout = record(cartpole(), policy, seed=0, max_steps=STEPS)
    _, status = os.waitpid(policy.child, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert digest(rollout.frames) == digest(reference.frames)


# The child records an episode to a file. At step 24 it has the parent stop its encoder
# process (SIGSTOP), so chunks 1 and 2 (positions 16..47) are sent to it but never come
# back; at step 63 (chunk 2's steps all known, chunk 3's not) it has the parent kill it
# (SIGKILL). The encoder process, let go on, appends chunks 1 and 2. With "after", an
# earlier episode (its own file, to its end) left the ring the killed one takes.
KILLED_WITH_CHUNKS_AT_THE_ENCODER = """
import os, sys
from agent_widget.recording import record
from agent_widget.recording._encoder._process import encoder_process
from tests.recording.test_recording_off_thread import EPISODES
to_parent, from_parent, path, name = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
make_env, act = EPISODES[name]
encoder = encoder_process()
assert encoder.wait_ready()
if sys.argv[5] == "after":
    record(make_env(), act, seed=1, max_steps=70, path=path + ".before.rollout")
os.write(to_parent, str(encoder.process.pid).encode().ljust(16))
def policy(obs, t=iter(range(10**9))):
    step = next(t)
    if step in (24, 63):
        os.write(to_parent, b"s" if step == 24 else b"k")
        os.read(from_parent, 1)  # at step 63 no answer comes: killed while waiting
    return act(obs)
record(make_env(), policy, seed=0, max_steps=1000, path=path)
"""


def mountain_car():
    """400x600 frames, observations apart from them."""
    return gym.make("MountainCar-v0", render_mode="rgb_array", max_episode_steps=1000)


def rocking(obs):
    """Push the way the car moves: it rocks, and its frames change at every step."""
    return 2 if obs[1] >= 0 else 0


def pong():
    """Observations that are the frames (stored as the frames' payloads)."""
    ale_py = pytest.importorskip("ale_py")
    gym.register_envs(ale_py)
    return gym.make("ALE/Pong-v5", render_mode="rgb_array", frameskip=1)


def pong_policy(obs):
    return [0, 2, 3][(obs[100, 80, 0] // 16) % 3]


EPISODES = {"MountainCar": (mountain_car, rocking), "Pong": (pong, pong_policy)}


def state(pid):
    """The process's state letter in /proc (S: waiting, Z: exited, a zombie)."""
    with open(f"/proc/{pid}/stat") as stat:
        return stat.read().split(") ")[1][0]


def asleep(pid):
    """Whether the process waits (on its pipe, for the encoder process)."""
    return state(pid) == "S"


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return state(pid) != "Z"


@pytest.mark.parametrize("earlier", ["first", "after"])
@pytest.mark.parametrize("name", list(EPISODES))
def test_a_recording_killed_keeps_the_chunks_its_encoder_process_had(tmp_path, name, earlier):
    """Killed with three chunks' steps known but two of them still with the encoder
    process, the file holds all three (only chunk 0 was written by the recording
    process), equal to a recording in memory, frames byte for byte; also when an
    episode before it left the ring it took (nothing of that one's is appended)."""
    make_env, act = EPISODES[name]
    make_env()  # no ALE: skipped here, before the child fails on it
    path = tmp_path / "ep.rollout"
    child, to_parent_r, from_parent_w = talking_child(
        KILLED_WITH_CHUNKS_AT_THE_ENCODER, str(path), name, earlier
    )
    encoder = None
    try:
        encoder = int(os.read(to_parent_r, 16))
        assert os.read(to_parent_r, 1) == b"s"
        # The child waits: once the encoder sleeps it has answered all it was sent (chunk
        # 0 too, when the ring came from the episode before: then it is not encoded inline).
        wait_until(lambda: asleep(encoder), "the encoder process answered chunk 0")
        os.kill(encoder, signal.SIGSTOP)
        os.write(from_parent_w, b"g")
        assert os.read(to_parent_r, 1) == b"k"
        assert load_part(path).num_positions == 16  # chunk 0: the others wait on the encoder
    finally:
        child.kill()
        child.wait()
        if encoder is not None:
            os.kill(encoder, signal.SIGCONT)
    wait_until(lambda: not alive(encoder), "the encoder process appends and exits")
    cut = load_part(path)
    assert cut.num_positions == 48  # every chunk whose steps were known
    reference = record(make_env(), act, seed=0, max_steps=64)
    assert digest(cut.frames) == digest(ArrayFrames(list(reference.frames)[:48]))
    for t in range(48):
        np.testing.assert_array_equal(cut.frames[t], reference.frames[t], err_msg=f"frame {t}")
        np.testing.assert_array_equal(cut.observations[t], reference.observations[t])
    np.testing.assert_array_equal(cut.actions, reference.actions[:47])
    np.testing.assert_array_equal(cut.rewards, reference.rewards[:47])
    assert [cut.infos[t] for t in range(48)] == [reference.infos[t] for t in range(48)]
    assert cut.truncated[-1]


def talking_child(script: str, *args: str) -> tuple[subprocess.Popen, int, int]:
    """``script`` run by a child process with two pipes to its parent, whose ends it
    takes as its first two arguments (``args`` after them); the child, and the
    parent's ends: the one it reads the child's words from, the one it answers on."""
    to_parent_r, to_parent_w = os.pipe()
    from_parent_r, from_parent_w = os.pipe()
    fds = (to_parent_w, from_parent_r)
    child = subprocess.Popen(
        [sys.executable, "-c", script, *map(str, fds), *args],
        pass_fds=fds,
        env={**os.environ, "SDL_VIDEODRIVER": "dummy"},
    )
    os.close(to_parent_w)
    os.close(from_parent_r)
    return child, to_parent_r, from_parent_w


def load_part(path):
    with pytest.warns(UserWarning, match="recording stopped before the end"):
        return load(f"{path}.part")


# The child records MountainCar with RecordRollout(path=) and, with chunks 1 and 2 with
# its stopped encoder process, exits normally (sys.exit) in the middle of the episode.
# A finalizer made first has the finalizers (closing the file) run after the encoder
# process is stopped, as in any process that made one before its first recording.
EXITS_WITH_CHUNKS_AT_THE_ENCODER = """
import os, sys, weakref
from agent_widget.recording import RecordRollout
from agent_widget.recording._encoder._process import encoder_process
from tests.recording.test_recording_off_thread import mountain_car, rocking
to_parent, from_parent, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
weakref.finalize(RecordRollout, lambda: None)
encoder = encoder_process()
assert encoder.wait_ready()
os.write(to_parent, str(encoder.process.pid).encode().ljust(16))
env = RecordRollout(mountain_car(), path=path)
obs, _ = env.reset(seed=0)
for t in range(63):  # chunk 2's steps all known; a 64th frame would wait for a free slot
    if t == 24:
        os.write(to_parent, b"s")
        os.read(from_parent, 1)
    obs, *_ = env.step(rocking(obs))
os.write(to_parent, b"x")
sys.exit(0)  # its exit waits for the encoder process, which the parent lets go on
"""


def test_a_recording_process_that_exits_has_its_files_left_as_it_left_them(tmp_path):
    """The encoder process appends only for a process that died: one that exits may
    still write to its files (its spools' finalizers close them), so it is told, and
    the file holds what the process wrote (chunk 0), whole."""
    path = tmp_path / "ep.rollout"
    child, to_parent_r, from_parent_w = talking_child(EXITS_WITH_CHUNKS_AT_THE_ENCODER, str(path))
    encoder = None
    try:
        encoder = int(os.read(to_parent_r, 16))
        assert os.read(to_parent_r, 1) == b"s"
        os.kill(encoder, signal.SIGSTOP)
        os.write(from_parent_w, b"g")
        assert os.read(to_parent_r, 1) == b"x"
    finally:
        if encoder is not None:
            os.kill(encoder, signal.SIGCONT)
        assert child.wait(timeout=LIMIT) == 0
    wait_until(lambda: not alive(encoder), "the encoder process exits")
    assert load_part(path).num_positions == 16
    # The zip as the process closed it ends the file: nothing was written over or after it.
    assert (tmp_path / "ep.rollout.part").read_bytes()[-22:-18] == b"PK\x05\x06"


# The same episodes recorded to a file where there is one core: every record made here.
ONE_CORE_FILE = """
import os, sys
os.sched_setaffinity(0, {0})
from agent_widget.recording import record
from agent_widget.recording._encoder import _process as _encoder_process
from tests.recording.test_recording_off_thread import EPISODES, SAME_TIME
make_env, act = EPISODES[sys.argv[2]]
record(make_env(), act, seed=0, max_steps=int(sys.argv[3]), path=sys.argv[1], metadata=SAME_TIME)
print(_encoder_process._process is None)
"""
SAME_TIME = {"created": "2026-12-05T00:00:00+00:00"}  # the one value that would differ


def records_made_elsewhere(monkeypatch):
    """A list that gets the number of each chunk written as the encoder process made it."""
    written = []
    write_record = Spool.write_record

    def noting(spool, record):
        written.append(spool.written)
        write_record(spool, record)

    monkeypatch.setattr(Spool, "write_record", noting)
    return written


@pytest.mark.parametrize("name", list(EPISODES))
def test_records_made_by_the_encoder_process_are_the_bytes_made_here(tmp_path, monkeypatch, name):
    """Recording to a file, the encoder process makes the journal records of the chunks
    it is given: from the first encoded there (the second, or the first where an episode
    before left its ring) to the last ones, made here as the episode ends. Either way,
    the file is byte for byte the one a single core writes."""
    make_env, act = EPISODES[name]
    make_env()  # no ALE: skipped here
    assert encoder_process().wait_ready()
    written = records_made_elsewhere(monkeypatch)
    # The second episode takes the ring the first left: its chunk 0 is encoded there.
    files = [tmp_path / "first.rollout", tmp_path / "second.rollout"]
    for path in files:
        written.clear()
        record(make_env(), act, seed=0, max_steps=STEPS, path=path, metadata=SAME_TIME)
        # In order, from chunk 1 (0 in the second) to the last two or three. Where the
        # machine is busy, fewer: its records come later (it runs below the recording).
        assert written, "no record came from the encoder process"
        assert written == list(range(written[0], written[-1] + 1)), written
    done = subprocess.run(
        [sys.executable, "-c", ONE_CORE_FILE, str(tmp_path / "here.rollout"), name, str(STEPS)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "SDL_VIDEODRIVER": "dummy"},
    )
    assert done.stdout.split() == ["True"], done.stderr
    for path in files:
        assert path.read_bytes() == (tmp_path / "here.rollout").read_bytes(), path.name


def test_chunks_whose_parts_came_back_in_time_have_their_records_made_there(tmp_path, monkeypatch):
    """A chunk whose frames the encoder process encoded is held for it, which makes its
    record, even when its parts are back before its steps are all known (an env slower
    than encoding: made here, such chunks took ~250 µs of the stepping thread each)."""
    assert encoder_process().wait_ready()
    written = records_made_elsewhere(monkeypatch)
    env = RecordRollout(cartpole(), path=tmp_path / "ep.rollout")
    obs, _ = env.reset(seed=0)

    def parts_back():  # those of the full chunks
        frames = env._episode.frames
        return all(frames.ready(k) for k in range(len(frames) // CHUNK_SIZE))

    for _ in range(STEPS):
        wait_until(parts_back, "the parts came back")
        obs, _, terminated, truncated, _ = env.step(balance(obs))
        if terminated or truncated:
            break
    rollout = env.end_episode() or env.rollouts[-1]
    complete = (rollout.num_positions - 1) // CHUNK_SIZE
    # From chunk 1 on (0 too where an episode before left its ring), in order; the last
    # few made here as the episode ends, if their records had not come yet.
    assert written, "no record came from the encoder process"
    assert written[0] <= 1, written
    assert written == list(range(written[0], written[-1] + 1)), written
    assert len(written) >= complete // 2, (written, complete)


def test_a_chunk_too_large_to_hold_has_the_records_made_here_from_it(tmp_path, monkeypatch):
    """Infos of 5 KB a position from position 64 on: a chunk of them is 80 KB of JSON,
    over a hold slot (64 KB), under what a file takes (1 MiB a position)."""
    assert encoder_process().wait_ready()
    written = records_made_elsewhere(monkeypatch)
    path = tmp_path / "ep.rollout"
    rollout = record(LongInfos(cartpole(), 64, 5000), balance, seed=0, max_steps=STEPS, path=path)
    # Chunk 4 (positions 64..79) is too large: it and the chunks after it are made here
    # (and those before it whose records had not come yet).
    if written:
        assert written == list(range(written[0], written[-1] + 1)), written
    assert all(k <= 3 for k in written), written
    reference = record(LongInfos(cartpole(), 64, 5000), balance, seed=0, max_steps=STEPS)
    saved = load(path)
    infos = [saved.infos[t] for t in range(saved.num_positions)]
    assert infos == [reference.infos[t] for t in range(reference.num_positions)]
    assert rollout.num_steps == saved.num_steps == STEPS
    assert digest(saved.frames) == digest(reference.frames)
