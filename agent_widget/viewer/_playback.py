"""The checks every playable widget shares: a step within the episode, a positive speed."""

from __future__ import annotations

import traitlets


class PlaybackChecks(traitlets.HasTraits):
    """Mixin for a widget with ``step`` over ``length`` positions and a playback ``fps``.

    ``step`` is clamped rather than refused, so viewers of episodes of different
    lengths can be linked with ``traitlets.link``.
    """

    @traitlets.validate("step")
    def _clamp_step(self, proposal: traitlets.Bunch) -> int:
        length: int = getattr(self, "length", 0)
        return min(max(int(proposal["value"]), 0), max(length - 1, 0))

    @traitlets.validate("fps")
    def _check_fps(self, proposal: traitlets.Bunch) -> float:
        if not 0 < proposal["value"] < float("inf"):
            raise traitlets.TraitError(f"fps must be a positive number, got {proposal['value']}")
        return float(proposal["value"])
