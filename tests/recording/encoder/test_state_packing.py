"""Env states packed by the encoder process: sent there, and back byte for byte; packed
here once it died, or where there is none; a chain goes on as deltas wherever its next
state is packed (here, there, after thinning)."""

from __future__ import annotations

import os
import signal

import gymnasium as gym
import numpy as np
import pytest

from agent_widget.format._state_deltas import DeltaState
from agent_widget.recording._encoder import _state_packing as _state_packing
from agent_widget.recording._encoder._process import cores
from agent_widget.recording._encoder._state_packing import StateChain
from agent_widget.recording._env_states import SavedStates

ale_py = pytest.importorskip("ale_py")
gym.register_envs(ale_py)
pytestmark = pytest.mark.skipif(cores() < 2, reason="the encoder process needs a second core")


def ale_states(count, every=64, seed=0):
    """``count`` Pong states ``every`` steps apart, by position."""
    env = gym.make("ALE/Pong-v5")
    env.reset(seed=seed)
    moves = np.random.default_rng(seed).integers(6, size=count * every).tolist()
    states = {}
    for t, move in enumerate(moves, 1):
        env.step(move)
        if t % every == 0:
            states[t] = env.unwrapped.clone_state(include_rng=True)
    return states


def serialized(states):
    return {position: state.serialized() for position, state in states.items()}


def test_states_go_to_the_encoder_process_and_come_back_byte_for_byte(encoder):
    saved = ale_states(12)
    chain = StateChain(type(next(iter(saved.values()))), {})
    for position, state in saved.items():
        chain.add(position, state)
        assert position in chain.pending or isinstance(chain.states[position], DeltaState)
    assert chain.pending  # the last on its way: not packed on this thread
    chain.settle()
    assert not chain.pending
    assert encoder.error is None
    assert serialized(chain.states) == {p: s.serialize() for p, s in saved.items()}
    packed = list(chain.states.values())
    assert packed[0].nbytes > 4_000
    assert max(s.nbytes for s in packed[1:]) < 600


def test_states_the_encoder_had_when_killed_are_packed_here(encoder):
    saved = ale_states(10)
    chain = StateChain(type(next(iter(saved.values()))), {})
    for n, (position, state) in enumerate(saved.items()):
        if n == 7:  # the next ones stay on their way (three fit the pipe)
            chain.settle()
            os.kill(encoder.process.pid, signal.SIGSTOP)
        chain.add(position, state)
    assert len(chain.pending) >= 3
    os.kill(encoder.process.pid, signal.SIGKILL)
    chain.settle()
    assert not chain.pending
    assert serialized(chain.states) == {p: s.serialize() for p, s in saved.items()}
    assert whole(chain.states) == [min(saved)]  # packed here, still deltas


def whole(states):
    """The positions of the states held whole (the rest are deltas)."""
    return [position for position, state in states.items() if state.delta.based is False]


def test_a_chain_begun_here_goes_on_as_deltas_in_the_encoder_process(encoder, monkeypatch):
    saved = ale_states(10)
    chain = StateChain(type(next(iter(saved.values()))), {})
    positions = sorted(saved)
    monkeypatch.setattr(_state_packing, "encoder_process", lambda: None)  # still starting
    for position in positions[:4]:
        chain.add(position, saved[position])
    monkeypatch.undo()
    for position in positions[4:]:
        chain.add(position, saved[position])
    assert chain.pending  # went there
    chain.settle()
    assert serialized(chain.states) == {p: s.serialize() for p, s in saved.items()}
    assert whole(chain.states) == [positions[0]]


def test_without_an_encoder_process_states_are_packed_here(monkeypatch):
    monkeypatch.setattr(_state_packing, "encoder_process", lambda: None)  # as on one core
    saved = ale_states(5)
    chain = StateChain(type(next(iter(saved.values()))), {})
    for position, state in saved.items():
        chain.add(position, state)
        assert not chain.pending
    assert serialized(chain.states) == {p: s.serialize() for p, s in saved.items()}


def test_a_thinned_chain_goes_on_in_the_encoder_process_byte_for_byte(encoder):
    saved = ale_states(16)
    chain = StateChain(type(next(iter(saved.values()))), {})
    positions = sorted(saved)
    for position in positions[:8]:
        chain.add(position, saved[position])
    kept = set(positions[1:8:2])
    thinned = chain.thinned(kept)
    chain.states.clear()
    chain.states.update(thinned)
    for position in positions[8:]:
        chain.add(position, saved[position])
    chain.settle()
    assert sorted(chain.states) == sorted(kept | set(positions[8:]))
    assert serialized(chain.states) == {p: saved[p].serialize() for p in chain.states}
    assert whole(chain.states) == [min(kept)]


def test_a_ctrl_c_as_a_state_is_sent_loses_no_state_and_wedges_nothing(encoder, monkeypatch):
    """SIGINT arrives just as a state goes to the encoder process: the state is sent
    whole before the KeyboardInterrupt is raised, so waiting for it ends, and every
    state saved comes back byte for byte."""
    env = gym.make("ALE/Pong-v5")
    env.reset(seed=0)
    saved, sent, raws = SavedStates(env, None), set(), {}
    send = encoder.send

    def watched(message):
        if message[0] == "state":
            if message[2] == 3 * 64:
                signal.raise_signal(signal.SIGINT)  # Kernel -> Interrupt, just then
            sent.add(message[2])
        send(message)

    monkeypatch.setattr(encoder, "send", watched)
    moves = np.random.default_rng(0).integers(6, size=5 * 64).tolist()
    interrupted = []
    for t, move in enumerate(moves, 1):
        env.step(move)
        if t % 64 == 0:
            raws[t] = env.unwrapped.clone_state(include_rng=True).serialize()
        try:
            saved.save(env, t)
        except KeyboardInterrupt:
            interrupted.append(t)
    assert interrupted == [3 * 64]
    assert set(saved._chain.pending) <= sent  # none waited for that was never sent
    saved.fit(10**9)
    assert serialized(saved.states) == raws
