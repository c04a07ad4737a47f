"""Beacon: a small PettingZoo env whose two agents have action spaces of different
shapes, as MPE's simple_speaker_listener (in the separate ``mpe2`` package, not
installed here) has. A speaker that sees which of three landmarks is the target says a
word (``Discrete(3)``); a listener that hears the word moves in the plane (``Box`` of
shape ``(2,)``). Both are rewarded minus the listener's distance to the target.
Defined once, as the tests that record it and the ones that check it by hand need the
very same env and policies."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv
from pettingzoo.utils.conversions import parallel_to_aec

LANDMARKS = np.array([[-0.8, 0.0], [0.0, 0.8], [0.8, 0.0]], np.float32)
STEPS = 6
FRAME = 32  # pixels a side


class Beacon(ParallelEnv):
    """Speaker and listener for :data:`STEPS` moves, then both truncated."""

    metadata: ClassVar[dict[str, Any]] = {"name": "beacon_v0", "render_modes": ["rgb_array"]}

    def __init__(self, render_mode: str | None = "rgb_array") -> None:
        self.possible_agents = ["speaker", "listener"]
        self.render_mode = render_mode

    def observation_space(self, agent: str) -> spaces.Box:
        return spaces.Box(-2, 2, (3,) if agent == "speaker" else (5,), np.float32)

    def action_space(self, agent: str) -> spaces.Space[Any]:
        if agent == "speaker":
            return spaces.Discrete(3)
        return spaces.Box(-1, 1, (2,), np.float32)

    def reset(self, seed: int | None = None, options: Any = None) -> tuple[dict, dict]:
        rng = np.random.default_rng(seed)
        self.target = int(rng.integers(3))
        self.position = rng.uniform(-0.5, 0.5, 2).astype(np.float32)
        self.word = np.zeros(3, np.float32)
        self.agents, self.t = list(self.possible_agents), 0
        return self._observations(), {agent: {} for agent in self.agents}

    def step(self, actions: dict[str, Any]) -> tuple[dict, ...]:
        self.t += 1
        self.word = np.eye(3, dtype=np.float32)[int(actions["speaker"])]
        self.position = np.clip(self.position + 0.25 * np.asarray(actions["listener"]), -2, 2)
        reward = -float(np.linalg.norm(self.position - LANDMARKS[self.target]))
        over = self.t == STEPS
        observations = self._observations()
        agents = self.agents
        if over:
            self.agents = []
        return (
            observations,
            dict.fromkeys(agents, reward),
            dict.fromkeys(agents, False),
            dict.fromkeys(agents, over),
            {agent: {} for agent in agents},
        )

    def render(self) -> np.ndarray:
        """The listener as a white square on black, where it stands."""
        frame = np.zeros((FRAME, FRAME, 3), np.uint8)
        x, y = ((self.position + 2) / 4 * (FRAME - 2)).astype(int)
        frame[y : y + 2, x : x + 2] = 255
        return frame

    def _observations(self) -> dict[str, np.ndarray]:
        target = np.eye(3, dtype=np.float32)[self.target]
        return {
            "speaker": target,
            "listener": np.concatenate([self.position, self.word]).astype(np.float32),
        }


def beacon_aec() -> Any:
    """Beacon as an AEC env (PettingZoo's own conversion): the speaker, then the
    listener, each a turn."""
    return parallel_to_aec(Beacon())


def guide(seed: int) -> Any:
    """The speaker names the target; the listener steps towards the landmark it
    names, with noise from ``seed`` (a fresh guide with the same seed acts the same)."""
    rng = np.random.default_rng(seed)

    def act(agent: str, obs: np.ndarray) -> Any:
        if agent == "speaker":
            return int(np.argmax(obs))
        heading = LANDMARKS[int(np.argmax(obs[2:]))] - obs[:2]
        noise = rng.normal(0, 0.1, 2)
        return np.clip(heading + noise, -1, 1).astype(np.float32)

    return act
