"""The step tables of a run removed from a folder library (its folder deleted): deleted
by the next add, which owns the library, and never by a query, whose reader may not."""

from __future__ import annotations

import shutil
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("duckdb")

from agent_widget import RunLibrary, record
from agent_widget.library._tables import TABLES
from tests.cartpole import cartpole, lean
from tests.unprivileged import unprivileged

PER_RUN = "SELECT run, count(*), sum(reward) FROM steps GROUP BY 1 ORDER BY 1"


@pytest.fixture(scope="module")
def rollouts():
    return [record(cartpole(None), lean, seed=s) for s in range(3)]


@pytest.fixture
def lib(tmp_path, rollouts) -> RunLibrary:
    """Runs a and b, b then removed as a user does: its folder deleted."""
    lib = RunLibrary(tmp_path / "runs")
    lib.add(rollouts[:2], algorithm="lean", run="a")
    lib.add(rollouts[2:], algorithm="lean", run="b")
    shutil.rmtree(lib.root / "CartPole-v1" / "lean" / "b")
    return lib


def run_tables(lib: RunLibrary) -> list[str]:
    """The runs that have step tables on disk."""
    tables = lib.root / TABLES
    return sorted(p.relative_to(tables).as_posix() for p in tables.glob("*/*/*"))


def test_a_query_deletes_no_table(lib, rollouts):
    reader = RunLibrary(lib.root)
    steps = sum(r.num_steps for r in rollouts[:2])
    total = float(np.sum([np.sum(r.rewards) for r in rollouts[:2]]))
    found = reader.query(PER_RUN)
    assert [tuple(r) for r in found.itertuples(index=False)] == [
        ("CartPole-v1/lean/a", steps, total)
    ]
    assert run_tables(lib) == ["CartPole-v1/lean/a", "CartPole-v1/lean/b"]


def test_the_next_add_deletes_the_removed_runs_tables(lib, rollouts):
    lib.add(rollouts[2:], algorithm="lean", run="a")
    assert run_tables(lib) == ["CartPole-v1/lean/a"]
    steps = sum(r.num_steps for r in rollouts)
    total = float(np.sum([np.sum(r.rewards) for r in rollouts]))
    found = lib.query(PER_RUN)
    assert [tuple(r) for r in found.itertuples(index=False)] == [
        ("CartPole-v1/lean/a", steps, total)
    ]
    assert lib.errors == []


UNPRIVILEGED_ADD = """
import sys
from agent_widget import RunLibrary, record
from tests.cartpole import cartpole, lean
from tests.unprivileged import unprivileged
RunLibrary(sys.argv[1]).add(record(cartpole(None), lean, seed=9), algorithm="lean", run="a")
"""


def test_a_run_whose_folder_cannot_be_searched_keeps_its_tables(lib, rollouts):
    """Whether its run.json is there cannot be told: the run is not taken as removed."""
    lib.add(rollouts[:1], algorithm="lean", run="c")
    locked = lib.root / "CartPole-v1" / "lean" / "c"
    locked.chmod(0)
    try:
        command = [*unprivileged(), sys.executable, "-c", UNPRIVILEGED_ADD, str(lib.root)]
        subprocess.run(command, capture_output=True, text=True, check=True)
    finally:
        locked.chmod(0o755)
    assert run_tables(lib) == ["CartPole-v1/lean/a", "CartPole-v1/lean/c"]
    assert len(lib.open("CartPole-v1/lean/a")) == 3  # the add did run
