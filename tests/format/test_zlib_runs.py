"""The zlib-runs records :func:`runs_of` writes for real frames are byte for byte those
of the byte-wise run finder it replaced (the file format does not change): their
SHA-256 digests were taken from that code (main at b9ef00d)."""

import hashlib

import ale_py
import gymnasium as gym
import numpy as np
import pytest

from agent_widget.format._zlib_runs import runs_of

gym.register_envs(ale_py)


def pong_frames() -> np.ndarray:
    env = gym.make("ALE/Pong-v5", render_mode="rgb_array")
    env.reset(seed=0)
    actions = np.random.default_rng(0).integers(6, size=80)
    frames = [env.render()]
    for action in actions:
        env.step(int(action))
        frames.append(env.render())
    env.close()
    return np.stack(frames)


def cartpole_frames() -> np.ndarray:
    env = gym.make("CartPole-v1", render_mode="rgb_array")
    env.reset(seed=0)
    frames = [env.render()]
    for i in range(12):
        env.step(i % 2)
        frames.append(env.render())
    env.close()
    return np.stack(frames)


def connect_four_sized_frames() -> np.ndarray:
    """Frames of Connect Four's size (774x891: 6 bytes past a whole number of 8-byte
    words), with runs at both ends, inside and across words, and one changed everywhere."""
    rng = np.random.default_rng(0)
    first = rng.integers(0, 256, 774 * 891 * 3, dtype=np.uint8)
    frames = np.repeat(first[None], 5, axis=0)
    frames[1, [0, 7, 8, 17, 26, 40, 41, -1, -2, -9]] ^= 1
    frames[2, 1000:5000] = frames[1, 1000:5000] // 2
    frames[2, 300_001:900_001:37] += 1
    frames[3] = frames[2]  # nothing changed
    frames[4] = ~frames[3]  # everything changed
    return frames.reshape(len(frames), 774, 891, 3)


def records_digest(frames: np.ndarray) -> str:
    rows = frames.reshape(len(frames), -1)
    records = b"".join(runs_of(rows[i - 1], rows[i]) for i in range(1, len(rows)))
    return hashlib.sha256(records).hexdigest()


@pytest.mark.parametrize(
    ("frames", "digest"),
    [
        (pong_frames, "c74aac097f0d9512cd04809eefeb477e7d409b72ae0f05b4c03260e42baba80c"),
        (cartpole_frames, "41bf16e61f052a15ae30aee6fb9f9d64755f034c052cf082b0b2b11229ee9869"),
        (
            connect_four_sized_frames,
            "92a12485ab7151676a30d0ccbce752b4ca967b621c0fa68e7731224acc7559c1",
        ),
    ],
    ids=["pong", "cartpole", "connect-four-sized"],
)
def test_runs_of_real_frames_are_the_byte_wise_finders_records(frames, digest):
    assert records_digest(frames()) == digest
