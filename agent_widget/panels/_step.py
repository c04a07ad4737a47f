"""``Step``: what a panel function sees of one position of an episode.

Every attribute is read on first use and then kept, so a panel that only looks at
``step.obs`` never decodes a frame, and one that reads ``step.frame`` twice decodes
it once. The step convention is the rollout's: position ``t`` shows the frame and
observation *before* action ``t``; ``reward`` is what that action earned. The last
position of an episode of ``T`` actions has no action, so there ``action``,
``reward``, ``terminated`` and ``truncated`` are ``None`` and ``extras`` is empty.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cached_property
from typing import Any, Protocol

import numpy as np

from agent_widget.format import Frames


class EpisodeData(Protocol):
    """What a step reads from: a :class:`~agent_widget.episodes.Rollout` or the like."""

    @property
    def frames(self) -> Frames | None: ...
    @property
    def observations(self) -> Any: ...
    @property
    def actions(self) -> np.ndarray: ...
    @property
    def rewards(self) -> np.ndarray: ...
    @property
    def terminated(self) -> np.ndarray: ...
    @property
    def truncated(self) -> np.ndarray: ...
    @property
    def infos(self) -> Sequence[dict[str, Any]] | None: ...
    @property
    def extras(self) -> Mapping[str, Any]: ...
    @property
    def metadata(self) -> Mapping[str, Any]: ...


class Step:
    """Position ``t`` of an episode, read lazily.

    Attributes:
        t: the position, ``0 .. n - 1``.
        rollout: the episode the step belongs to. In a viewer it is the episode as
            shown, steps appended live included: it has a Rollout's ``frames``,
            ``observations``, ``actions``, ``rewards``, ``terminated``,
            ``truncated``, ``infos``, ``extras``, ``metadata``, ``num_steps``,
            ``num_positions`` and ``returns``.
        action_names: names of the discrete actions, or of a continuous action's
            components (may be empty).

    Examples:
        >>> from agent_widget.episodes import Rollout
        >>> rollout = Rollout.from_arrays(observations=np.eye(3), actions=[2, 0], rewards=[1, 0])
        >>> step = Step(rollout, 0, ["LEFT", "NOOP", "RIGHT"])
        >>> step.obs.tolist(), int(step.action), step.action_name, step.reward, step.return_
        ([1.0, 0.0, 0.0], 2, 'RIGHT', 1.0, 0.0)
        >>> Step(rollout, 2).action is None
        True
    """

    def __init__(
        self, rollout: EpisodeData, t: int, action_names: Sequence[str] | None = None
    ) -> None:
        self.rollout = rollout
        self.t = int(t)
        if action_names is None:
            action_names = rollout.metadata.get("action_names") or []
        self.action_names = list(action_names)

    @property
    def _acted(self) -> bool:
        """Whether an action was taken at this position (false at the last of T + 1)."""
        return self.t < len(self.rollout.actions)

    @cached_property
    def obs(self) -> Any:
        """The observation at ``t`` (a dict of arrays for dict spaces), or ``None``."""
        observations = self.rollout.observations
        if observations is None:
            return None
        if isinstance(observations, Mapping):
            return {name: values[self.t] for name, values in observations.items()}
        return observations[self.t]

    @cached_property
    def frame(self) -> np.ndarray | None:
        """The rendered frame at ``t``, HxWx3 uint8, or ``None`` without frames."""
        frames = self.rollout.frames
        return None if frames is None else frames[self.t]

    @cached_property
    def action(self) -> Any:
        """Action ``t`` as stored (a numpy scalar or array), ``None`` where none was taken."""
        if not self._acted:
            return None
        action = self.rollout.actions[self.t]
        return None if np.size(action) == 0 else action  # recorded without actions

    @property
    def action_index(self) -> int | None:
        """The action as an index for discrete actions, else ``None``."""
        action = self.action
        if action is None or np.ndim(action) != 0 or np.asarray(action).dtype.kind not in "biu":
            return None
        return int(action)

    @property
    def action_name(self) -> str | None:
        """The taken action's name where known, else ``None``."""
        index = self.action_index
        names = self.action_names
        return names[index] if index is not None and 0 <= index < len(names) else None

    @property
    def reward(self) -> float | None:
        """What action ``t`` earned, ``None`` where no action was taken."""
        return float(self.rollout.rewards[self.t]) if self._acted else None

    @cached_property
    def return_(self) -> float:
        """The return collected before position ``t``: ``rewards[:t].sum()``."""
        return float(np.sum(self.rollout.rewards[: self.t], dtype=np.float64))

    @property
    def terminated(self) -> bool | None:
        """Whether action ``t`` ended the episode (``None`` where no action was taken)."""
        return bool(self.rollout.terminated[self.t]) if self._acted else None

    @property
    def truncated(self) -> bool | None:
        """Whether the episode was cut after action ``t`` (``None`` where none was taken)."""
        return bool(self.rollout.truncated[self.t]) if self._acted else None

    @property
    def agent(self) -> str | None:
        """Whose turn position ``t`` is in a multi-agent turn-taking (PettingZoo AEC)
        episode; ``None`` in any other, and at the last position. Each agent's
        observation is ``step.obs["<agent>"]`` (``"<agent>/<key>"`` for a dict space)."""
        acting = getattr(self.rollout, "acting_agent", None)
        if acting is None or self.t >= len(acting):
            return None
        return str(acting[self.t]) or None

    @cached_property
    def info(self) -> dict[str, Any]:
        """The info dict of position ``t``."""
        infos = self.rollout.infos
        return {} if infos is None else infos[self.t]

    @cached_property
    def extras(self) -> dict[str, Any]:
        """The per-step extras of action ``t`` (e.g. ``{"q_values": array}``)."""
        return {
            name: values[self.t]
            for name, values in self.rollout.extras.items()
            if self.t < len(values)
        }

    def __repr__(self) -> str:
        return f"Step(t={self.t}, action={self.action!r}, reward={self.reward!r})"
