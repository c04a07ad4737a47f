"""The state a ``CompareViewer`` shares with its views: its synced traits, each
documented in its ``help``, and the check of its grid's columns.

Its viewers are traits too (each child's frames and panels travel as a viewer's do);
the front end moves their steps with the shared one. Traits marked read-only are the
kernel's (:mod:`agent_widget.viewer._kernel_owned` drops a front end's update of one).
"""

from __future__ import annotations

import traitlets
from ipywidgets import widget_serialization

from agent_widget.viewer import EpisodeViewer

# The traits an exported page holds (the children's references are made for the page).
PAGE_TRAITS = (
    "labels",
    "length",
    "positions",
    "divergence",
    "step",
    "fps",
    "loop",
    "columns",
    "title",
    "shared_scales",
)


class CompareTraits(traitlets.HasTraits):
    """The synced traits of :class:`~agent_widget.compare.CompareViewer`."""

    viewers = traitlets.List(
        traitlets.Instance(EpisodeViewer),
        read_only=True,
        help="list[EpisodeViewer]. One viewer per rollout, in order; the front end drives "
        "their step. Add panels with CompareViewer.panel() to have them on every one.",
    ).tag(sync=True, **widget_serialization)
    labels = traitlets.List(
        traitlets.Unicode(), read_only=True, help="list[str]. The rollouts' names, in order."
    ).tag(sync=True)
    length = traitlets.Int(
        0, read_only=True, help="int. Number of shared positions (the longest episode's, by step)."
    ).tag(sync=True)
    positions = traitlets.List(
        traitlets.Bytes(),
        read_only=True,
        help="list[bytes]. Empty when aligned by step; else, per viewer, its position at "
        "each shared position as little-endian int32 (length entries).",
    ).tag(sync=True)
    divergence = traitlets.Int(
        None,
        allow_none=True,
        read_only=True,
        help="int | None. The first shared position where the rollouts' actions differ, "
        "for rollouts of one env and seed aligned by step; None otherwise.",
    ).tag(sync=True)
    step = traitlets.Int(
        0,
        help="int, default 0. The shared position shown. Two-way; clamped to the length. "
        "The child viewers' own step is set in the browser only.",
    ).tag(sync=True)
    fps = traitlets.Float(30.0, help="float, default 30. Playback speed. Two-way.").tag(sync=True)
    loop = traitlets.Bool(False, help="bool, default False. Playback restarts at the end.").tag(
        sync=True
    )
    columns = traitlets.Int(
        0, help="int, default 0. Columns of the grid; 0 fits as many as the width allows."
    ).tag(sync=True)
    title = traitlets.Unicode("", help="str. Text shown above the grid.").tag(sync=True)
    shared_scales = traitlets.Bool(
        True,
        help="bool, default True. Whether the bars cards of one panel share one value axis "
        "across the columns (the union of the ranges each would draw alone), so that their "
        "bars compare at a glance; False draws each on its own range. The page computes the "
        "range from the cards it shows.",
    ).tag(sync=True)
    what_if = traitlets.Dict(
        default_value=None,  # Dict's first positional is value_trait: None there means {}
        allow_none=True,
        read_only=True,
        help='dict | None. The "What if…" bar of :func:`what_if`: the actions offered, '
        "whether branches are being computed (done of total) and what it says; None: no bar.",
    ).tag(sync=True)

    @traitlets.validate("columns")
    def _check_columns(self, proposal: traitlets.Bunch) -> int:
        if proposal["value"] < 0:
            raise traitlets.TraitError(f"columns must be >= 0 (0 = fit), got {proposal['value']}")
        return int(proposal["value"])
