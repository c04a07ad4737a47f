"""Small hand-built torch networks and episodes for the torch panel tests."""

from __future__ import annotations

import numpy as np
import torch
from PIL import Image
from torch import nn

from agent_widget.episodes import Rollout
from agent_widget.panels import Step

NAMES = ["NOOP", "LEFT", "RIGHT"]
REGION = (slice(30, 36), slice(50, 56))  # rows, columns of the 84x84 image the outputs read


class RegionNet(nn.Module):
    """Outputs that depend on one square of an image only: (energy, -energy, 0.5 energy).

    Works on (C, 84, 84) batches, or (84, 84, C) ones with ``channels_last``.
    """

    def __init__(self, channels_last: bool = False) -> None:
        super().__init__()
        self.channels_last = channels_last
        self.scale = nn.Parameter(torch.tensor([1.0, -1.0, 0.5]))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.channels_last:
            x = x.permute(0, 3, 1, 2)
        energy = x[:, :, REGION[0], REGION[1]].pow(2).sum(dim=(1, 2, 3))
        return energy[:, None] * self.scale


def region_image(channels: int = 4, seed: int = 0) -> np.ndarray:
    """(channels, 84, 84) float32: faint noise everywhere, a bright square over the region."""
    image = np.random.default_rng(seed).uniform(0.0, 0.2, (channels, 84, 84))
    image[:, 28:38, 48:58] = 1.0
    return image.astype(np.float32)


def mlp(inputs: int = 4, actions: int = 3, seed: int = 0) -> nn.Module:
    torch.manual_seed(seed)
    return nn.Sequential(nn.Linear(inputs, 16), nn.Tanh(), nn.Linear(16, actions))


class ActorCritic(nn.Module):
    """obs -> (logits, value), as PPO-style agents compute them."""

    def __init__(self, inputs: int = 4, actions: int = 3, seed: int = 0) -> None:
        super().__init__()
        torch.manual_seed(seed)
        self.body = nn.Sequential(nn.Linear(inputs, 16), nn.Tanh())
        self.actor = nn.Linear(16, actions)
        self.critic = nn.Linear(16, 1)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        hidden = self.body(x)
        return self.actor(hidden), self.critic(hidden)


def vector_episode(steps: int = 6, seed: int = 0, **overrides) -> Rollout:
    """``steps`` actions over 4-feature observations, the third action terminating it."""
    rng = np.random.default_rng(seed)
    arrays = {
        "observations": rng.normal(size=(steps + 1, 4)).astype(np.float32),
        "actions": rng.integers(0, 3, steps),
        "rewards": rng.normal(size=steps),
        "terminated": np.arange(steps) == 2,
        "metadata": {"action_names": NAMES},
    }
    return Rollout.from_arrays(**{**arrays, **overrides})


def picture(observation: np.ndarray, frame_size: tuple[int, int]) -> np.ndarray:
    """The frame an image observation is a shrunk grey picture of (as Atari preprocessing
    makes them): its newest plane stretched to ``frame_size``, HxWx3 uint8."""
    axis = 0 if observation.shape[0] <= observation.shape[-1] else -1
    plane = np.take(observation, -1, axis=axis) if observation.ndim == 3 else observation
    grey = np.asarray(plane, np.float64)
    grey = (255 * (grey - grey.min()) / (np.ptp(grey) or 1.0)).astype(np.uint8)
    stretched = Image.fromarray(grey).resize(frame_size[::-1], Image.Resampling.BILINEAR)
    return np.repeat(np.asarray(stretched)[:, :, None], 3, axis=2)


def image_step(observation: np.ndarray, frame_size: tuple[int, int] | None = None) -> Step:
    """Position 0 of a one-action episode with this observation (and, given a size, the
    frame it is a picture of)."""
    frames = None if frame_size is None else np.stack([picture(observation, frame_size)] * 2)
    observations = np.stack([observation, observation])
    rollout = Rollout.from_arrays(frames=frames, observations=observations, actions=[1])
    return Step(rollout, 0, NAMES)


def direct(model: nn.Module, observations: np.ndarray) -> np.ndarray:
    """The model's per-action outputs for a batch, computed plainly."""
    with torch.no_grad():
        return model(torch.as_tensor(observations, dtype=torch.float32)).double().numpy()
