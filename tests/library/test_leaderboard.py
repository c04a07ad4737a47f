"""Leaderboard: a run library's table as a widget, opening ticked runs in a viewer."""

import dataclasses

import numpy as np
import pytest
import traitlets

from agent_widget import record
from agent_widget.compare import CompareViewer
from agent_widget.format import AgentColumns
from agent_widget.library import Leaderboard, RunLibrary
from agent_widget.panels import Panel
from agent_widget.viewer import EpisodeViewer
from agent_widget.viewer._transport import unpack_series
from tests.cartpole import cartpole, lean
from tests.sample_episodes import episode


@pytest.fixture
def lib(tmp_path):
    lib = RunLibrary(tmp_path / "runs")
    lib.add(
        [episode([1.0], seed=0, env_id="Grid-v0"), episode([2.0], seed=1, env_id="Grid-v0")],
        algorithm="sarsa",
        run="a",
        params={"k": 1},
    )
    lib.add([episode([0.0], seed=0, env_id="Grid-v0")], algorithm="random", run="b")
    return lib


def test_the_rows_are_the_library_table(lib):
    board = Leaderboard(lib)
    assert board.rows == lib.table()
    assert [r["id"] for r in board.rows] == ["Grid-v0/random/b", "Grid-v0/sarsa/a"]


def test_rows_are_grouped_by_env_by_default_and_the_front_end_may_change_it(lib):
    """By env by default: returns of different envs do not compare."""
    assert Leaderboard(lib).group_by == "env"
    assert lib.leaderboard().group_by == "env"
    assert lib.leaderboard(group_by=None).group_by is None
    board = Leaderboard(lib, group_by="algorithm")
    board.set_state({"group_by": None})
    assert board.group_by is None
    with pytest.raises(traitlets.TraitError):
        Leaderboard(lib, group_by="run")


def test_runs_that_cannot_be_read_are_listed_not_hidden(lib):
    (lib.root / "Grid-v0" / "random" / "b" / "run.json").write_text("{")
    board = Leaderboard(lib)
    assert [r["run"] for r in board.rows] == ["a"]
    (error,) = board.errors
    assert error["path"].endswith("b")
    assert "not valid JSON" in error["message"]


def test_refresh_shows_runs_added_since(lib):
    board = Leaderboard(lib)
    lib.add(episode([3.0], env_id="Grid-v0"), algorithm="dqn", run="c")
    board.refresh()
    assert "Grid-v0/dqn/c" in [r["id"] for r in board.rows]


def test_opening_one_run_shows_its_episode_in_an_episode_viewer(lib):
    board = Leaderboard(lib, selected=["Grid-v0/sarsa/a"], episode=1)
    viewer = board.open_runs()
    assert isinstance(viewer, EpisodeViewer)
    assert board.opened is viewer
    assert viewer.title == "Grid-v0 · sarsa / a · episode 1"
    assert unpack_series(viewer.series["rewards"]).tolist() == [2]


def test_opening_several_runs_compares_the_same_episode_of_each(lib):
    board = Leaderboard(lib)
    compare = board.open_runs(["Grid-v0/sarsa/a", "Grid-v0/random/b"], episode=0)
    assert isinstance(compare, CompareViewer)
    assert compare.labels == ["sarsa / a", "random / b"]
    assert compare.title == "Grid-v0 · episode 0"
    assert board.opened is compare


NAMES = ["north", "east", "south"]  # the sample episodes' actions cycle 0, 1, 2


def test_action_names_given_name_the_actions_of_one_run_opened(lib):
    viewer = Leaderboard(lib, action_names=NAMES).open_runs(["Grid-v0/sarsa/a"])
    assert viewer.action_names == NAMES
    assert Leaderboard(lib).open_runs(["Grid-v0/sarsa/a"]).action_names == []


def test_action_names_given_name_the_actions_of_every_run_compared(lib):
    board = lib.leaderboard(action_names=NAMES)
    compare = board.open_runs(["Grid-v0/sarsa/a", "Grid-v0/random/b"])
    assert [viewer.action_names for viewer in compare.viewers] == [NAMES, NAMES]


def test_action_names_that_are_no_names_are_refused_when_the_board_is_made(lib):
    with pytest.raises(ValueError, match="action_names must be a list of strings"):
        Leaderboard(lib, action_names=[0, 1, 2])


def test_opening_again_closes_the_viewer_opened_before(lib):
    board = Leaderboard(lib)
    first = board.open_runs(["Grid-v0/sarsa/a"])
    board.open_runs(["Grid-v0/random/b"])
    assert first.comm is None


def test_opening_an_episode_a_run_lacks_is_a_value_error_naming_it(lib):
    board = Leaderboard(lib)
    with pytest.raises(ValueError, match=r"'Grid-v0/random/b' has 1 episodes, no episode 1"):
        board.open_runs(["Grid-v0/sarsa/a", "Grid-v0/random/b"], episode=1)
    with pytest.raises(ValueError, match="no run selected"):
        board.open_runs()
    with pytest.raises(ValueError, match="no run 'nope'"):
        board.open_runs(["nope"])


def test_the_open_message_opens_the_selection_or_shows_why_not(lib):
    board = Leaderboard(lib)
    board._on_message(board, {"type": "open"}, [])
    assert board.message == "no run selected: tick one or more runs, or pass their ids"
    board.selected = ["Grid-v0/random/b"]
    board._on_message(board, {"type": "open"}, [])
    assert isinstance(board.opened, EpisodeViewer)
    assert board.message == ""


def test_displaying_a_library_shows_its_leaderboard(lib):
    data, _ = lib._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in data
    assert isinstance(lib.leaderboard(), Leaderboard)


def test_a_front_end_cannot_rewrite_the_rows(lib):
    board = Leaderboard(lib)
    rows = board.rows
    board.set_state({"rows": [], "selected": [rows[0]["id"]]})
    assert board.rows == rows
    assert board.selected == [rows[0]["id"]]


def test_opening_an_unreadable_episode_says_why_under_the_table(lib):
    board = Leaderboard(lib)
    row = board.rows[0]
    path = lib.root / row["id"] / "episode-000.rollout"
    board.set_trait("selected", [row["id"]])
    path.write_bytes(b"garbage")
    board._on_message(board, {"type": "open"}, [])
    assert board.opened is None
    assert "episode-000.rollout: not a .rollout file" in board.message
    path.unlink()
    board._on_message(board, {"type": "open"}, [])
    assert "lists episode-000.rollout, missing from the folder" in board.message


def test_the_saved_table_has_a_return_column_per_agent_of_multi_agent_runs(lib):
    duel = episode([1.0, 0.0], env_id="Grid-v0")
    columns = AgentColumns(["left", "right"], {"rewards": np.array([[1.0, np.nan], [-1.0, 1.0]])})
    lib.add([dataclasses.replace(duel, agent_columns=columns)], algorithm="duel", run="c")
    saved = Leaderboard(lib)._saved_html()
    head = saved[saved.index("<thead>") : saved.index("</thead>")]
    assert "<th>return (mean ± std) ▼</th><th>return · left</th><th>return · right</th>" in head
    assert "<td>1.0 ± 0.0</td><td>0.0</td><td>1.0</td>" in saved  # the duel's row
    assert "<td>0.0 ± 0.0</td><td>-</td><td>-</td>" in saved  # a run without agents


def test_a_checkpoint_episode_opens_with_its_frames_rendered_by_replay(tmp_path):
    """CheckpointRecorder keeps no frames (training stays fast); opened from the
    leaderboard, the episode shows the frames its replay renders, as the
    CheckpointViewer does."""
    from agent_widget.checkpoints import CheckpointRecorder, Checkpoints

    library = RunLibrary(tmp_path)
    CheckpointRecorder(lambda: cartpole(None), seeds=[3], library=library, run="c").record(
        100, lean
    )
    stored = library.open("CartPole-v1/torch/c")[0]
    assert stored.frames is None

    viewer = Leaderboard(library, selected=["CartPole-v1/torch/c"]).open_runs()

    expected = Checkpoints(library, "CartPole-v1/torch/c").episode(100, 3).frames
    shown = viewer._episode.frames
    assert len(shown) == len(expected) == stored.num_positions
    for t in (0, stored.num_positions - 1):
        assert np.asarray(shown[t]).shape == (400, 600, 3)
        np.testing.assert_array_equal(shown[t], expected[t])
    assert np.asarray(shown[0]).std() > 0  # a painted cart, not a blank picture


@pytest.fixture
def cartpole_lib(tmp_path):
    lib = RunLibrary(tmp_path / "cartpole")
    for run in ("a", "b"):
        lib.add([record(cartpole(None), lean, seed=s) for s in (0, 1)], algorithm="lean", run=run)
    return lib


def pole(step):
    return f"angle {step.obs[2]:.3f}"


def test_the_viewers_open_shows_have_the_panels_given(cartpole_lib):
    torch = pytest.importorskip("torch")
    from agent_widget.torch import QValues

    torch.manual_seed(0)
    net = torch.nn.Linear(4, 2)
    board = cartpole_lib.leaderboard(panels=[QValues(net), Panel("pole", pole, precompute=True)])
    one = board.open_runs(["CartPole-v1/lean/a"])
    assert [(p["name"], p["precompute"]) for p in one.panels] == [
        ("QValues", False),
        ("pole", True),
    ]
    obs = one.rollout.observations[3]
    expected = net(torch.as_tensor(obs)).detach().numpy()
    np.testing.assert_allclose(np.asarray(one.card("QValues", 3)), expected, rtol=1e-6)
    both = board.open_runs(["CartPole-v1/lean/a", "CartPole-v1/lean/b"])
    assert isinstance(both, CompareViewer)
    for viewer in both.viewers:
        assert viewer.card("pole", 2) == f"angle {viewer.rollout.observations[2][2]:.3f}"


def test_panels_named_twice_are_refused_when_the_board_is_made(cartpole_lib):
    with pytest.raises(ValueError, match=r"panels= names \['pole'\] more than once"):
        Leaderboard(cartpole_lib, panels=[pole, Panel("pole", pole)])
