"""The Agent plugin's routes, through TensorBoard's own WSGI app: the runs listed, an
episode's state and frame chunks as stored (binary, cached by version), and every path
or parameter that should be refused refused with 400 and a sentence."""

from __future__ import annotations

import json
import os
import zlib
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest

from agent_widget import load, record, save
from tests.sample_episodes import episode
from tests.tensorboard.apps import ROUTES, get, tensorboard
from tests.tensorboard.bodies import unpacked


@pytest.fixture
def logdir(tmp_path: Path) -> Path:
    """A run ``cleanrl/seed0`` of two episodes (40 and 3 steps), a damaged file in
    ``broken``, and a file outside the logdir that a link inside it points to."""
    root = tmp_path / "runs"
    for folder in ("cleanrl/seed0", "broken"):
        (root / folder).mkdir(parents=True)
    (tmp_path / "secret").mkdir()
    save(
        episode([1.0] * 40, seed=0, env_id="Moving-v0", algorithm="ppo"),
        root / "cleanrl/seed0/episode-000.rollout",
    )
    save(
        episode([0.5, 0.5, -1.0], seed=1, training_step=5000),
        root / "cleanrl/seed0/episode-001.rollout",
    )
    (root / "broken/bad.rollout").write_bytes(b"PK\x03\x04 not a zip at all")
    (root / "cleanrl/events.out.tfevents.1.host").write_bytes(b"")  # scalars of the runs below
    save(episode([9.0], seed=7), tmp_path / "secret/private.rollout")
    os.symlink(tmp_path / "secret", root / "linked")
    os.symlink(tmp_path / "secret/private.rollout", root / "cleanrl/leak.rollout")
    return root


def test_lists_each_run_with_its_episodes_env_seed_step_return_and_length(logdir):
    response = get(tensorboard(logdir), "runs")
    assert response.status_code == 200
    runs = {run["run"]: run["episodes"] for run in response.json["runs"]}
    scalars = {run["run"]: run["scalars"] for run in response.json["runs"]}
    assert scalars == {"broken": None, "cleanrl/seed0": "cleanrl"}  # the nearest above
    assert sorted(runs) == ["broken", "cleanrl/seed0"]  # no link out of the logdir
    first, second = runs["cleanrl/seed0"]
    assert (first["path"], first["env_id"], first["algorithm"], first["seed"]) == (
        "cleanrl/seed0/episode-000.rollout",
        "Moving-v0",
        "ppo",
        0,
    )
    assert (first["return"], first["length"], first["training_step"]) == (40.0, 40, None)
    assert (second["return"], second["length"], second["training_step"]) == (0.0, 3, 5000)
    assert "bad.rollout" in runs["broken"][0]["error"]  # the row says why, the others stay


def test_the_tab_is_active_only_when_the_logdir_holds_an_episode(logdir, tmp_path):
    listing = tensorboard(logdir).get("/data/plugins_listing").json
    assert listing["agent"]["enabled"] is True
    assert listing["agent"]["tab_name"] == "Agent"
    assert listing["agent"]["loading_mechanism"] == {
        "type": "IFRAME",
        "module_path": "/data/plugin/agent/index.js",
    }
    (tmp_path / "empty").mkdir()
    assert (
        tensorboard(tmp_path / "empty").get("/data/plugins_listing").json["agent"]["enabled"]
        is False
    )


def test_an_episode_state_is_binary_and_carries_the_series_as_stored_bytes(logdir):
    response = get(tensorboard(logdir), "episode", path="cleanrl/seed0/episode-000.rollout")
    assert response.status_code == 200
    assert response.content_type == "application/octet-stream"
    state = unpacked(response.data)["state"]
    assert state["length"] == 41
    assert state["has_frames"] is True
    rewards = state["series"]["rewards"]
    assert rewards[:4] == b"|u1 "
    assert list(rewards[4:]) == [1] * 40


def test_an_episode_state_carries_its_first_chunk_as_stored_and_no_other(logdir):
    """The first frame comes with the episode's answer (no second round trip), as stored."""
    path = "cleanrl/seed0/episode-000.rollout"
    state = unpacked(get(tensorboard(logdir), "episode", path=path).data)["state"]
    (buffers,) = state["embedded"]  # chunk 0 alone: 41 positions hold 3 chunks
    assert buffers[:-1] == [part.payload for part in load(logdir / path).frames.chunk(0)]
    assert json.loads(zlib.decompress(buffers[-1]))["chunks"] == [0]


def test_frame_chunks_go_as_the_file_stores_them_with_their_readout_index(logdir):
    client = tensorboard(logdir)
    path = "cleanrl/seed0/episode-000.rollout"
    m = json.dumps({"type": "chunks", "chunks": [1, 2]})
    response = get(client, "message", path=path, m=m)
    assert response.status_code == 200
    ((content, buffers),) = unpacked(response.data)["replies"]
    assert content == {"type": "chunks"}  # the id is the browser's to put back
    stored = load(logdir / path).frames
    payloads = [part.payload for k in (1, 2) for part in stored.chunk(k)]
    assert buffers[:-1] == payloads
    index = json.loads(zlib.decompress(buffers[-1]))
    assert index["chunks"] == [1, 2]
    assert index["counts"] == [16, 9]


def test_a_chunk_reply_is_cached_by_the_file_version(logdir):
    client = tensorboard(logdir)
    params = {"path": "cleanrl/seed0/episode-000.rollout", "m": '{"type":"chunks","chunks":[0]}'}
    first = get(client, "message", **params)
    assert first.headers["Cache-Control"] == "private, no-cache"
    again = client.get(
        f"{ROUTES}/message", query_string=params, headers={"If-None-Match": first.headers["ETag"]}
    )
    assert again.status_code == 304
    assert again.data == b""
    save(episode([2.0] * 40), logdir / params["path"])  # the file changed: a new version
    changed = client.get(
        f"{ROUTES}/message", query_string=params, headers={"If-None-Match": first.headers["ETag"]}
    )
    assert changed.status_code == 200
    assert changed.headers["ETag"] != first.headers["ETag"]


@pytest.mark.parametrize(
    ("path", "said"),
    [
        ("../secret/private.rollout", "'..'"),
        ("cleanrl/../../secret/private.rollout", "'..'"),
        ("/etc/passwd.rollout", "relative"),
        ("linked/private.rollout", "out of the logdir"),
        ("cleanrl/leak.rollout", "out of the logdir"),
        ("cleanrl/seed0/../seed0/episode-000.rollout", "'..'"),
        ("cleanrl//seed0/episode-000.rollout", "empty parts"),
        ("cleanrl/seed0", ".rollout"),
        ("", "missing"),
    ],
)
def test_a_path_that_leaves_the_logdir_or_names_no_episode_is_refused(logdir, path, said):
    for route, extra in (("episode", {}), ("message", {"m": '{"type":"chunks","chunks":[0]}'})):
        response = get(tensorboard(logdir), route, path=path, **extra)
        assert response.status_code == 400, (route, path)
        assert response.content_type.startswith("text/plain")
        assert said in response.get_data(as_text=True)


def test_a_missing_episode_is_404(logdir):
    response = get(tensorboard(logdir), "episode", path="cleanrl/seed0/episode-009.rollout")
    assert response.status_code == 404
    assert "episode-009.rollout" in response.get_data(as_text=True)


@pytest.mark.parametrize(
    ("m", "said"),
    [
        (None, "missing"),
        ("{not json", "not JSON"),
        ('["chunks"]', "of type"),
        ('{"type":"kernel","step":0}', "of type"),
        ('{"type":"panel","step":0,"names":["nope"]}', "no panel 'nope'"),
        ('{"type":"panel","step":99}', "no step 99"),
        ('{"type":"panel","step":"0"}', "step"),
        ('{"type":"chunks","chunks":[99]}', "99"),
        ('{"type":"chunks","chunks":"0"}', "chunks"),
        ('{"type":"timeline","start":5,"stop":2,"columns":4}', "positions"),
        ("x" * 9000, "at most"),
    ],
)
def test_a_bad_request_is_400_with_a_sentence_never_a_traceback(logdir, m, said):
    params = {"path": "cleanrl/seed0/episode-000.rollout"} | ({} if m is None else {"m": m})
    response = get(tensorboard(logdir), "message", **params)
    assert response.status_code == 400
    text = response.get_data(as_text=True)
    assert said in text
    assert "Traceback" not in text


def test_a_damaged_file_is_refused_with_what_load_says(logdir):
    response = get(tensorboard(logdir), "episode", path="broken/bad.rollout")
    assert response.status_code == 400
    assert "bad.rollout" in response.get_data(as_text=True)


def test_the_front_end_module_and_its_stylesheet_are_served(logdir):
    client = tensorboard(logdir)
    script = get(client, "index.js")
    assert script.status_code == 200
    assert "javascript" in script.content_type
    assert b"export" in script.data
    assert get(client, "index.css").status_code == 200


def test_a_recording_under_way_is_listed_and_opens_with_what_is_there(tmp_path):
    """Halfway through ``record(path=)``, the file is ``<path>.part``: the plugin lists it
    as recording and serves the chunks written so far, as the finished file holds them."""
    seen: dict[str, Any] = {}
    part = "live/car.rollout.part"

    def policy(obs):
        t = seen.setdefault("t", 0)
        seen["t"] = t + 1
        if t == 50:  # asked for action 50: 51 positions, 3 chunks of which are whole
            client = tensorboard(tmp_path)
            seen["runs"] = get(client, "runs").json["runs"]
            seen["state"] = unpacked(get(client, "episode", path=part).data)["state"]
            m = json.dumps({"type": "chunks", "chunks": [0]})
            seen["chunk"] = unpacked(get(client, "message", path=part, m=m).data)["replies"]
        return 2

    (tmp_path / "live").mkdir()
    env = gym.make("MountainCar-v0", render_mode="rgb_array")
    record(env, policy, seed=0, max_steps=60, path=tmp_path / "live/car.rollout")
    ((row,),) = [run["episodes"] for run in seen["runs"]]
    assert (row["path"], row["growing"], row["env_id"]) == (part, True, "MountainCar-v0")
    # What a reader can open: the whole chunks written so far (the file trails the
    # episode by a chunk or two while the encoder process holds them).
    length = seen["state"]["length"]
    assert length in (16, 32, 48)
    assert row["length"] == length - 1
    ((_, buffers),) = seen["chunk"]
    finished = load(tmp_path / "live/car.rollout").frames
    assert buffers[:-1] == [p.payload for p in finished.chunk(0)]
