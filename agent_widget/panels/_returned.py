"""What a panel function did at a step: the value it returned, or the exception it raised.

A card is what the front end draws; a script wants what the user's function gave
(``viewer.card(name, t)``: the array itself, not its bars). The card keeps it beside
itself, in the same cache, counted in the cache's bytes, so a value computed for the
view is not computed again for a script. An exception keeps its traceback, its frames'
local variables cleared (a panel's locals may hold a network's activations).
"""

from __future__ import annotations

import sys
import traceback
from dataclasses import dataclass
from types import TracebackType
from typing import Any

_OBJECT_BYTES = 1_000  # a value whose size is not known: a small object, roughly


@dataclass(frozen=True, eq=False)
class Returned:
    """A panel call's outcome: ``value`` returned, or ``error`` raised (with ``trace``)."""

    value: Any = None
    error: BaseException | None = None
    trace: TracebackType | None = None

    @classmethod
    def raised(cls, error: BaseException) -> Returned:
        """``error`` as raised, its frames' locals cleared (its lines kept)."""
        traceback.clear_frames(error.__traceback__)
        return cls(error=error, trace=error.__traceback__)

    def get(self) -> Any:
        """The value, or the exception raised again (with the panel's traceback)."""
        if self.error is not None:
            raise self.error.with_traceback(self.trace)
        return self.value

    def nbytes(self, drawn: int) -> int:
        """Rough memory the value holds: an array's bytes; a figure's, its ``drawn``
        pixels (its canvas keeps them, 4 bytes each); else its own size."""
        size = getattr(self.value, "nbytes", None)
        if isinstance(size, int):
            return size
        if drawn and not isinstance(self.value, str | dict):
            return 4 * drawn
        try:
            return sys.getsizeof(self.value)
        except TypeError:  # an object whose __sizeof__ fails
            return _OBJECT_BYTES
