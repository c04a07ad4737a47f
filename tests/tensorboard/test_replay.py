"""A checkpoint's episode, stored without frames, shown with frames rendered by replay
in TensorBoard's process; and a stranger's file whose env would import a module or read
a file of its choosing, shown without frames, saying why, with nothing imported."""

from __future__ import annotations

import dataclasses
import json
import sys
import zlib

import gymnasium as gym
import numpy as np
import pytest

from agent_widget import record, save
from agent_widget.format._codec import Part, decode_part
from agent_widget.recording import render_frames
from tests.tensorboard.apps import get, tensorboard
from tests.tensorboard.bodies import unpacked

PATH = "run/episode-000.rollout"


@pytest.fixture
def checkpoint_episode():
    """A CartPole evaluation episode as ``RecordCheckpoints`` keeps it: no frames, its
    seed, observations, env_spec and training step."""
    env = gym.make("CartPole-v1")
    return record(env, lambda obs: int(obs[2] > 0), seed=4, metadata={"training_step": 5000})


def frames_served(client) -> np.ndarray:
    """Every frame of chunk 0 as the tab gets it, decoded."""
    m = json.dumps({"type": "chunks", "chunks": [0]})
    ((_, buffers),) = unpacked(get(client, "message", path=PATH, m=m).data)["replies"]
    index = json.loads(zlib.decompress(buffers[-1]))
    parts = [
        Part(**{k: v for k, v in header.items() if k != "chunk"}, payload=payload)
        for header, payload in zip(index["parts"], buffers[:-1], strict=True)
    ]
    return np.concatenate([decode_part(part) for part in parts])


def test_a_checkpoint_episode_gets_its_frames_by_replay(tmp_path, checkpoint_episode):
    assert checkpoint_episode.frames is None
    (tmp_path / "run").mkdir()
    save(checkpoint_episode, tmp_path / PATH)
    client = tensorboard(tmp_path)
    body = unpacked(get(client, "episode", path=PATH).data)
    assert body["state"]["has_frames"] is True
    assert body["problem"] is None
    rendered = render_frames(checkpoint_episode).frames
    served = frames_served(client)
    assert served.shape == (16, 400, 600, 3)
    assert all(np.array_equal(served[t], rendered[t]) for t in range(16))


@pytest.mark.parametrize(
    ("spec", "said"),
    [
        ({"id": "planted_env:Env", "kwargs": {}}, "no id of gymnasium's registry"),
        ({"id": "NoSuchEnv-v9", "kwargs": {}}, "no id of gymnasium's registry"),
        ({"id": "CartPole-v1", "kwargs": {"xml_file": "/etc/passwd"}}, "names a file"),
        (None, "keeps no env_spec"),
    ],
)
def test_an_env_the_file_would_choose_is_not_made(
    tmp_path, monkeypatch, checkpoint_episode, spec, said
):
    # A module on the path that a file naming it would have imported.
    (tmp_path / "planted_env.py").write_text("class Env: ...\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    metadata = {**checkpoint_episode.metadata, "env_spec": spec}
    if spec is None:
        del metadata["env_spec"]
        metadata["env_id"] = "planted_env:Env"  # gym.make would import it
    (tmp_path / "run").mkdir()
    save(dataclasses.replace(checkpoint_episode, metadata=metadata), tmp_path / PATH)
    body = unpacked(get(tensorboard(tmp_path), "episode", path=PATH).data)
    assert "planted_env" not in sys.modules
    assert body["state"]["has_frames"] is False
    assert said in body["problem"]
