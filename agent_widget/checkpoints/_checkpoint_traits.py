"""The state a ``CheckpointViewer`` shares with its views: its synced traits, each
documented in its ``help``.

The episode shown is a trait too: an :class:`~agent_widget.viewer.EpisodeViewer`
swapped for another's as the checkpoint or seed changes. Traits marked read-only are
the kernel's (:mod:`agent_widget.viewer._kernel_owned` drops a front end's update of one).
"""

from __future__ import annotations

import traitlets
from ipywidgets import widget_serialization

from agent_widget.viewer import EpisodeViewer

# The traits a page holds (its episode named by the page's own child ids).
PAGE_TRAITS = (
    "training_steps",
    "seeds",
    "returns",
    "checkpoint",
    "seed",
    "divergence",
    "message",
    "title",
)


class CheckpointTraits(traitlets.HasTraits):
    """The synced traits of :class:`~agent_widget.checkpoints.CheckpointViewer`."""

    episode = traitlets.Instance(
        EpisodeViewer,
        allow_none=True,
        read_only=True,
        help="EpisodeViewer | None. The episode of the checkpoint and seed shown; None "
        "while the run has no checkpoint.",
    ).tag(sync=True, **widget_serialization)
    training_steps = traitlets.List(
        traitlets.Int(), read_only=True, help="list[int]. The checkpoints' training steps."
    ).tag(sync=True)
    seeds = traitlets.List(
        traitlets.Int(), read_only=True, help="list[int]. The seeds evaluated."
    ).tag(sync=True)
    returns = traitlets.List(
        traitlets.Bytes(),
        read_only=True,
        help="list[bytes]. Per seed (in the order of seeds), the evaluation return at each "
        "checkpoint as little-endian float64, NaN where that seed was not evaluated.",
    ).tag(sync=True)
    checkpoint = traitlets.Int(
        0, help="int. The checkpoint shown, an index into training_steps. Two-way."
    ).tag(sync=True)
    seed = traitlets.Int(0, help="int. The seed whose episode is shown. Two-way.").tag(sync=True)
    divergence = traitlets.Int(
        None,
        allow_none=True,
        read_only=True,
        help="int | None. The first step where the shown checkpoint's actions differ from "
        "the previous checkpoint's (same seed); None for the first checkpoint or when "
        "they agree.",
    ).tag(sync=True)
    message = traitlets.Unicode(
        "", read_only=True, help="str. A note on what is shown (an episode that ended sooner)."
    ).tag(sync=True)
    title = traitlets.Unicode("", help="str. Text above the view.").tag(sync=True)
