"""Small synthetic frames shared by the data-layer tests."""

import numpy as np


def moving_frames(n, height=6, width=8):
    """Frames where a bright pixel walks across a fixed noisy background."""
    background = np.random.default_rng(0).integers(0, 256, (height, width, 3), dtype=np.uint8)
    frames = np.repeat(background[None], n, axis=0)
    for t in range(n):
        frames[t, t % height, t % width] = 255
    return frames
