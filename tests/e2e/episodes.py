"""Synthetic episodes, built identically by the test process and by the notebook kernels.

Every frame is distinct (pixel (0, 0) spells out its position), so a canvas checksum
names exactly which frame is on screen.
"""

from __future__ import annotations

import hashlib

import numpy as np

from agent_widget.episodes import Rollout

ACTION_NAMES = ["NOOP", "UP", "DOWN", "FIRE"]
SCRIPT_STEP = 150
SCRIPT_NOTE = "<script>window.__awInjected = 1</script><img src=x onerror='window.__awInjected=2'>"


def synthetic_frames(n: int, height: int = 48, width: int = 64) -> np.ndarray:
    """(n, height, width, 3) uint8: moving gradients, with position t written in pixel (0, 0)."""
    t = np.arange(n, dtype=np.int64)[:, None, None]
    y = np.arange(height, dtype=np.int64)[None, :, None]
    x = np.arange(width, dtype=np.int64)[None, None, :]
    frames = np.empty((n, height, width, 3), np.uint8)
    frames[..., 0] = (4 * x + 3 * t) % 256
    frames[..., 1] = (5 * y + 7 * t) % 256
    frames[..., 2] = (2 * (x + y) + 11 * t) % 256
    frames[:, 0, 0] = np.stack([t[:, 0, 0] % 256, t[:, 0, 0] // 256 % 256, t[:, 0, 0] // 65536], 1)
    return frames


def synthetic_episode(n: int, height: int = 48, width: int = 64, infos: bool = True) -> Rollout:
    """An episode of n positions with discrete named actions, rewards and (optionally) infos."""
    steps = n - 1
    t = np.arange(steps)
    info = [{"t": i} for i in range(n)] if infos else None
    if info is not None and n > SCRIPT_STEP:
        info[SCRIPT_STEP]["note"] = SCRIPT_NOTE
    return Rollout.from_arrays(
        frames=synthetic_frames(n, height, width),
        actions=t % len(ACTION_NAMES),
        rewards=np.where(t % 10 == 9, 1.0, 0.0),
        infos=info,
        metadata={"env_id": "Synthetic-v0", "action_names": ACTION_NAMES},
    )


def frame_digests(frames: np.ndarray) -> dict[str, int]:
    """SHA-256 of each frame's RGB bytes -> position: what the page computes from the canvas."""
    return {hashlib.sha256(frame.tobytes()).hexdigest(): t for t, frame in enumerate(frames)}


def noise_frames(n: int, height: int = 64, width: int = 64) -> np.ndarray:
    """(n, height, width, 3) uint8 noise: 16 of them barely compress (~200 KB at 64x64),
    a chunk the kernel sends its frame ahead of."""
    return np.random.default_rng(0).integers(0, 256, (n, height, width, 3), np.uint8)
