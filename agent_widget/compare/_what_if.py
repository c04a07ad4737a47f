"""What if, in the viewer: pick a step and an action, see the branch beside the episode.

:func:`what_if` makes a :class:`CompareViewer` of one episode with a "What if…" bar:
the user picks an action (or every action) at the shared step, and the kernel
computes the branches (:meth:`Rollout.branch`) on a worker thread, each added to the
comparison as it finishes, aligned by step, so the divergence mark sits at the branch
point. The viewer keeps serving frames and panels meanwhile; a cancel stops between
two steps of the policy. In a turn-based multi-agent (PettingZoo AEC) episode whose
agents share one discrete action space, the action picked is the move of the agent
whose turn it was at that step.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import gymnasium as gym

from agent_widget.compare._viewer import CompareViewer
from agent_widget.episodes import Rollout, action_names
from agent_widget.recording import AgentPolicies, pettingzoo_api

Env = gym.Env[Any, Any] | Callable[[], gym.Env[Any, Any]]
EVERY = "every"  # the action a request names to branch on each action but the recorded one


class _Cancelled(Exception):
    """Raised inside the policy when the user cancels: the branch in progress is dropped."""


def what_if(
    rollout: Rollout,
    *,
    env: Env,
    policy: Callable[..., Any],
    max_steps: int = 10_000,
    title: str = "",
    **traits: Any,
) -> CompareViewer:
    """A viewer of ``rollout`` that branches it at any step, from its own "What if…" bar.

    Args:
        rollout: a recorded episode with a seed, in an env with discrete actions (or
            a PettingZoo AEC env whose agents share one ``Discrete`` space).
        env: an env of the rollout's env id, or a function that makes one (made with
            ``render_mode="rgb_array"`` when the rollout has frames).
        policy: what acts after the branch point, as for :func:`record` (every agent's
            in a PettingZoo env).
        max_steps: the most actions of a branch after its branch point.
        title: as for :class:`CompareViewer`.
        **traits: as for :class:`CompareViewer`.

    Panels added with the comparison's :meth:`~CompareViewer.add_panel` (or ``panel``)
    show on every branch too.

    Examples:
        >>> viewer = what_if(rollout, env=make_env, policy=greedy)  # doctest: +SKIP
        >>> viewer  # pick a step, an action, "Branch"  # doctest: +SKIP
    """
    made = isinstance(env, gym.Env) or pettingzoo_api(env) is not None
    base: Any = env if made else env()  # type: ignore[operator]
    space = _shared_space(base)
    if not isinstance(space, gym.spaces.Discrete):
        raise ValueError(
            f"what_if offers the actions of a Discrete space; this env's is {space}. "
            "Call rollout.branch(t, action, ...) for any other"
        )
    names = [str(a) for a in range(int(space.n))]
    acts: Callable[..., Any] = policy
    if pettingzoo_api(base) is not None:
        kept = rollout.metadata.get("action_names")
        if isinstance(kept, list) and len(kept) == space.n:
            names = [str(n) for n in kept]
        acts = _each_agent(policy)
    else:
        names = action_names(base) or names
    label = str(rollout.metadata.get("agent") or rollout.metadata.get("algorithm") or "recorded")
    viewer = CompareViewer({label: rollout}, title=title, **traits)
    brancher = _Brancher(viewer, rollout, base, acts, max_steps, names)
    viewer.on_msg(brancher.on_message)
    viewer.set_trait("what_if", brancher.state())
    return viewer


def _shared_space(env: Any) -> Any:
    """The env's action space: a PettingZoo AEC env's agents' one space (the bar offers
    the moves of the agent whose turn it is), or a ValueError saying what to call."""
    api = pettingzoo_api(env)
    if api is None:
        return env.action_space
    if api != "aec":
        raise ValueError(
            "what_if branches one agent's move at a step, in a turn-based (AEC) env; in a "
            "Parallel env call rollout.branch(t, {agent: action, ...}, env=..., policy=...)"
        )
    spaces = {agent: env.action_space(agent) for agent in env.possible_agents}
    if len(set(map(repr, spaces.values()))) != 1:
        raise ValueError(
            f"what_if offers one list of moves, and the agents' action spaces differ "
            f"({spaces}); call rollout.branch(t, action, env=..., policy=...) for each"
        )
    return next(iter(spaces.values()))


def _each_agent(policy: Any) -> Callable[[str, Any], Any]:
    """A PettingZoo policy (a function of the agent and its observation, a dict of
    per-agent policies, or one model) as one function of both, for :meth:`_Brancher.watched`."""
    policies = AgentPolicies(policy, deterministic=True)
    return lambda agent, obs: policies.action(agent, obs, -1)


class _Brancher:
    """Computes the branches a viewer's bar asks for, one request at a time."""

    def __init__(
        self,
        viewer: CompareViewer,
        rollout: Rollout,
        env: gym.Env[Any, Any],
        policy: Callable[..., Any],
        max_steps: int,
        names: list[str],
    ) -> None:
        self.viewer, self.rollout, self.env = viewer, rollout, env
        self.policy, self.max_steps, self.names = policy, max_steps, names
        self.cancel = threading.Event()
        self.busy = False  # a request's branches are being computed
        self.done, self.total, self.status = 0, 0, ""

    def state(self) -> dict[str, Any]:
        return {
            "actions": self.names,
            "busy": self.busy,
            "done": self.done,
            "total": self.total,
            "status": self.status,
        }

    def on_message(self, _: Any, content: Any, buffers: Any) -> None:
        if not isinstance(content, dict):
            return
        if content.get("type") == "what-if-cancel":
            self.cancel.set()
        elif content.get("type") == "what-if":
            self.start(content.get("step"), content.get("action"))

    def start(self, t: Any, action: Any) -> None:
        """Branch at ``t`` on ``action`` (an index of :attr:`names`, or ``"every"``)."""
        if self.busy:
            return self.show("busy with the branches asked before; cancel them first")
        n = self.rollout.num_steps
        if type(t) is not int or not 0 <= t <= n:
            return self.show(f"cannot branch at {t!r}: the episode's steps are 0..{n}")
        recorded = int(self.rollout.actions[t]) if t < n else None
        if action == EVERY:
            actions = [a for a in range(len(self.names)) if a != recorded]
        elif type(action) is int and 0 <= action < len(self.names):
            actions = [action]
        else:
            return self.show(f"no action {action!r} to branch on")
        self.cancel.clear()
        self.done, self.total, self.busy = 0, len(actions), True
        self.show(f"branching at t = {t}…")
        threading.Thread(target=self.run, args=(t, actions), daemon=True).start()
        return None

    def run(self, t: int, actions: list[int]) -> None:
        try:
            for action in actions:
                if self.cancel.is_set():
                    raise _Cancelled
                self.show(f"branching at t = {t} on {self.names[action]}…")
                branch = self.rollout.branch(
                    t, action, env=self.env, policy=self.watched, max_steps=self.max_steps
                )
                self.done += 1
                self.viewer.add_rollout(f"{self.names[action]} at t = {t}", branch)
            self.show(f"{self.done} branch{'es' if self.done != 1 else ''} at t = {t}")
        except _Cancelled:
            self.show(f"cancelled: {self.done} of {self.total} branches at t = {t} kept")
        except Exception as error:  # shown in the bar; the viewer goes on
            self.show(f"could not branch at t = {t}: {type(error).__name__}: {error}")
        finally:
            self.busy = False
            self.show(self.status)

    def watched(self, *observed: Any) -> Any:
        """The policy (of the observation, or of the agent and its observation), stopped
        between two steps when the user cancels."""
        if self.cancel.is_set():
            raise _Cancelled
        return self.policy(*observed)

    def show(self, status: str) -> None:
        self.status = status
        self.viewer.set_trait("what_if", self.state())
