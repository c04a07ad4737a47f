"""A widget that closes whole: its layout model too.

ipywidgets' ``close`` leaves a DOMWidget's ``Layout`` model open. A front end keeps it,
and a notebook saved with its widget state holds one for each widget ever closed: a
CheckpointViewer closes an episode viewer at each checkpoint it drops, so its saved
state grew by ~1 KB an episode visited.
"""

from __future__ import annotations

from typing import Any


class ClosesItsLayout:
    """Mixin for a widget: :meth:`close` closes its layout model as well."""

    comm: Any
    layout: Any

    def close(self) -> None:
        # A widget that never opened (its __init__ failed; close from __del__) has no
        # layout: reading the trait would make one.
        opened = self.comm is not None
        super().close()  # type: ignore[misc]
        if opened:
            self.layout.close()
