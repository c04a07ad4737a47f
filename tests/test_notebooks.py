"""The demo notebooks: committed clean, and each runs top to bottom on a fresh kernel.

Some train their agent inside the notebook (CartPole DQN about half a minute,
FrozenLake SARSA and Q-learning), so this module takes a few minutes. The Pong
imitation network trains on a tenth of its data here (``AGENT_WIDGET_QUICK=1``): its
cells are what is tested, not how well it learns.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

NOTEBOOKS = Path(__file__).parent.parent / "notebooks"
WIDGET = "application/vnd.jupyter.widget-view+json"
# A cell's limit: only there so that a stuck cell fails instead of hanging the suite.
# Generous, as a loaded machine runs these cells 10x slower or more (the Atari notebook
# once took 547 s against 41 s alone).
CELL_TIMEOUT = 1800


@pytest.fixture(autouse=True)
def quick(monkeypatch):
    """The kernels see AGENT_WIDGET_QUICK=1: the notebooks' quick form, where they have one."""
    monkeypatch.setenv("AGENT_WIDGET_QUICK", "1")


def executed(name: str, folder: Path, extra: str = "") -> nbformat.NotebookNode:
    """The notebook run on a fresh kernel, with the code ``extra`` as a last cell."""
    notebook = nbformat.read(NOTEBOOKS / name, as_version=4)
    if extra:
        notebook.cells.append(nbformat.v4.new_code_cell(extra))
    client = NotebookClient(
        notebook,
        timeout=CELL_TIMEOUT,
        kernel_name="python3",
        resources={"metadata": {"path": str(folder)}},
    )
    client.execute()  # raises CellExecutionError naming the failing cell
    return notebook


def outputs_of(notebook: nbformat.NotebookNode) -> list[dict]:
    return [output for cell in notebook.cells for output in cell.get("outputs", [])]


def text_of(notebook: nbformat.NotebookNode) -> str:
    return "".join(output.get("text", "") for output in outputs_of(notebook))


def widgets_in(notebook: nbformat.NotebookNode) -> int:
    return sum(WIDGET in output.get("data", {}) for output in outputs_of(notebook))


def test_every_notebook_is_run_by_a_test_of_this_module():
    source = Path(__file__).read_text()
    missing = [p.name for p in NOTEBOOKS.glob("*.ipynb") if f'executed("{p.name}"' not in source]
    assert not missing, f"notebooks no test runs headless: {missing}"


@pytest.mark.parametrize("path", sorted(NOTEBOOKS.glob("*.ipynb")), ids=lambda p: p.name)
def test_the_notebook_is_valid_and_committed_without_outputs(path):
    notebook = nbformat.read(path, as_version=4)
    nbformat.validate(notebook)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert code
    assert all(cell.outputs == [] and cell.execution_count is None for cell in code)


def test_the_quickstart_shows_its_viewer_twice_and_its_panels_draw_bars(tmp_path):
    check = """from agent_widget.panels._cards import compute
from agent_widget.panels import Step
print("kinds:", {compute(fn, Step(loaded, t, viewer.action_names)).kind
                 for fn in (lean, observation) for t in (0, 40, loaded.num_steps)})"""
    notebook = executed("quickstart.ipynb", tmp_path, extra=check)
    views = [
        o["data"][WIDGET]["model_id"] for o in outputs_of(notebook) if WIDGET in o.get("data", {})
    ]
    assert len(views) == 2
    assert len(set(views)) == 1  # one viewer, shown twice
    assert "kinds: {'bars'}" in text_of(notebook)


def test_the_cartpole_dqn_learns_to_balance_and_shows_its_q_values(tmp_path):
    notebook = executed("cartpole_dqn.ipynb", tmp_path)
    text = text_of(notebook)
    assert "best greedy return 500" in text
    assert "greedy" in text
    assert "taken" in text
    assert widgets_in(notebook) == 3  # the viewer, the two futures, the what-if viewer
    # What if: at the step the agent was surest, the other action drops the pole sooner
    # than the one it took (how soon moves with the unpinned libraries' numerics: 340 of
    # 1,000 steps in a fresh install on 2026-12-02, under 100 the day before); where it
    # hesitated, both actions last to the time limit.
    found = re.findall(r"(LEFT|RIGHT) at t = (\d+): the pole stays up (\d+) steps", text)
    lasts: dict[int, list[int]] = {}
    for _, t, steps in found:
        lasts.setdefault(int(t), []).append(int(steps))
    sure, tied = sorted(lasts, key=lambda t: min(lasts[t]))
    assert min(lasts[sure]) < max(lasts[sure]) == 1000
    assert lasts[tied] == [1000, 1000]


def test_the_atari_notebook_imitates_its_teacher_and_draws_saliency(tmp_path):
    notebook = executed("atari_saliency.ipynb", tmp_path)
    assert "120 updates" in text_of(notebook)  # the quick form's
    assert widgets_in(notebook) == 1
    widget = "application/vnd.jupyter.widget-view+json"  # a viewer's saved picture is no figure
    figures = [
        output
        for output in outputs_of(notebook)
        if "image/png" in output.get("data", {}) and widget not in output.get("data", {})
    ]
    assert len(figures) == 1


def test_frozenlake_training_trains_both_agents_and_reports_their_success(tmp_path):
    # What each viewer's front end holds once its training cell ended: every episode.
    curves = """from agent_widget.viewer._transport import unpack_series
for v in (sarsa_viewer, q_viewer):
    print("curve of", len(unpack_series(v.curve["rewards"])), "episodes")"""
    notebook = executed("frozenlake_training.ipynb", tmp_path, curves)
    text = text_of(notebook)
    rates = {
        name: [float(rate) for rate in re.findall(r"([\d.]+)%", line)]
        for name in ("SARSA", "Q-learning")
        for line in text.splitlines()
        if line.startswith(name)
    }
    # Both learned something: a random policy almost never crosses slippery 8x8.
    assert all(len(found) == 2 and min(found) > 20 for found in rates.values()), rates
    assert "10,000 snapshots" in text
    assert text.count("curve of 10000 episodes") == 2
    assert "first different action at step" in text
    assert widgets_in(notebook) == 4  # two training viewers, the played episode, the comparison


def test_compare_agents_finds_the_divergence_and_ranks_the_runs(tmp_path):
    notebook = executed("compare_agents.ipynb", tmp_path)
    text = text_of(notebook)
    assert re.search(r"the agents first act differently at step \d+", text)
    success = {run: int(rate) for run, rate in re.findall(r"(\w+): success (\d+)%", text)}
    assert set(success) == {"greedy", "exploring", "random"}
    # The trained agent does far better than chance on slippery FrozenLake.
    assert success["greedy"] > success["random"] + 20, success
    assert re.search(r"\d+ of 20 seeds part, at step \d+ at the earliest", text)
    holes = int(re.findall(r"(\d+) episodes fell into a hole", text)[0])
    failures = sum(round(20 * (1 - rate / 100)) for rate in success.values())
    assert 0 < holes <= failures  # an episode may also be cut short by the time limit
    assert widgets_in(notebook) == 3  # the comparison, the leaderboard, the moments


# What record_many raises when Ray's local node did not start, twice (its start-up waits
# are fixed: agent_widget/library/_local_ray.py). A loaded machine can miss them.
RAY_DID_NOT_START = "Ray's local node did not start"


def test_cluster_evaluation_records_200_seeds_on_ray_into_a_bucket_and_opens_the_worst(
    tmp_path, monkeypatch
):
    monkeypatch.delenv("AGENT_WIDGET_BUCKET", raising=False)  # the local S3 server
    # This test's Ray sessions, apart from any other's; a short path (Ray's sockets are in it).
    ray_temp = Path(tempfile.mkdtemp(prefix="ray-"))
    monkeypatch.setenv("RAY_TMPDIR", str(ray_temp))
    try:
        notebook = executed("cluster_evaluation.ipynb", tmp_path)
    except CellExecutionError as error:
        if RAY_DID_NOT_START in str(error):
            pytest.fail(ray_did_not_start(ray_temp), pytrace=False)
        raise
    finally:
        shutil.rmtree(ray_temp, ignore_errors=True)
    text = text_of(notebook)
    assert "no AGENT_WIDGET_BUCKET set: a local S3-compatible server (moto)" in text
    assert "200 episodes recorded, 0 failed, run CartPole-v1/lean-rule/eval" in text
    worst, mean, best = re.search(
        r"worst episode: seed \d+, return (\d+) \(mean ([\d.]+), best (\d+)\)", text
    ).groups()
    assert int(worst) < float(mean) < int(best)
    assert widgets_in(notebook) == 2  # the leaderboard and the worst episode's viewer


def test_many_agents_records_a_game_and_a_battle_and_ranks_per_agent(tmp_path):
    pytest.importorskip("pettingzoo")
    notebook = executed("many_agents.ipynb", tmp_path)
    text = text_of(notebook)
    # The centre-first player beats the random one from seed 0, and always moves first
    # against itself: each game's result is a win for one and a loss for the other.
    assert "returns: {'player_0': 1.0, 'player_1': -1.0}" in text
    left = re.findall(r"(\w+) left after step (\d+)", text)
    assert len(left) == 4
    assert len({steps for _, steps in left}) > 1  # agents left at different steps
    assert "scripted-vs-scripted {'player_0': 1.0, 'player_1': -1.0}" in text
    assert widgets_in(notebook) == 4  # the game, the two sides, the battle, the leaderboard


def test_the_checkpoints_notebook_finds_where_behaviour_changed_and_its_q_values(tmp_path):
    notebook = executed("checkpoints_dqn.ipynb", tmp_path, extra="viewer.close()")
    text = text_of(notebook)
    assert len(re.findall(r"training step +[\d,]+: returns seed 0: ", text)) == 10
    changes = re.findall(
        r"seed (\d): ([\d,]+) -> ([\d,]+): first acts differently at t = (\d+)", text
    )
    assert changes  # the behaviour changed somewhere
    q_lines = re.findall(
        r"training step +[\d,]+: Q\(LEFT\) = -?[\d.]+, Q\(RIGHT\) = -?[\d.]+ -> (\w+)", text
    )
    assert len(q_lines) == 2
    assert q_lines[0] != q_lines[1]  # where they part, the two networks choose differently
    assert re.search(r"shown: seed \d at training step [\d,]+, t = \d+", text)
    assert widgets_in(notebook) == 1


def test_the_arena_notebook_rates_the_heuristic_first_shows_its_board_and_opens_a_game(
    tmp_path,
):
    pytest.importorskip("pettingzoo")
    check = """print("shown:", viewer.step, "of", game.num_steps, "steps; leaving after:",
      [int(a) for a in game.actions[viewer.step + 1:]])"""
    notebook = executed("arena.ipynb", tmp_path, extra=check)
    text = text_of(notebook)
    for pairing in ("heuristic-vs-lookahead", "heuristic-vs-random", "lookahead-vs-random"):
        assert f"{pairing}: 12 games" in text  # the quick form's
    ranked = re.findall(r"^ *(heuristic|lookahead|random) +\d+\.0 +\d+\.0 +\d+\.0 +24 ", text, re.M)
    assert len(ranked) == 3  # each player in 24 games
    assert ranked[0] == "heuristic"  # best first
    watched = re.search(r"watch: \S+ game \d+, (heuristic's (loss|draw)|random's loss)", text)
    assert watched is not None
    # At the last move: the two leaving steps (no action) are all that follow it.
    shown, steps = map(
        int, re.search(r"shown: (\d+) of (\d+) steps; leaving after: \[-1, -1\]", text).groups()
    )
    assert shown == steps - 3
    assert widgets_in(notebook) == 2  # the arena's leaderboard, the game
    (board,) = [
        output["data"]
        for output in outputs_of(notebook)
        if output.get("data", {}).get("text/plain", "").startswith("Arena leaderboard of 3 players")
    ]
    assert "<tbody><tr><td>heuristic</td>" in board["text/html"]  # its saved copy, best first


def ray_did_not_start(ray_temp: Path) -> str:
    """Why the notebook could not run, in the raylet's own words where it wrote them."""
    fatal = [  # "Check failed: <the C++ expression> <what happened>"
        found.group(1)
        for log in ray_temp.glob("ray/session_*/logs/raylet.out")
        for found in re.finditer(r"Check failed: \S+ (.*)", log.read_text(errors="replace"))
    ]
    return (
        f"Ray did not start, so the notebook could not run: its node timed out during "
        f"start-up (load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores). "
        f"The raylet: {fatal[0] if fatal else 'no fatal error in its log'}. Ray's start-up "
        "waits are fixed (15 s for its agents' ports, 30 s for the node), not settings."
    )
