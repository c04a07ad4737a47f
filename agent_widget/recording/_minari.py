"""Minari offline-RL episodes as :class:`Rollout` objects, optionally re-rendered.

Minari stores observations, actions, rewards, terminations, truncations and infos,
but no frames. ``render=True`` re-creates them the way Minari's maintainers
recommend: recover the environment, reset it with the episode's seed and replay the
stored actions. That only reproduces the episode when the env is deterministic
given its seed (and unchanged since the data was collected), so every replayed
observation is checked against the stored one and the first mismatch raises
:class:`ReplayDivergenceError` naming the position: wrong frames are never shown.
"""

from __future__ import annotations

import io
import warnings
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import gymnasium as gym
import numpy as np
from PIL import Image

from agent_widget.episodes import Rollout, action_names, describe_space, known_action_names

# ReplayDivergenceError stays importable from here, where _branch takes it.
from agent_widget.recording._replay import ReplayDivergenceError as ReplayDivergenceError
from agent_widget.recording._replay import at, replay_frames, same_observation

if TYPE_CHECKING:
    from minari import EpisodeData, MinariDataset


def from_minari(dataset: MinariDataset, episode_index: int, render: bool = False) -> Rollout:
    """Episode ``episode_index`` of a Minari dataset as a :class:`Rollout`.

    Observations (arrays, or one level of dict of arrays), actions, rewards,
    terminations, truncations and infos are taken as stored. With ``render=True``
    the episode is replayed in ``dataset.recover_environment(render_mode="rgb_array")``
    from the episode's stored seed to render its frames (and name its actions).

    Raises:
        ReplayDivergenceError: with ``render=True``, when the replay's observation at
            some position differs from the stored one (its ``position`` says where).

    Examples:
        >>> import minari
        >>> from agent_widget import Rollout
        >>> dataset = minari.load_dataset("cartpole/my-data-v0")  # doctest: +SKIP
        >>> rollout = Rollout.from_minari(dataset, 0, render=True)  # doctest: +SKIP
    """
    if not -len(dataset) <= episode_index < len(dataset):
        raise IndexError(
            f"episode index {episode_index} out of range for Minari dataset {dataset.id!r} "
            f"with {len(dataset)} episodes"
        )
    episode = dataset[episode_index]
    stored = next(iter(dataset.storage.get_episode_metadata([episode.id])))
    seed = None if stored.get("seed") is None else int(stored["seed"])
    spec = dataset.env_spec
    frames = None
    names = None if spec is None else known_action_names(spec.entry_point, dataset.action_space)
    if render:
        frames, names = _replay(dataset, episode, seed, stored.get("options"))
    return Rollout.from_arrays(
        frames=frames,
        observations=_observations(episode.observations),
        actions=episode.actions,
        rewards=episode.rewards,
        terminated=episode.terminations,
        truncated=episode.truncations,
        infos=_per_position(episode.infos or {}, len(episode) + 1),
        metadata={
            "env_id": None if spec is None else spec.id,
            "seed": seed,
            "algorithm": dataset.storage.metadata.get("algorithm_name"),
            "action_names": names,
            "action_space": describe_space(dataset.action_space),
            "minari_dataset": dataset.id,
            "minari_episode": int(episode.id),
        },
    )


def _observations(observations: Any) -> np.ndarray | dict[str, np.ndarray] | None:
    """Stored observations if they are numeric arrays (or a dict of them), else None."""

    def numeric(value: Any) -> bool:
        return isinstance(value, np.ndarray) and value.dtype.kind in "biufc"

    if numeric(observations):
        return observations
    if isinstance(observations, Mapping) and all(map(numeric, observations.values())):
        return dict(observations)
    warnings.warn(
        f"Minari observations of type {type(observations).__name__} are not numeric arrays "
        "(only arrays and one level of dict are kept); loading the episode without them",
        stacklevel=3,
    )
    return None


def _per_position(infos: Mapping[str, Any], positions: int) -> list[dict[str, Any]]:
    """Minari's infos (a dict of arrays, one entry per position) as one dict per position."""

    def check(data: Mapping[str, Any], prefix: str) -> None:
        for key, value in data.items():
            if isinstance(value, Mapping):
                check(value, f"{prefix}{key}.")
            elif len(value) != positions:
                raise ValueError(
                    f"Minari infos[{prefix}{key!r}] has {len(value)} entries, "
                    f"expected {positions} (one per position)"
                )

    check(infos, "")
    return [at(infos, t) for t in range(positions)]


def _replay(
    dataset: MinariDataset, episode: EpisodeData, seed: int | None, options: Any
) -> tuple[list[np.ndarray], list[str] | None]:
    """Frames of ``episode`` re-rendered by replaying its actions, and the env's action names."""
    env = dataset.recover_environment(render_mode="rgb_array")
    jpeg = bool(getattr(dataset.storage, "jpeg_encoding", False))

    def diverged(t: int, what: str) -> ReplayDivergenceError:
        start = "its stored seed" if seed is not None else "no stored seed (a random start)"
        return ReplayDivergenceError(
            f"Minari dataset {dataset.id!r}, episode {episode.id}: replaying its actions from "
            f"{start} {what}, so frames re-rendered from position {t} on would not show "
            "this episode. Load it with render=False to view the stored data without frames.",
            position=t,
        )

    def check(t: int, obs: Any) -> None:
        if not _same(dataset.observation_space, obs, at(episode.observations, t), jpeg):
            where = "the reset" if t == 0 else f"after action {t - 1}"
            raise diverged(t, f"gives a different observation at position {t} ({where})")

    try:
        reset = {"seed": seed, "options": options}
        actions = [at(episode.actions, t) for t in range(len(episode))]
        frames = replay_frames(env, reset, actions, check, diverged)
        return frames, action_names(env)
    finally:
        env.close()


def _same(space: gym.Space[Any], replayed: Any, stored: Any, jpeg: bool) -> bool:
    """Whether a replayed observation is the stored one, as far as the storage can tell."""
    if isinstance(space, gym.spaces.Dict):
        return all(_same(space[key], replayed[key], stored[key], jpeg) for key in space)
    replayed, stored = np.asarray(replayed), np.asarray(stored)
    if jpeg and _is_image_space(space):
        # Minari stored the image as a JPEG: compare against the same lossy round trip.
        buffer = io.BytesIO()
        Image.fromarray(replayed).save(buffer, format="JPEG")
        replayed = np.asarray(Image.open(buffer))
        if replayed.shape != stored.shape:
            return False
        return int(np.abs(replayed.astype(np.int16) - stored.astype(np.int16)).max()) <= 2
    return same_observation(replayed, stored)


def _is_image_space(space: gym.Space[Any]) -> bool:
    from minari.dataset.minari_storage import is_image_space

    return bool(is_image_space(space))
