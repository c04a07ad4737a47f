"""Every widget refuses a keyword it does not take, naming the option probably meant:
traitlets only warns (a DeprecationWarning nobody sees), and the option was lost."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

from agent_widget import Arena, CompareViewer, EpisodeViewer, RunLibrary, record
from agent_widget.arena import ArenaBoard
from agent_widget.checkpoints import CheckpointViewer
from agent_widget.gridworld import TrainingViewer
from agent_widget.library import Leaderboard, Moments
from agent_widget.viewer import AgentWidget
from tests.cartpole import cartpole, lean


@pytest.fixture(scope="module")
def rollout():
    return record(cartpole(), lean, seed=0, max_steps=20)


@pytest.fixture
def library(tmp_path, rollout) -> RunLibrary:
    library = RunLibrary(tmp_path / "runs")
    library.add([rollout], algorithm="lean", run="a")
    return library


def arena_board(library: RunLibrary, **options: Any) -> ArenaBoard:
    """The board of a Connect Four arena in ``library`` (PettingZoo's game, imported here)."""
    from tests.games import connect_four

    def leftmost(observation: Any) -> int:
        return int(np.flatnonzero(observation["action_mask"])[0])

    return ArenaBoard(Arena(connect_four, {"a": leftmost, "b": leftmost}, library), **options)


# Each widget made as a user makes it, with one keyword misspelt, and the option meant.
MISSPELT: dict[type, tuple[Callable[..., Any], str, str]] = {
    EpisodeViewer: (lambda r, lib, **kw: EpisodeViewer(r, **kw), "embed_byte", "embed_bytes"),
    CompareViewer: (
        lambda r, lib, **kw: CompareViewer([r, r], **kw),
        "shared_scale",
        "shared_scales",
    ),
    CheckpointViewer: (
        lambda r, lib, **kw: CheckpointViewer(lib, "CartPole-v1/DQN/not-yet", poll=60, **kw),
        "sead",
        "seed",
    ),
    TrainingViewer: (
        lambda r, lib, **kw: TrainingViewer(gym.make("FrozenLake-v1"), **kw),
        "intervall",
        "interval",
    ),
    Leaderboard: (lambda r, lib, **kw: Leaderboard(lib, **kw), "groupby", "group_by"),
    ArenaBoard: (lambda r, lib, **kw: arena_board(lib, **kw), "panel", "panels"),
    Moments: (
        lambda r, lib, **kw: Moments(lib, "SELECT run, episode, t FROM steps", **kw),
        "stretch",
        "stretches",
    ),
}


@pytest.mark.parametrize("widget", list(MISSPELT), ids=lambda widget: widget.__name__)
def test_a_misspelt_keyword_is_a_type_error_naming_the_option_meant(widget, rollout, library):
    if widget is Moments:
        pytest.importorskip("duckdb")
    if widget is ArenaBoard:
        pytest.importorskip("pettingzoo")
    make, misspelt, meant = MISSPELT[widget]
    with pytest.raises(TypeError) as refused:
        make(rollout, library, **{misspelt: 1})  # the old code made it, the option lost
    assert str(refused.value) == (
        f"{widget.__name__}() got an unexpected keyword argument {misspelt!r}: "
        f"did you mean {meant!r}?"
    )


def test_every_widget_of_the_package_is_checked_above():
    def subclasses(cls: type) -> set[type]:
        return {sub for direct in cls.__subclasses__() for sub in {direct, *subclasses(direct)}}

    def defined(cls: type) -> bool:  # not the class traitlets makes for an instance's traits
        return getattr(sys.modules[cls.__module__], cls.__name__, None) is cls

    widgets = {
        cls
        for cls in subclasses(AgentWidget)
        if cls.__module__.startswith("agent_widget.") and defined(cls)
    }
    assert widgets == set(MISSPELT)


def test_a_keyword_like_no_option_lists_the_constructors_arguments(rollout):
    with pytest.raises(TypeError, match="unexpected keyword argument 'colour'") as refused:
        EpisodeViewer(rollout, colour="red")
    assert "its arguments are episode, encoding, extras, action_names, title," in str(refused.value)
    assert "help(EpisodeViewer) lists the traits it takes too" in str(refused.value)


def test_a_misspelt_trait_names_the_trait(rollout):
    with pytest.raises(TypeError, match="did you mean 'fps'"):
        EpisodeViewer(rollout, fsp=30)


def test_the_constructors_arguments_and_traits_are_taken(rollout):
    viewer = EpisodeViewer(
        episode=rollout, embed_bytes=0, fps=12, loop=True, layout={"width": "300px"}
    )
    assert (viewer.fps, viewer.loop, viewer.embedded, viewer.layout.width) == (
        12,
        True,
        [],
        "300px",
    )
    viewer.close()


def test_a_refused_keyword_does_no_work_first(rollout):
    """The check comes before the viewer reads its episode: a wrong episode and a
    misspelt keyword report the keyword."""
    with pytest.raises(TypeError, match="embed_byte"):
        EpisodeViewer(np.zeros(3), embed_byte=0)


def test_a_subclass_forwarding_its_keywords_takes_the_viewers_and_refuses_a_misspelt_one(rollout):
    class Titled(EpisodeViewer):
        def __init__(self, rollout, **options):
            super().__init__(rollout, title="mine", **options)

    viewer = Titled(rollout, embed_bytes=0, fps=12)
    assert (viewer.title, viewer.embedded, viewer.fps) == ("mine", [], 12)
    viewer.close()
    with pytest.raises(TypeError) as refused:
        Titled(rollout, embed_byte=0)
    assert str(refused.value).endswith("'embed_byte': did you mean 'embed_bytes'?")
