"""The episodes the viewer benchmark shows: recorded Pong and a synthetic 480x480 render
(the long ones are tiled from their chunks by :mod:`harness.long_episodes`)."""

from __future__ import annotations

import numpy as np

from agent_widget.episodes import Rollout
from agent_widget.recording import record

# The first seed whose random-policy Pong episode lasts 1,000 steps (seeds 2-5 end
# sooner), so max_steps cuts the recording at exactly 1,000.
PONG_SEED = 1
BIG = 480


def pong(steps: int) -> Rollout:
    """``steps`` actions of ALE/Pong-v5 under a seeded uniform random policy."""
    import ale_py
    import gymnasium as gym

    gym.register_envs(ale_py)
    env = gym.make("ALE/Pong-v5", render_mode="rgb_array")
    env.action_space.seed(PONG_SEED)
    rollout = record(env, lambda _obs: env.action_space.sample(), seed=PONG_SEED, max_steps=steps)
    env.close()
    if rollout.num_steps != steps:
        raise RuntimeError(f"the Pong episode ended after {rollout.num_steps} of {steps} steps")
    return rollout


def render_frames(n: int, size: int = BIG) -> np.ndarray:
    """(n, size, size, 3) uint8 frames of a smooth, render-like scene: a sky gradient over
    a checkered floor (static) and two shaded balls moving on smooth orbits."""
    y = np.linspace(0.0, 1.0, size, dtype=np.float32)[:, None, None]
    x = np.linspace(0.0, 1.0, size, dtype=np.float32)[None, :, None]
    sky = np.concatenate([60 + 80 * y, 90 + 100 * y, 160 + 60 * (1 - y)], axis=2) + 0 * x
    checker = (np.floor(8 * x) + np.floor(8 * y)) % 2
    background = np.where(y > 0.6, 90 + 40 * checker + 30 * (y - 0.6), sky)
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
    balls = [(0.10 * size, 0.013, (220, 60, 40)), (0.07 * size, 0.021, (40, 200, 90))]
    frames = np.empty((n, size, size, 3), np.uint8)
    for t in range(n):
        frame = background.copy()
        for i, (radius, speed, color) in enumerate(balls):
            cx = size / 2 + 0.31 * size * np.sin(np.pi * speed * t + i)
            cy = 0.55 * size + 0.12 * size * np.cos(2 * np.pi * speed * t / 3 + i)
            inside = (xx - cx) ** 2 + (yy - cy) ** 2 < radius**2
            light = ((xx - cx + radius / 3) ** 2 + (yy - cy + radius / 3) ** 2) / radius**2
            shade = np.clip(1.2 - 0.8 * light, 0.2, 1.2)
            frame[inside] = np.asarray(color, np.float32) * shade[inside, None]
        frames[t] = np.clip(frame, 0, 255)
    return frames


def render_episode(steps: int) -> Rollout:
    """``steps`` actions over :func:`render_frames`, with a reward now and then."""
    t = np.arange(steps)
    return Rollout.from_arrays(
        frames=render_frames(steps + 1),
        actions=t % 4,
        rewards=np.where(t % 50 == 49, 1.0, 0.0),
        infos=[{"t": i} for i in range(steps + 1)],
        metadata={"env_id": f"Synthetic{BIG}-v0"},
    )
