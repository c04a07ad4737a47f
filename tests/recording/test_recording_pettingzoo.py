"""record() on real PettingZoo envs: two classic AEC games with action masks
(Connect Four, Tic-Tac-Toe), a Parallel env (Pistonball) and one whose agents leave
mid-episode (Knights-Archers-Zombies). Each test steps its own copy of the env with
the same seed and policy, and reads what the env says at every step."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
import zipfile

import numpy as np
import pytest

pettingzoo = pytest.importorskip("pettingzoo")

from gymnasium import spaces  # noqa: E402

from agent_widget import RunLibrary, load, record  # noqa: E402
from agent_widget.recording import ReplayDivergenceError  # noqa: E402
from tests.beacon import Beacon, beacon_aec, guide  # noqa: E402
from tests.games import connect_four, random_legal, tictactoe  # noqa: E402


def pistonball(max_cycles=12, render_mode="rgb_array"):
    return pettingzoo.make(
        "parallel", "butterfly/pistonball-v6", max_cycles=max_cycles, render_mode=render_mode
    )


def zombies():
    """Knights-Archers-Zombies where, with seed 2 and the random policy below, agents
    die one by one (zombies come fast, walls kill): archer_0 first, at step 22."""
    return pettingzoo.make(
        "parallel",
        "butterfly/knights_archers_zombies-v11",
        render_mode="rgb_array",
        max_cycles=300,
        spawn_delay=3,
        line_death=True,
    )


def random_pistons(seed):
    rng = np.random.default_rng(seed)
    return lambda agent, obs: rng.uniform(-1, 1, (1,)).astype(np.float32)


def random_moves(seed):
    rng = np.random.default_rng(seed)
    return lambda agent, obs: int(rng.integers(6))


def aec_by_hand(env, policy, seed):
    """The AEC loop of PettingZoo's docs: who acted, the action, env.rewards after each
    env.step, and the acting agent's action mask."""
    env.reset(seed=seed)
    steps = []
    for agent in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        action = None if terminated or truncated else policy(agent, obs)
        masked = action is not None and isinstance(obs, dict)
        mask = np.array(obs["action_mask"], bool) if masked else None
        env.step(action)
        steps.append({"agent": agent, "action": action, "rewards": dict(env.rewards), "mask": mask})
    return steps


def parallel_by_hand(env, policy, seed):
    """The Parallel loop: the agents present, actions, and the rewards env.step returns."""
    observations, _ = env.reset(seed=seed)
    steps, frames = [], [env.render()]
    while env.agents:
        present = list(env.agents)
        actions = {agent: policy(agent, observations[agent]) for agent in present}
        observations, rewards, *_ = env.step(actions)
        steps.append({"present": present, "actions": actions, "rewards": dict(rewards)})
        frames.append(env.render())
    return steps, frames


def assert_rewards_as_read(rollout, steps):
    """Every reward the env reported, at its step and agent's column; NaN elsewhere."""
    assert rollout.num_steps == len(steps)
    expected = np.full((len(steps), len(rollout.agents)), np.nan)
    for t, step in enumerate(steps):
        for agent, reward in step["rewards"].items():
            expected[t, rollout.agents.index(agent)] = reward
    np.testing.assert_array_equal(rollout.agent_rewards, expected)
    sums = {a: sum(step["rewards"].get(a, 0.0) for step in steps) for a in rollout.agents}
    np.testing.assert_array_equal(np.nansum(rollout.agent_rewards, axis=0), list(sums.values()))
    np.testing.assert_array_equal(rollout.rewards, np.nansum(expected, axis=1))
    np.testing.assert_array_equal(rollout.agent_returns[-1], list(sums.values()))


# ----------------------------------------------------------------------- AEC


@pytest.mark.parametrize("make", [connect_four, tictactoe])
def test_an_aec_game_keeps_a_turn_a_position_its_rewards_and_action_masks(make):
    rollout = record(make(), random_legal(1), seed=3)
    steps = aec_by_hand(make(), random_legal(1), seed=3)
    assert rollout.agents == make().possible_agents  # Tic-Tac-Toe's: player_1, player_2
    assert_rewards_as_read(rollout, steps)
    assert rollout.acting_agent.tolist() == [step["agent"] for step in steps]
    for t, step in enumerate(steps):
        i = rollout.agents.index(step["agent"])
        assert rollout.agent_acted[t].tolist() == [
            j == i and step["action"] is not None for j in range(2)
        ]
        if step["action"] is None:  # the game is over: PettingZoo's leaving step
            assert rollout.actions[t] == -1
            assert not rollout.action_masks[t].any()
            continue
        assert rollout.actions[t] == rollout.agent_actions[t, i] == step["action"]
        np.testing.assert_array_equal(rollout.action_masks[t, i], step["mask"])
        assert not rollout.action_masks[t, 1 - i].any()
    # The game ends with a result (win: +1 and -1; draw: 0 each), the episode with the
    # last agent's leaving step.
    assert rollout.agent_terminated.any(axis=0).all()
    assert rollout.terminated[-1]
    assert not rollout.truncated.any()
    assert len(rollout.frames) == rollout.num_positions
    assert rollout.metadata["pettingzoo_api"] == "aec"
    assert rollout.metadata["env_id"] == make().metadata["name"]


def test_an_aec_games_frames_and_observations_are_the_envs_at_each_position():
    rollout = record(tictactoe(), random_legal(0), seed=0)
    env = tictactoe()
    env.reset(seed=0)
    policy = random_legal(0)
    for t in range(rollout.num_positions):
        assert np.array_equal(rollout.frames[t], env.render()), t
        for agent in env.agents:
            observed = env.observe(agent)
            for key in ("observation", "action_mask"):
                assert np.array_equal(rollout.observations[f"{agent}/{key}"][t], observed[key])
        if not env.agents:
            break
        obs, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else policy(env.agent_selection, obs))


# ------------------------------------------------------------------ Parallel


def test_a_parallel_env_keeps_every_agents_move_a_position():
    rollout = record(pistonball(), random_pistons(5), seed=7)
    steps, frames = parallel_by_hand(pistonball(), random_pistons(5), seed=7)
    assert rollout.agents == [f"piston_{i}" for i in range(20)]
    assert_rewards_as_read(rollout, steps)
    expected = np.array([[step["actions"][a][0] for a in rollout.agents] for step in steps])
    np.testing.assert_array_equal(rollout.agent_actions[..., 0], expected)
    assert rollout.agent_acted.all()
    assert rollout.agent_present.all()
    assert rollout.acting_agent is None
    assert rollout.action_masks is None
    assert rollout.truncated[-1]
    assert not rollout.terminated.any()
    assert len(rollout.frames) == len(frames)
    for t, frame in enumerate(frames):
        assert np.array_equal(rollout.frames[t], frame), t
    # Pistonball's observations are crops of the frame, 3.3 MB a position: not kept.
    assert rollout.observations is None


def test_pistonball_observations_are_kept_when_asked_for():
    env = pistonball(max_cycles=3, render_mode=None)
    rollout = record(env, random_pistons(0), seed=0, agent_observations=True)
    again = pistonball(max_cycles=3, render_mode=None)
    observations, _ = again.reset(seed=0)
    policy = random_pistons(0)
    for t in range(rollout.num_positions):
        for agent in ("piston_0", "piston_19"):
            assert np.array_equal(rollout.observations[agent][t], observations[agent]), (t, agent)
        if again.agents:
            observations, *_ = again.step({a: policy(a, observations[a]) for a in again.agents})


def test_agents_that_leave_mid_episode_keep_their_steps_and_are_absent_after():
    rollout = record(zombies(), random_moves(2), seed=2)
    steps, _ = parallel_by_hand(zombies(), random_moves(2), seed=2)
    assert_rewards_as_read(rollout, steps)
    present = np.array([[a in step["present"] for a in rollout.agents] for step in steps])
    np.testing.assert_array_equal(rollout.agent_present, present)
    left = present.sum(axis=0)  # steps each agent was in
    assert len(set(left.tolist())) > 1, "the agents left at different steps"
    archer = rollout.agents.index("archer_0")
    gone = left[archer]
    assert 0 < gone < rollout.num_steps
    assert rollout.agent_terminated[gone - 1, archer]  # it died at its last step
    assert np.isnan(rollout.agent_rewards[gone:, archer]).all()
    assert (rollout.agent_actions[gone:, archer] == -1).all()
    assert not rollout.agent_acted[gone:, archer].any()
    # Its observations are kept while it was in (zeros after): small vectors.
    assert rollout.observations["archer_0"].shape == (rollout.num_positions, 27, 5)


def test_one_agents_side_is_a_one_agent_rollout_on_the_same_positions():
    game = record(connect_four(), random_legal(4), seed=4)
    for i, agent in enumerate(game.agents):
        side = game.for_agent(agent)
        assert side.num_positions == game.num_positions
        assert side.metadata["agent"] == agent
        np.testing.assert_array_equal(side.actions, game.agent_actions[:, i])
        np.testing.assert_array_equal(side.rewards, np.nan_to_num(game.agent_rewards[:, i]))
        assert side.terminated.sum() == 1  # PettingZoo keeps it set: the first is kept
        assert side.terminated.argmax() == game.agent_terminated[:, i].argmax()
        assert sorted(side.observations) == ["action_mask", "observation"]
        np.testing.assert_array_equal(
            side.observations["observation"], game.observations[f"{agent}/observation"]
        )
        assert side.frames is game.frames
    with pytest.raises(ValueError, match=r"no agent 'player_9' in this episode"):
        game.for_agent("player_9")


def test_an_agent_that_left_has_no_reward_after_and_its_own_image_observations():
    gone = record(zombies(), random_moves(2), seed=2).for_agent("archer_0")
    assert gone.rewards[25:].tolist() == [0.0] * (gone.num_steps - 25)
    pistons = record(
        pistonball(max_cycles=3, render_mode=None),
        random_pistons(0),
        seed=0,
        agent_observations=True,
    )
    own = pistons.for_agent("piston_3", frames=False)
    assert own.frames is None
    assert own.observations.shape == (4, 457, 120, 3)


# ---------------------------------------------------------------- branching


def test_a_game_branches_where_one_player_plays_another_move():
    game = record(connect_four(), random_legal(5), seed=5)
    t = 4
    mover = game.acting_agent[t]
    other = int(np.flatnonzero(game.action_masks[t, game.agents.index(mover)])[0])
    if other == game.actions[t]:
        other = int(np.flatnonzero(game.action_masks[t, game.agents.index(mover)])[1])
    what_if = game.branch(t, other, env=connect_four, policy=random_legal(9))
    np.testing.assert_array_equal(what_if.actions[:t], game.actions[:t])
    assert what_if.actions[t] == other
    assert what_if.acting_agent[t] == mover
    assert what_if.metadata["branch"]["t"] == t
    assert what_if.metadata["branch"]["action"] == {mover: other}
    for s in range(t + 1):  # the same board before the move
        assert np.array_equal(what_if.frames[s], game.frames[s])
    assert not np.array_equal(what_if.frames[t + 1], game.frames[t + 1])


def test_a_parallel_battle_branches_with_one_agents_other_move():
    battle = record(zombies(), random_moves(2), seed=2)
    archer = battle.agents.index("archer_0")
    move = (int(battle.agent_actions[10, archer]) + 1) % 6
    what_if = battle.branch(10, {"archer_0": move}, env=zombies(), policy=random_moves(3))
    np.testing.assert_array_equal(what_if.agent_actions[:10], battle.agent_actions[:10])
    assert what_if.agent_actions[10, archer] == move
    others = [i for i in range(4) if i != archer]
    np.testing.assert_array_equal(
        what_if.agent_actions[10, others], battle.agent_actions[10, others]
    )


def test_a_branch_refuses_what_it_cannot_replay_or_change():
    game = record(connect_four(), random_legal(5), seed=5)
    with pytest.raises(ValueError, match=r"step \d+ is player_\d's leaving step"):
        game.branch(game.num_steps - 1, 0, env=connect_four, policy=random_legal(0))
    game.agent_columns.arrays["rewards"][2, 0] = 5.0  # not what the env gives
    with pytest.raises(ReplayDivergenceError, match="diverged at step 2") as caught:
        game.branch(6, 0, env=connect_four, policy=random_legal(0))
    assert caught.value.position == 3
    battle = record(pistonball(max_cycles=5), random_pistons(0), seed=0)
    with pytest.raises(ValueError, match=r"a dict by agent"):
        battle.branch(2, np.zeros(1), env=pistonball(max_cycles=5), policy=random_pistons(0))


# ------------------------------------------------------------------ storage


@pytest.mark.parametrize(
    ("make", "policy", "seed", "version"),
    [
        (connect_four, random_legal(0), 0, 3),
        (pistonball, random_pistons(0), 0, 3),
        (Beacon, guide(0), 0, 4),
        (beacon_aec, guide(1), 1, 4),
    ],
    ids=["connect_four", "pistonball", "beacon", "beacon_aec"],
)
def test_a_multi_agent_episode_saves_and_loads_exact(tmp_path, make, policy, seed, version):
    """Byte for byte, as the lowest version that holds it: 3 where the agents' actions
    share a shape, 4 where each agent's have a column of their own."""
    rollout = record(make(), policy, seed=seed)
    path = rollout.save(tmp_path / "game.rollout")
    with zipfile.ZipFile(path) as archive:
        meta = json.loads(archive.read("meta.json"))
    assert meta["version"] == version
    assert meta["agents"]["names"] == rollout.agents
    again = load(path)
    assert again.agents == rollout.agents
    assert again.agent_columns.arrays.keys() == rollout.agent_columns.arrays.keys()
    for key, array in rollout.agent_columns.arrays.items():
        loaded = again.agent_columns.arrays[key]
        assert loaded.dtype == array.dtype
        np.testing.assert_array_equal(loaded, array, err_msg=key)
    for field in ("actions", "rewards", "terminated", "truncated"):
        np.testing.assert_array_equal(getattr(again, field), getattr(rollout, field))
    assert np.array_equal(again.acting_agent, rollout.acting_agent) or rollout.acting_agent is None
    assert list(again.infos) == list(rollout.infos)
    assert all(np.array_equal(a, b) for a, b in zip(again.frames, rollout.frames, strict=True))
    assert again.metadata == rollout.metadata
    assert again.save(tmp_path / "again.rollout").read_bytes() == path.read_bytes()


def saved_metadata(path):
    with zipfile.ZipFile(path) as archive:
        return json.loads(archive.read("meta.json"))["metadata"]


def test_agents_whose_action_spaces_differ_have_each_described(tmp_path):
    """Beacon's speaker (Discrete(3)) and listener (a Box of shape (2,)): the metadata
    describes each agent's space, none as the episode's one, in the file as in memory;
    one agent's side has its own."""
    rollout = record(beacon_aec(), guide(0), seed=0)
    described = {
        "speaker": {"type": "Discrete", "n": 3, "start": 0},
        "listener": {
            "type": "Box",
            "shape": [2],
            "dtype": "float32",
            "low": [-1.0, -1.0],
            "high": [1.0, 1.0],
        },
    }
    kept = saved_metadata(rollout.save(tmp_path / "beacon.rollout"))
    assert kept["action_space"] is None
    assert kept["agent_action_spaces"] == described
    assert load(tmp_path / "beacon.rollout").metadata == rollout.metadata == kept
    side = rollout.for_agent("listener").metadata
    assert side["action_space"] == described["listener"]
    assert "agent_action_spaces" not in side


def test_agents_sharing_a_space_keep_the_one_action_space_as_before(tmp_path):
    """Connect Four's players both choose a column of 7: one ``action_space``, no
    per-agent field, so its files are as they were."""
    rollout = record(connect_four(), random_legal(0), seed=0)
    kept = saved_metadata(rollout.save(tmp_path / "game.rollout"))
    assert kept["action_space"] == {"type": "Discrete", "n": 7, "start": 0}
    assert "agent_action_spaces" not in kept
    assert rollout.for_agent("player_1").metadata["action_space"] == kept["action_space"]


def test_knights_archers_zombies_keeps_its_documented_action_names(tmp_path):
    """Every archer and knight shares Discrete(6): one list names them all."""
    rollout = record(zombies(), random_moves(0), seed=2, max_steps=4)
    names = ["FORWARD", "BACKWARD", "TURN CCW", "TURN CW", "ATTACK", "NONE"]
    assert rollout.metadata["action_names"] == names
    assert "agent_action_names" not in rollout.metadata
    assert saved_metadata(rollout.save(tmp_path / "kaz.rollout"))["action_names"] == names
    assert rollout.for_agent("knight_0").metadata["action_names"] == names


def test_action_names_in_the_users_metadata_win_over_the_envs():
    mine = ["up", "down", "left", "right", "hit", "wait"]
    rollout = record(
        zombies(), random_moves(0), seed=2, max_steps=2, metadata={"action_names": mine}
    )
    assert rollout.metadata["action_names"] == mine


def test_a_file_saved_before_agents_spaces_were_kept_apart_loads(tmp_path):
    """A Beacon file as recordings made before this kept it, the speaker's space as the
    episode's: it loads, with that metadata, and one agent's side keeps it."""
    recorded = record(beacon_aec(), guide(0), seed=0)
    old = {k: v for k, v in recorded.metadata.items() if k != "agent_action_spaces"}
    old["action_space"] = {"type": "Discrete", "n": 3, "start": 0}
    path = dataclasses.replace(recorded, metadata=old).save(tmp_path / "old.rollout")
    assert saved_metadata(path) == old
    again = load(path)
    assert again.metadata == old
    assert again.for_agent("listener").metadata["action_space"] == old["action_space"]
    np.testing.assert_array_equal(again.agent_action("listener"), recorded.agent_action("listener"))


@pytest.mark.parametrize(
    ("make", "policy"),
    [(connect_four, random_legal(0)), (beacon_aec, guide(0))],
    ids=["connect_four", "beacon_aec"],
)
def test_a_multi_agent_file_cut_before_its_small_members_keeps_its_agents(tmp_path, make, policy):
    rollout = record(make(), policy, seed=0)
    path = rollout.save(tmp_path / "game.rollout")
    with zipfile.ZipFile(path) as archive:
        cut = archive.getinfo("meta.json").header_offset  # chunks.bin whole, nothing after
    path.write_bytes(path.read_bytes()[:cut])
    with pytest.warns(UserWarning, match="recording stopped before the end"):
        again = load(path)
    assert again.agents == rollout.agents
    for key, array in rollout.agent_columns.arrays.items():
        np.testing.assert_array_equal(again.agent_columns.arrays[key], array, err_msg=key)


def test_recording_to_a_path_gives_the_episode_read_from_it(tmp_path):
    rollout = record(tictactoe(), random_legal(2), seed=2, path=tmp_path / "t.rollout")
    assert (tmp_path / "t.rollout").exists()
    assert rollout.acting_agent.tolist() == load(tmp_path / "t.rollout").acting_agent.tolist()


# ------------------------------------------- actions of different shapes


def test_agents_whose_actions_differ_in_shape_each_keep_theirs_as_taken():
    """Beacon's speaker says a word (Discrete(3)), its listener moves (a Box of shape
    (2,)): each agent's actions are a column of their own, in their own shape and
    dtype, equal to what the policy gave the env."""
    rollout = record(Beacon(), guide(0), seed=0)
    steps, frames = parallel_by_hand(Beacon(), guide(0), seed=0)
    assert_rewards_as_read(rollout, steps)
    speaker, listener = rollout.agent_action("speaker"), rollout.agent_action("listener")
    assert speaker.dtype == np.int64
    assert speaker.tolist() == [step["actions"]["speaker"] for step in steps]
    assert listener.dtype == np.float64
    assert listener.shape == (len(steps), 2)
    np.testing.assert_array_equal(listener, [step["actions"]["listener"] for step in steps])
    assert rollout.actions.shape == (len(steps), 0)  # no one array holds them
    with pytest.raises(ValueError, match=r"differ in shape .*agent_action\(agent\)"):
        _ = rollout.agent_actions
    assert all(np.array_equal(a, b) for a, b in zip(rollout.frames, frames, strict=True))


def test_an_aec_env_whose_actions_differ_in_shape_keeps_each_turns_action():
    """Beacon through PettingZoo's parallel_to_aec: a turn each, the acting agent's
    action in its own column, none (-1, NaN) in the other's."""
    rollout = record(beacon_aec(), guide(3), seed=3)
    steps = aec_by_hand(beacon_aec(), guide(3), seed=3)
    assert_rewards_as_read(rollout, steps)
    assert rollout.acting_agent.tolist() == [step["agent"] for step in steps]
    for t, step in enumerate(steps):
        for agent in rollout.agents:
            taken = rollout.agent_action(agent)[t]
            if agent == step["agent"] and step["action"] is not None:
                np.testing.assert_array_equal(taken, step["action"])
            else:
                assert np.all(taken == -1) if agent == "speaker" else np.all(np.isnan(taken))
    assert rollout.agent_acted[:, 0].sum() == rollout.agent_acted[:, 1].sum() == 6


def test_a_game_of_different_action_shapes_recorded_to_a_path_and_cut_keeps_its_chunks(
    tmp_path,
):
    """record(path=) journals each agent's own column with each chunk: a file cut after
    its first chunk gives those steps' actions back."""
    path = tmp_path / "beacon.rollout"
    rollout = record(beacon_aec(), guide(0), seed=0, path=path)
    whole = load(path)
    for agent in rollout.agents:
        np.testing.assert_array_equal(whole.agent_action(agent), rollout.agent_action(agent))
    with zipfile.ZipFile(path) as archive:
        cut = archive.getinfo("meta.json").header_offset
    path.write_bytes(path.read_bytes()[:cut])
    with pytest.warns(UserWarning, match="recording stopped before the end"):
        kept = load(path)
    for agent in rollout.agents:
        np.testing.assert_array_equal(kept.agent_action(agent), rollout.agent_action(agent))


def test_a_branch_replays_recorded_actions_of_different_shapes():
    rollout = record(Beacon(), guide(4), seed=4)
    what_if = rollout.branch(2, {"speaker": 2}, env=Beacon(), policy=guide(5))
    for agent in rollout.agents:
        np.testing.assert_array_equal(
            what_if.agent_action(agent)[:2], rollout.agent_action(agent)[:2]
        )
    assert what_if.agent_action("speaker")[2] == 2


def test_a_run_library_ranks_runs_per_agent(tmp_path):
    library = RunLibrary(tmp_path)
    episodes = [record(connect_four(), random_legal(seed), seed=seed) for seed in range(3)]
    library.add(episodes, algorithm="random", run="r")
    (row,) = library.table()
    expected = np.mean([np.nansum(e.agent_rewards, axis=0) for e in episodes], axis=0)
    assert row["agent_returns"] == dict(zip(episodes[0].agents, expected.tolist(), strict=True))
    opened = library.open(row["id"])
    np.testing.assert_array_equal(opened[1].agent_rewards, episodes[1].agent_rewards)


# ---------------------------------------------------------------- bad input


def test_an_agent_missing_from_the_policies_names_it_and_keeps_the_steps_before():
    policies = {"player_0": lambda obs: int(np.flatnonzero(obs["action_mask"])[0])}
    with pytest.raises(ValueError, match=r"step 1: no policy for agent 'player_1'") as caught:
        record(connect_four(), policies, seed=0)
    assert caught.value.rollout.num_steps == 1
    assert caught.value.rollout.acting_agent.tolist() == ["player_0"]


def test_a_masked_action_names_the_agent_and_step_and_keeps_the_steps_before():
    # Both players take square 0: player_1's is taken by then.
    with pytest.raises(
        ValueError, match=r"step 1: agent 'player_2' chose action 0, which its action mask forbids"
    ) as caught:
        record(tictactoe(), lambda agent, obs: 0, seed=0)
    assert caught.value.rollout.num_steps == 1
    assert caught.value.rollout.agent_actions[0].tolist() == [0, -1]


class Duel(pettingzoo.ParallelEnv):
    """Two agents for five steps, a reward of 1 each a step, whose ``agents`` list
    changes at step 2 as ``fault`` says: "drop" one without its being done, add a
    "ghost" not among the possible agents, or let the "late" one join (as it may)."""

    def __init__(self, fault=None):
        self.metadata = {"name": "duel_v0"}
        self.possible_agents = ["left", "right", "late"]
        self.fault = fault

    def observation_space(self, agent):
        return spaces.Box(0, 5, (1,), np.float32)

    def action_space(self, agent):
        return spaces.Discrete(2)

    def reset(self, seed=None, options=None):
        self.agents, self.t = ["left", "right"], 0
        return {a: np.zeros(1, np.float32) for a in self.agents}, {a: {} for a in self.agents}

    def step(self, actions):
        self.t += 1
        if self.t == 3 and self.fault is not None:
            changed = {"drop": ["left"], "ghost": ["ghost"], "join": ["late"]}[self.fault]
            self.agents = changed if self.fault == "drop" else [*self.agents, *changed]
        obs = {a: np.full(1, self.t, np.float32) for a in [*actions, *self.agents]}
        done = {a: self.t == 5 for a in actions}
        if self.t == 5:
            self.agents = []
        return obs, {a: 1.0 for a in actions}, done, dict.fromkeys(actions, False), {}


@pytest.mark.parametrize(
    ("fault", "message"),
    [
        ("drop", r"step 2: agent\(s\) \['right'\] left env.agents without being terminated"),
        ("ghost", r"step 2: env.agents holds \['ghost'\], not among its possible_agents"),
    ],
)
def test_an_agents_list_that_changes_unexpectedly_names_the_agent_and_step(fault, message):
    with pytest.raises(ValueError, match=message) as caught:
        record(Duel(fault), lambda agent, obs: 1, seed=0)
    kept = caught.value.rollout
    assert kept.num_steps == 2
    assert kept.truncated[-1]
    np.testing.assert_array_equal(kept.agent_rewards, [[1, 1, np.nan]] * 2)


def test_an_agent_that_joins_mid_episode_has_its_column_from_then_on():
    rollout = record(Duel("join"), lambda agent, obs: 1, seed=0)
    assert rollout.agents == ["left", "right", "late"]
    assert rollout.agent_present[:, 2].tolist() == [False, False, False, True, True]
    np.testing.assert_array_equal(rollout.agent_rewards[:, 2], [np.nan] * 3 + [1, 1])
    assert rollout.agent_acted[:, 2].tolist() == [False, False, False, True, True]
    assert rollout.observations["late"][:, 0].tolist() == [0, 0, 0, 3, 4, 5]
    assert rollout.terminated[-1]


def test_an_action_of_another_shape_names_the_agent_and_step():
    with pytest.raises(ValueError, match=r"step 0: agent 'left''s action \[1, 1\] is not a number"):
        record(Duel(), lambda agent, obs: [1, 1], seed=0)


def test_steps_kept_after_an_error_go_to_the_path_when_nothing_is_there(tmp_path):
    policies = {"player_0": lambda obs: int(np.flatnonzero(obs["action_mask"])[0])}
    path = tmp_path / "cut.rollout"
    with pytest.raises(ValueError, match="no policy for agent") as caught:
        record(connect_four(), policies, seed=0, path=path)
    assert f"and in {path}" in "\n".join(caught.value.__notes__)
    kept = load(path)
    assert kept.num_steps == 1
    assert kept.acting_agent.tolist() == ["player_0"]
    assert kept.truncated.tolist() == [True]


def test_ctrl_c_mid_game_keeps_the_turns_before_it():
    choose, turns = random_legal(0), []

    def interrupted(agent, obs):
        turns.append(agent)
        if len(turns) == 6:  # Kernel -> Interrupt while player_1 thinks
            raise KeyboardInterrupt
        return choose(agent, obs)

    with pytest.raises(KeyboardInterrupt) as caught:
        record(connect_four(), interrupted, seed=0)
    kept = caught.value.rollout
    assert kept.num_steps == 5
    assert kept.acting_agent.tolist() == turns[:5]
    assert kept.truncated[-1]
    assert kept.agent_columns.arrays["rewards"].shape == (kept.num_steps, 2)
    assert len(kept.frames) == kept.num_positions


def test_agent_widget_imports_and_records_gymnasium_without_pettingzoo():
    code = (
        "import sys; sys.modules['pettingzoo'] = None\n"
        "import gymnasium as gym, agent_widget\n"
        "r = agent_widget.record(gym.make('CartPole-v1'), lambda obs: 0, seed=0)\n"
        "assert 'pettingzoo.utils.env' not in sys.modules and r.agents == []\n"
        "print(r.num_steps)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) > 0


def test_a_game_recorded_to_a_path_and_killed_keeps_its_whole_chunks(tmp_path):
    """record(path=) writes a multi-agent episode a chunk at a time, its per-agent
    columns journaled with each: a process killed mid-game (os._exit: no clean-up)
    leaves a file holding every whole chunk, each agent's columns included. On one
    CPU, so frames are encoded inline and every whole chunk is written."""
    path = tmp_path / "killed.rollout"
    code = f"""
import os
os.sched_setaffinity(0, {{0}})
import numpy as np
import pettingzoo
from agent_widget import record
rng, turns = np.random.default_rng(5), [0]
def policy(agent, obs):
    turns[0] += 1
    if turns[0] == 20:
        os._exit(0)
    return int(rng.choice(np.flatnonzero(obs["action_mask"])))
env = pettingzoo.make("aec", "classic/connect_four-v3", render_mode="rgb_array")
record(env, policy, seed=0, path={str(path)!r})
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr

    part = path.with_name(path.name + ".part")
    with pytest.warns(UserWarning, match="stopped before the end"):
        kept = load(part)
    assert kept.num_positions == 16  # the first chunk; the second needed position 32
    whole = record(connect_four(), random_legal(5), seed=0)
    steps = kept.num_steps
    assert kept.agents == whole.agents
    np.testing.assert_array_equal(kept.agent_rewards, whole.agent_rewards[:steps])
    np.testing.assert_array_equal(kept.agent_actions, whole.agent_actions[:steps])
    assert kept.acting_agent.tolist() == whole.acting_agent[:steps].tolist()
    np.testing.assert_array_equal(kept.action_masks, whole.action_masks[:steps])
    np.testing.assert_array_equal(kept.frames[steps], whole.frames[steps])
