"""The state an ``EpisodeViewer`` shares with its views: its synced traits, each
documented in its ``help``, and the checks of its sizes.

Small state only: the step, the length, the per-step series or their summary, the
first frame chunks for a saved notebook; frames travel on request, in chunks
(:mod:`agent_widget.viewer._transport`). Traits marked read-only are the kernel's
(:mod:`agent_widget.viewer._kernel_owned` drops a front end's update of one).
"""

from __future__ import annotations

from typing import Any

import traitlets

from agent_widget.format import CHUNK_SIZE


class ViewerTraits(traitlets.HasTraits):
    """The synced traits of :class:`~agent_widget.viewer.EpisodeViewer`."""

    step = traitlets.Int(
        0,
        help="int, default 0. The position shown, 0 .. length - 1. Two-way: set it to move "
        "the view, observe it to follow the user's scrubbing. Out-of-range values are "
        "clamped, so viewers of episodes of different lengths can be linked.",
    ).tag(sync=True)
    length = traitlets.Int(
        0,
        read_only=True,
        help="int. Number of positions n: T + 1 for T actions (T for one frame per "
        "action). Grows with append() and extend().",
    ).tag(sync=True)
    chunk_size = traitlets.Int(
        CHUNK_SIZE,
        read_only=True,
        help="int, 16. Positions per frame chunk: chunk k holds positions 16k .. 16k+15.",
    ).tag(sync=True)
    has_frames = traitlets.Bool(
        False,
        read_only=True,
        help="bool. Whether there are frames to show; without them the canvas shows a "
        "placeholder and the readout still works.",
    ).tag(sync=True)
    series = traitlets.Dict(
        key_trait=traitlets.Unicode(),
        value_trait=traitlets.Bytes(),
        read_only=True,
        help="dict[str, bytes]. The timeline's per-step series, length T: "
        '"rewards", "terminated", "truncated", "actions" (scalar actions only) and '
        '"extra:<name>" for each named extra; each a 4-byte dtype header and the values, '
        "little-endian, in the narrowest dtype that holds them exactly "
        "(agent_widget.viewer._transport.pack_series). Empty past 4,096 steps (unless "
        "full_series=True): the state then carries the summary instead.",
    ).tag(sync=True)
    summary = traitlets.Dict(
        key_trait=traitlets.Unicode(),
        value_trait=traitlets.Bytes(),
        read_only=True,
        help="dict[str, bytes]. A long episode's timeline, in a size that does not grow with "
        "it: per column of 2,048, the min and max of rewards, returns and extras, and marks "
        "(agent_widget.viewer._summary.summary); empty when the series are sent whole.",
    ).tag(sync=True)
    action_names = traitlets.List(
        traitlets.Unicode(),
        read_only=True,
        help="list[str]. Names of the discrete actions, empty when unknown.",
    ).tag(sync=True)
    fps = traitlets.Float(
        30.0, help="float, default 30. Playback speed in positions per second. Two-way."
    ).tag(sync=True)
    loop = traitlets.Bool(
        False, help="bool, default False. Whether playback restarts at the end. Two-way."
    ).tag(sync=True)
    height = traitlets.Int(
        0, help="int, default 0. Displayed canvas height in CSS pixels; 0 picks one."
    ).tag(sync=True)
    scale = traitlets.Float(
        0.0,
        help="float, default 0. Displayed size relative to the frame's pixels (pixelated); "
        "0 fits the frame to the widget's width beside its cards and to 70% of the window's "
        "height (up by whole factors, so pixel art stays crisp; down smoothly), with a 1:1 "
        "toggle beside the controls. height wins when both are set.",
    ).tag(sync=True)
    title = traitlets.Unicode("", help="str. Text shown above the frame.").tag(sync=True)
    readout = traitlets.Enum(
        ("step", "info"),
        "step",
        help='str, default "step". What the text under the frame says of a position: '
        '"step", an env step (its action, reward, return, end flags and info); "info", '
        "the position and its info's entries alone, for positions that are not env steps "
        "(a TrainingViewer's snapshots: episode, return, success rate).",
    ).tag(sync=True)
    timeline_names = traitlets.Dict(
        key_trait=traitlets.Enum(("reward", "return", "steps")),
        value_trait=traitlets.Unicode(),
        help="dict[str, str], default {}. What the timeline's legend calls the rewards "
        '("reward"), their running sum ("return") and the positions ("steps"), for positions '
        'that are not env steps (a TrainingViewer names them "episode returns", "total '
        'return", "positions").',
    ).tag(sync=True)
    timeline_rates = traitlets.List(
        traitlets.Unicode(),
        help="list[str], default []. The extras that are rates (a success rate): drawn on a "
        "0-1 axis of their own under the timeline's main band, so that 0.03 reads as nearly "
        "never instead of sitting on the returns' axis.",
    ).tag(sync=True)
    timeline_smoothing = traitlets.Float(
        None,
        allow_none=True,
        min=0.0,
        max=0.99,
        help="float or None, default None. The weight of the exponential moving average the "
        "timeline draws over its rewards and extras (raw faint, smoothed bold, as "
        "TensorBoard): a number shows a smoothing slider from 0 to 0.99 starting there; "
        "None, no slider (an env's rewards are not training curves). Two-way.",
    ).tag(sync=True)
    timeline_mark = traitlets.Int(
        None,
        allow_none=True,
        help="int or None, default None. A position marked on the timeline (a dashed line): "
        "a checkpoint viewer marks the first step where this checkpoint acts differently "
        "from the one before.",
    ).tag(sync=True)
    embedded = traitlets.List(
        traitlets.List(traitlets.Bytes()),
        read_only=True,
        help="list[list[bytes]]. The first frame chunks, as the replies to their requests "
        "(part payloads, then the index), within embed_bytes: a notebook saved with its "
        "widget state shows these frames with no kernel, and a view paints its first "
        "frame without a round trip.",
    ).tag(sync=True)
    panels = traitlets.List(
        traitlets.Dict(),
        read_only=True,
        help='list[dict]. The panels, in order: {"name", "overlay", "precompute", "version"}. '
        "The version changes when a panel's function is replaced, so views drop its old cards.",
    ).tag(sync=True)

    @traitlets.validate("height", "scale")
    def _check_size(self, proposal: traitlets.Bunch) -> Any:
        if not 0 <= proposal["value"] < float("inf"):
            name = proposal["trait"].name
            raise traitlets.TraitError(f"{name} must be >= 0 (0 = auto), got {proposal['value']}")
        return proposal["value"]
