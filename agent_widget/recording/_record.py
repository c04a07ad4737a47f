"""``record()``: run a policy in a gymnasium env for one episode, and keep it.

Three entry points share one per-episode buffer (:mod:`agent_widget.recording._episode_buffer`),
so they record the same way: :func:`record` runs a policy for one episode;
:class:`~agent_widget.recording.RecordRollout` is a wrapper that records while the
user's own loop runs; :func:`~agent_widget.recording.record_vector` runs a batched
policy on a vector env, one rollout per sub-env.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import gymnasium as gym

from agent_widget.episodes import Rollout
from agent_widget.recording._agent_policies import AgentPolicies
from agent_widget.recording._interrupts import interrupts_held
from agent_widget.recording._kept_note import kept_note
from agent_widget.recording._normalization import normalization, normalized, noted
from agent_widget.recording._policies import PolicyFunction, as_policy, split_policy_output
from agent_widget.recording._record_agents import pettingzoo_api, record_agents
from agent_widget.recording._record_wrapper import RecordRollout
from agent_widget.recording._recording_metadata import labels


def record(
    env: gym.Env[Any, Any],
    policy: PolicyFunction | Any,
    seed: int | None = None,
    max_steps: int = 10_000,
    *,
    deterministic: bool = True,
    agent: str | None = None,
    algorithm: str | None = None,
    metadata: Mapping[str, Any] | None = None,
    path: str | os.PathLike[str] | None = None,
    states_every: int | None = None,
    agent_observations: bool | None = None,
    normalize: Any = None,
) -> Rollout:
    """Run ``policy`` in ``env`` for one episode and return it as a :class:`Rollout`.

    The episode ends when the env terminates or truncates, or after ``max_steps``
    actions (the last step is then marked truncated). With ``render_mode="rgb_array"``
    the rollout has ``T + 1`` frames: the reset frame and one after each action.

    If the policy or the env raises (or on Ctrl-C: Kernel → Interrupt), the exception
    goes on with the steps recorded so far as its ``rollout`` attribute (their last
    step marked truncated), and a note saying so. A step is recorded whole or not at
    all, whenever the interrupt comes.

    With ``path``, the episode is written as it is recorded, a chunk (16 positions)
    at a time, to ``<path>.part``, and what was written is let go: an episode longer
    than memory can be recorded, and a run killed at any moment (kill -9, out of
    memory, a job's time limit) leaves a ``.part`` file that :func:`load` opens with
    every position up to its last whole chunk: every chunk whose steps were all known
    (those whose frames the frame encoder process still had, it appends once the
    recording process is dead; unless it is killed with it, as when a container or a
    job's cgroup is stopped whole, or a chunk holds over 64 KB of infos and large
    observations: the file then ends up to three chunks earlier). When
    the episode ends the part is renamed to ``path``, and the rollout returned is read
    from it; after an exception, the file holds the steps recorded before it (at
    ``path`` unless a file was there, which is kept: then at ``<path>.part``, as the
    note says).

    A PettingZoo env (AEC or Parallel) records many agents in one episode: a
    position is one ``env.step`` (one agent's turn in an AEC env, a move of all in a
    Parallel one), ``policy`` gives each agent's action, and the rollout has a column
    per agent (``rollout.agents``, ``agent_rewards`` of shape (T, n_agents) with NaN
    where an agent was absent, ``agent_action(agent)``, ``acting_agent``,
    ``action_masks``; ``rewards`` is their sum). Agents whose actions differ in shape
    each keep theirs in their own shape and dtype. An agent missing from a dict of
    policies, an action its action mask forbids, or ``env.agents`` changing as
    PettingZoo forbids is a ValueError naming the agent and step, the steps before it
    kept.

    The metadata keeps the env's id, the seed, the action space and the names of the
    actions where the env says them (Atari's meanings, MiniGrid's ``Actions``, a
    ``Dict`` space's keys, a MuJoCo env's actuators for its action's components) or
    its documentation does (gymnasium's classics, Knights-Archers-Zombies): the viewer
    reads them out.

    Args:
        env: any gymnasium env; it is reset with ``seed`` and left open. Or a
            PettingZoo ``AECEnv`` or ``ParallelEnv`` (``render_mode="rgb_array"`` for
            frames).
        policy: ``obs -> action``, or ``obs -> (action, extras)`` where ``extras`` is
            a dict with string keys such as ``{"q_values": q, "value": v}``; each becomes a per-step
            array in ``rollout.extras``. Or a model with ``predict(obs, deterministic=...)``,
            such as a Stable-Baselines3 ``DQN`` or ``PPO``: its action is recorded.
            For a PettingZoo env: ``(agent, obs) -> action``, a dict by agent of
            ``obs -> action`` functions (or models), or one model for every agent.
        seed: passed to ``env.reset``.
        max_steps: the most actions to take.
        deterministic: passed to a model's ``predict`` (not used for a function).
        normalize: what the policy's observations go through first, for a model trained
            under Stable-Baselines3's ``VecNormalize`` (whose ``predict`` does not
            normalize): by default (None) the model's own
            ``model.get_vec_normalize_env()``, if it has one; a ``VecNormalize`` saved
            apart (``VecNormalize.load("vecnormalize.pkl", venv)``, RL Zoo's); a function
            of the observation; False for none. The rollout keeps the raw observations,
            and its ``metadata["observation_normalization"]`` says which was used.
        agent: a name for the agent, kept in the metadata.
        algorithm: the training algorithm, kept in the metadata.
        metadata: further metadata; overrides the recorded values on clashes.
        path: a ``.rollout`` file to write the episode to as it is recorded: to
            ``<path>.part``, renamed to ``path`` (replacing a file there) when the
            episode ends. Cut short by an exception or Ctrl-C, the part holding the
            steps so far is renamed to ``path`` only if no file is there: one that was
            is kept, and the note says where the steps are.
        states_every: when the env can save its state (ALE's envs), save it every this
            many positions; a branch (:meth:`Rollout.branch`) then replays from the
            last one before its branch point. By default (None) states are saved at
            an interval that keeps them under 10% of the episode's file size, held as
            deltas (a 1,000-step Pong episode: every 64 positions); 0 saves
            none. Kept in memory (``rollout.states``), never in the file. Not used
            for PettingZoo envs.
        agent_observations: a PettingZoo env's observations kept per agent: None (the
            default) when one position's, of all agents, take at most 64 KiB (board
            games, vectors; Pistonball's images are not: its frame shows them), True
            always, False never. A PettingZoo env's ``path`` is written a chunk at a
            time too, each agent's columns with each chunk.

    Examples:
        >>> import gymnasium as gym
        >>> from agent_widget import record
        >>> env = gym.make("CartPole-v1", render_mode="rgb_array")
        >>> rollout = record(env, lambda obs: int(obs[2] > 0), seed=0, agent="lean")
        >>> rollout.metadata["env_id"], rollout.metadata["action_names"]
        ('CartPole-v1', ['LEFT', 'RIGHT'])
        >>> long = record(env, policy, seed=0, path="long.rollout")  # doctest: +SKIP
        >>> rollout = record(env, PPO.load("cartpole"), seed=0)  # doctest: +SKIP
        >>> stats = VecNormalize.load("vecnormalize.pkl", DummyVecEnv([make]))  # doctest: +SKIP
        >>> rollout = record(env, PPO.load("halfcheetah"), normalize=stats)  # doctest: +SKIP
        >>> game = connect_four_v3.env(render_mode="rgb_array")  # doctest: +SKIP
        >>> pick = lambda agent, obs: int(np.flatnonzero(obs["action_mask"])[0])  # doctest: +SKIP
        >>> record(game, pick, seed=0).acting_agent[:2]  # doctest: +SKIP
        array(['player_0', 'player_1'], dtype='<U8')
    """
    api = pettingzoo_api(env)
    if api is not None:
        if normalize not in (None, False):
            raise ValueError(
                "normalize= is for a single-agent env's policy; give each agent's policy "
                "function its own normalisation instead"
            )
        return record_agents(
            env,
            AgentPolicies(policy, deterministic),
            api,
            seed=seed,
            max_steps=max_steps,
            labels=labels(agent, algorithm, metadata),
            path=path,
            agent_observations=agent_observations,
        )
    found = normalization(policy, normalize)
    act = normalized(as_policy(policy, deterministic), found)
    recorder = RecordRollout(
        env,
        agent=agent,
        algorithm=algorithm,
        metadata=noted(metadata, found),
        path=path,
        states_every=states_every,
    )
    try:
        obs, _ = recorder.reset(seed=seed)
        for _ in range(max_steps):
            action, extras = split_policy_output(act(obs))
            recorder.record_extras(**extras)
            obs, _, terminated, truncated, _ = recorder.step(action)
            if terminated or truncated:
                return recorder.rollouts[-1]
    except BaseException as error:  # the policy, the env, Ctrl-C: keep what was recorded
        with interrupts_held(raise_after=False):  # a second Ctrl-C waits for the filing
            partial = recorder.end_episode(replace=False)
        if partial is None and recorder.rollouts:  # the interrupt came as it was filed
            partial = recorder.rollouts[-1]
        if partial is not None:
            error.rollout = partial  # type: ignore[attr-defined]
            error.add_note(kept_note(partial, path))
        raise
    rollout = recorder.end_episode()
    assert rollout is not None  # reset() started one
    return rollout
