"""A multi-agent episode as the viewer shows it: each position's readout per agent (who
acted, each agent's action by name where the names fit its own action space, reward and
return, its legal actions where the env gives action masks), and one return line per
agent on the timeline.

The lines are timeline extras named ``return[<agent>]``: the front end draws them on
the return's own axis (js/shared/timeline-axes.ts) in the extras' colours, given in the
agents' order, so an agent keeps its colour all along the episode.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from agent_widget.episodes import ActionNames, Rollout, own_names
from agent_widget.panels import format_number
from agent_widget.viewer._transport import action_text

# More agents than this draw no line each (Pistonball's 20 would blur into a band):
# the timeline's return line is their sum, the readout names each.
MAX_AGENT_LINES = 8


class AgentReadout:
    """The per-agent readout and return lines of ``rollout`` (one with ``agents``)."""

    def __init__(
        self, rollout: Rollout, action_names: ActionNames, metadata: Mapping[str, Any]
    ) -> None:
        self.names = rollout.agents
        self.acting = rollout.acting_agent
        self.actions = [rollout.agent_action(name) for name in self.names]  # shapes may differ
        self.acted = rollout.agent_acted
        self.present = rollout.agent_present
        self.rewards = rollout.agent_rewards
        self.masks = rollout.action_masks
        self.returns = np.nancumsum(self.rewards, axis=0)  # after step t
        self.action_names = [own_names(action_names, metadata, name) for name in self.names]

    def lines(self) -> dict[str, np.ndarray]:
        """Each agent's return after each step, ``return[<agent>]``; none past
        :data:`MAX_AGENT_LINES` agents."""
        if len(self.names) > MAX_AGENT_LINES:
            return {}
        return {f"return[{name}]": self.returns[:, i] for i, name in enumerate(self.names)}

    def rows(self, positions: Sequence[int]) -> list[dict[str, Any]]:
        """Per position: ``{"acting": name or None, "agents": [[name, action text,
        reward, return, legal], ...]}`` for the agents present at its step (none at the
        last position, which has no step); an action text of "" where the agent took
        none, a reward of None where the env gave it none; ``legal`` the actions its
        mask allowed (``"0 1 4"``), "" where the env gave no mask."""
        return [self._row(t) for t in positions]

    def _row(self, t: int) -> dict[str, Any]:
        if t >= len(self.rewards):
            return {"acting": None, "agents": []}
        acting = None if self.acting is None else str(self.acting[t]) or None
        agents = []
        for i, name in enumerate(self.names):
            if not self.present[t, i]:
                continue
            acted = self.acted[t, i]
            action = action_text(self.actions[i][t], self.action_names[i]) if acted else ""
            reward = float(self.rewards[t, i])
            legal = (
                "" if self.masks is None else " ".join(map(str, np.flatnonzero(self.masks[t, i])))
            )
            agents.append(
                [
                    name,
                    action,
                    reward if np.isfinite(reward) else None,
                    float(self.returns[t, i]) if np.isfinite(self.returns[t, i]) else None,
                    legal,
                ]
            )
        return {"acting": acting, "agents": agents}


def agent_lines(row: dict[str, Any], t: int) -> list[str]:
    """Position ``t``'s readout per agent as lines, as js/shared/readout.ts writes it (for
    a saved copy's picture and a video's readout): who acted, then each agent present,
    its return after action ``t`` (its reward in it)."""

    def number(value: float | None) -> str:
        return "-" if value is None else format_number(value)

    lines = [] if row["acting"] is None else [f"acted: {row['acting']}"]
    for name, action, reward, total, legal in row["agents"]:
        moves = f" · legal {legal}" if legal else ""
        after = "" if total is None else f" (after action {t})"
        lines.append(
            f"{name}: action {action or '-'}{moves} · reward {number(reward)} · "
            f"return {number(total)}{after}"
        )
    return lines
