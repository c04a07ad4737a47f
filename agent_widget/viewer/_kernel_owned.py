"""Traits the kernel owns: a front end's update of a read-only trait is dropped.

ipywidgets applies whatever state a front end sends with ``set_trait``, which
ignores ``read_only``; so without this a page could set a viewer's ``length`` to
10**9 or replace its ``panels``, and the kernel would believe it.
"""

from __future__ import annotations

import logging
from typing import Any

import traitlets

_log = logging.getLogger(__name__)


class KernelOwnedTraits(traitlets.HasTraits):
    """Mixin for a widget: front-end updates reach only its writable traits."""

    def set_state(self, sync_data: dict[str, Any]) -> None:
        traits = self.traits()
        refused = [name for name in sync_data if getattr(traits.get(name), "read_only", False)]
        if refused:
            _log.warning("agent-widget: a front end tried to set read-only %s", refused)
        kept = {name: value for name, value in sync_data.items() if name not in refused}
        super().set_state(kept)  # type: ignore[misc]
