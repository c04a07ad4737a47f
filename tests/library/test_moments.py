"""Moments: the rows a query found, as steps or stretches, and the viewer a row opens."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("duckdb")

from agent_widget import RunLibrary, record
from agent_widget.library import Moments
from agent_widget.library._moments import FOUND
from agent_widget.viewer._transport import unpack_series
from tests.cartpole import cartpole, lean, with_angle

LEANING = "SELECT run, episode, t, angle FROM steps WHERE angle > 0.05 ORDER BY episode, t"


@pytest.fixture(scope="module")
def rollouts():
    return [record(cartpole(None), with_angle(lean), seed=s) for s in range(3)]


@pytest.fixture
def lib(tmp_path, rollouts):
    lib = RunLibrary(tmp_path / "runs")
    lib.add(rollouts, algorithm="lean", run="a")
    return lib


def leaning(rollouts):
    return [
        (i, int(t))
        for i, r in enumerate(rollouts)
        for t in np.flatnonzero(r.extras["angle"] > 0.05)
    ]


def test_one_row_per_step_found_with_the_querys_other_columns(lib, rollouts):
    moments = lib.moments(LEANING)
    assert isinstance(moments, Moments)
    assert moments.columns == ["run", "episode", "t", "angle"]
    assert [(int(r[1]), int(r[2])) for r in moments.rows] == leaning(rollouts)
    assert moments.found == len(moments.rows)
    assert {r[0] for r in moments.rows} == {"CartPole-v1/lean/a"}


def test_stretches_merge_consecutive_steps_of_an_episode(lib, rollouts):
    moments = lib.moments(LEANING, stretches=True)
    assert moments.columns == ["run", "episode", "t", "last", "angle"]
    expected = []
    for episode, t in leaning(rollouts):
        if expected and expected[-1][0] == episode and expected[-1][2] == t - 1:
            expected[-1][2] = t
        else:
            expected.append([episode, t, t])
    assert [[int(r[1]), int(r[2]), int(r[3])] for r in moments.rows] == expected
    assert (moments.found, moments.steps) == (len(expected), len(leaning(rollouts)))
    assert len(expected) < len(leaning(rollouts))  # the pole leans for stretches at a time


def test_a_row_opens_the_viewer_at_its_step_the_found_steps_marked(lib, rollouts):
    moments = lib.moments(LEANING)
    index = 3
    episode, t = leaning(rollouts)[index]
    viewer = moments.open_moment(index)
    assert moments.opened is viewer
    assert moments.chosen == index
    assert viewer.step == t
    marks = unpack_series(viewer.series[f"extra:{FOUND}"])
    found = [s for e, s in leaning(rollouts) if e == episode]
    assert np.flatnonzero(marks).tolist() == found
    assert viewer.timeline_rates == [FOUND]
    assert viewer.title == f"CartPole-v1/lean/a · episode {episode} · step {t}"


def test_action_names_given_name_the_actions_of_the_viewer_a_row_opens(lib):
    """The episodes keep CartPole's LEFT and RIGHT; the names given win."""
    names = ["push cart left", "push cart right"]
    viewer = lib.moments(LEANING, action_names=names).open_moment(0)
    assert viewer.action_names == names
    assert lib.moments(LEANING).open_moment(0).action_names == ["LEFT", "RIGHT"]


def test_action_names_that_are_no_names_are_refused_when_the_list_is_made(lib):
    with pytest.raises(ValueError, match="action_names must be a list of strings"):
        Moments(lib, LEANING, action_names="LEFT RIGHT")


def test_a_query_without_run_episode_and_t_is_refused_saying_so(lib):
    with pytest.raises(ValueError, match="lacks episode, t"):
        lib.moments("SELECT run, reward FROM steps")


def test_a_bad_row_from_the_front_end_is_said_under_the_list(lib):
    moments = lib.moments(LEANING)
    moments._on_message(moments, {"type": "open", "index": 10_000}, [])
    assert moments.message.startswith("could not open: ValueError: no moment 10000")
    assert moments.opened is None


def test_the_viewer_a_moment_opens_has_the_panels_given(lib, rollouts):
    torch = pytest.importorskip("torch")
    from agent_widget.torch import QValues

    torch.manual_seed(0)
    net = torch.nn.Linear(4, 2)

    def angle(step):
        return f"angle {step.obs[2]:.3f}"

    moments = lib.moments(LEANING, panels={"Q": QValues(net), "pole": angle})
    viewer = moments.open_moment(0)
    episode, t = leaning(rollouts)[0]
    assert [panel["name"] for panel in viewer.panels] == ["Q", "pole"]
    expected = net(torch.as_tensor(rollouts[episode].observations[t])).detach().numpy()
    np.testing.assert_allclose(np.asarray(viewer.card("Q")), expected, rtol=1e-6)
    assert viewer.card("pole") == f"angle {rollouts[episode].observations[t][2]:.3f}"


def test_panels_given_unnamed_are_refused_when_the_list_is_made(lib):
    with pytest.raises(ValueError, match="a lambda has no name to show on its card"):
        lib.moments(LEANING, panels=[lambda step: step.t])
