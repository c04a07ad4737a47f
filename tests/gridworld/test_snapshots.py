"""Snapshots: tables kept within their error bound, compactly, through a file and back."""

from __future__ import annotations

import zipfile

import numpy as np
import pytest

from agent_widget.episodes import RolloutFileError
from agent_widget.gridworld._snapshots import BLOCK, Snapshots


def training_like(count, seed=0, shape=(64, 4), changed=25):
    """Tables as training makes them: each episode nudges a few entries.

    25 entries an episode by about 0.002 (median) is what Q-learning does on 8x8 FrozenLake,
    but here the entries are drawn anywhere, not along the agent's path, which packs about
    half as well as a real run does (see benchmarks/RESULTS.md): a harder case.
    """
    rng = np.random.default_rng(seed)
    table = np.zeros(shape)
    for _ in range(count):
        entries = rng.integers(table.size, size=changed)
        table.flat[entries] += rng.normal(0, 0.003, size=changed)
        yield table


def filled(count, **kwargs):
    snapshots = Snapshots()
    tables = []
    for episode, table in enumerate(training_like(count, **kwargs)):
        snapshots.append(table, episode=episode, ret=float(episode % 2))
        tables.append(table.copy())
    return snapshots, np.stack(tables)


def test_every_snapshot_reads_back_within_the_tolerance():
    snapshots, tables = filled(3 * BLOCK + 10)  # full blocks and a part-filled one
    errors = [np.abs(snapshots[k] - tables[k]).max() for k in range(len(tables))]
    assert max(errors) <= snapshots.tolerance
    assert max(errors) > snapshots.tolerance / 10  # values really are quantized, not copied


def test_a_coarser_tolerance_is_kept_too():
    snapshots = Snapshots(tolerance=0.01)
    snapshots.append(np.array([0.123456, -3.14159]))
    assert np.abs(snapshots[0] - [0.123456, -3.14159]).max() <= 0.01


def test_episodes_and_returns_are_kept_per_snapshot():
    snapshots = Snapshots()
    snapshots.append(np.zeros(3), episode=10, ret=1.0)
    snapshots.append(np.zeros(3))
    assert snapshots.episodes.tolist() == [10, 1]
    assert snapshots.returns[0] == 1.0
    assert np.isnan(snapshots.returns[1])


def test_the_table_is_copied_when_appended():
    snapshots, table = Snapshots(), np.zeros((2, 2))
    snapshots.append(table)
    table[:] = 1.0
    snapshots.append(table)
    assert snapshots[0].tolist() == [[0.0, 0.0], [0.0, 0.0]]


def test_negative_indices_count_from_the_end_and_others_raise():
    snapshots, tables = filled(5)
    assert np.abs(snapshots[-5] - tables[0]).max() <= snapshots.tolerance
    with pytest.raises(IndexError, match="snapshot 5 out of range: there are 5"):
        snapshots[5]


def test_100000_snapshots_of_an_8x8x4_table_fit_in_a_few_megabytes(tmp_path):
    snapshots = Snapshots()
    for table in training_like(100_000):
        snapshots.append(table)
    assert snapshots.nbytes < 8 * 2**20  # measured: 6.8 MiB, 1.5 of it episodes and returns
    size = snapshots.save(tmp_path / "run.snapshots").stat().st_size
    assert size < 6 * 2**20  # measured: 5.2 MiB


def test_a_file_round_trip_reads_the_same_tables_and_scalars(tmp_path):
    snapshots, _ = filled(BLOCK + 3)
    snapshots.metadata["env_id"] = "FrozenLake-v1"
    loaded = Snapshots.load(snapshots.save(tmp_path / "run.snapshots"))
    assert len(loaded) == len(snapshots)
    assert all(np.array_equal(loaded[k], snapshots[k]) for k in range(len(snapshots)))
    assert np.array_equal(loaded.episodes, snapshots.episodes)
    assert np.array_equal(loaded.returns, snapshots.returns)
    assert loaded.metadata == {"env_id": "FrozenLake-v1"}
    assert loaded.tolerance == snapshots.tolerance


def test_appending_continues_after_loading(tmp_path):
    snapshots, tables = filled(BLOCK + 3)
    loaded = Snapshots.load(snapshots.save(tmp_path / "run.snapshots"))
    extra = tables[-1] + 0.5
    for _ in range(BLOCK):
        loaded.append(extra)
    assert np.abs(loaded[BLOCK + 2] - tables[-1]).max() <= loaded.tolerance
    assert np.abs(loaded[-1] - extra).max() <= loaded.tolerance


def test_an_empty_run_round_trips(tmp_path):
    assert len(Snapshots.load(Snapshots().save(tmp_path / "empty.snapshots"))) == 0


def test_the_file_is_a_zip_of_npy_members_and_json(tmp_path):
    path = filled(10)[0].save(tmp_path / "run.snapshots")
    names = zipfile.ZipFile(path).namelist()
    assert names[0] == "snapshots.json"
    assert all(name.endswith(".npy") for name in names[1:])


def test_a_table_of_another_shape_is_refused_naming_the_snapshot():
    snapshots = Snapshots()
    snapshots.append(np.zeros((4, 2)))
    with pytest.raises(ValueError, match=r"snapshot 1: table of shape \(2, 4\), expected \(4, 2\)"):
        snapshots.append(np.zeros((2, 4)))


@pytest.mark.parametrize("bad", [np.nan, np.inf, 1e12])
def test_values_that_cannot_be_kept_are_refused(bad):
    with pytest.raises(ValueError, match="snapshot 0: values must be finite and within"):
        Snapshots().append(np.array([0.0, bad]))


def test_a_file_that_is_not_snapshots_is_refused_naming_it(tmp_path):
    path = tmp_path / "other.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("meta.json", "{}")
    with pytest.raises(RolloutFileError, match=r"other\.zip: not a snapshots file"):
        Snapshots.load(path)


def test_a_corrupted_block_is_refused_naming_the_file(tmp_path):
    path = filled(2 * BLOCK)[0].save(tmp_path / "run.snapshots")
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo("blocks.npy")
    data[info.header_offset + 200] ^= 0xFF  # inside the first block's payload
    path.write_bytes(bytes(data))
    with pytest.raises(RolloutFileError, match=r"run\.snapshots: blocks\.npy is corrupted"):
        Snapshots.load(path)


def test_a_bad_tolerance_is_refused():
    with pytest.raises(ValueError, match="tolerance must be a positive number, got 0"):
        Snapshots(tolerance=0)
