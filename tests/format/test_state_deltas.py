"""Env states held as deltas: each state's bytes come back exactly, and a delta is a
fraction of a state."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

from agent_widget.format._state_deltas import DeltaState, _twisted
from agent_widget.recording._env_states import SavedStates


def test_a_regeneration_is_numpys_mt19937s():
    words = np.random.default_rng(0).integers(0, 2**32, 624, dtype=np.uint64).astype(np.uint32)
    generator = np.random.MT19937()
    generator.state = {"bit_generator": "MT19937", "state": {"key": words, "pos": 624}}
    for _ in range(3):
        generator.random_raw(624)  # one regeneration's worth of draws
        words = _twisted(words)
        np.testing.assert_array_equal(words, generator.state["state"]["key"])


def test_ale_states_come_back_byte_for_byte_from_a_chain_of_deltas():
    ale_py = pytest.importorskip("ale_py")
    gym.register_envs(ale_py)
    env = gym.make("ALE/Pong-v5")
    env.reset(seed=0)
    moves = np.random.default_rng(0).integers(6, size=700).tolist()
    raws, chain, last = [], [], None
    for t, move in enumerate(moves, 1):
        env.step(move)
        if t % 50 == 0:  # 200 draws of each generator: some regenerate in between
            state = env.unwrapped.clone_state(include_rng=True)
            raws.append(state.serialize())
            last = DeltaState.packed(type(state), raws[-1], last)
            chain.append(last[0])
    assert [state.serialized() for state in chain] == raws
    assert any(n == 1 for state in chain for n in state.delta.twists)  # regenerated, as a count
    assert chain[0].nbytes > 4_000
    assert max(state.nbytes for state in chain[1:]) < 600


def test_states_thinned_to_their_budget_come_back_byte_for_byte():
    ale_py = pytest.importorskip("ale_py")
    gym.register_envs(ale_py)
    env = gym.make("ALE/Pong-v5")
    env.reset(seed=1)
    saved, raws = SavedStates(env, None), {}
    for t, move in enumerate(np.random.default_rng(1).integers(6, size=800).tolist(), 1):
        env.step(move)
        saved.save(env, t)
        raws[t] = env.unwrapped.clone_state(include_rng=True).serialize()
    assert sorted(saved.states) == list(range(64, 801, 64))
    held = saved.nbytes
    saved.fit(10 * (held - 1))  # a budget just under what they hold: thinned once
    assert saved.every == 128
    assert sorted(saved.states) == list(range(128, 801, 128))
    assert saved.nbytes <= held - 1
    for position, state in saved.states.items():
        assert state.serialized() == raws[position], position
    saved.fit(0)  # no room at all: none kept
    assert saved.states == {}
