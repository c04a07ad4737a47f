"""``AgentWidget``: what every widget of the package is, whatever it shows.

Each widget (the episode viewer, the comparison, the checkpoints', training, the
leaderboard, the moments list) is an anywidget that must behave the same way
wherever a notebook runs it or shows it saved; one base says so once, instead of
each widget listing the same mixins in the same order (which matters: each calls
the next with ``super()``).
"""

from __future__ import annotations

import anywidget

from agent_widget.viewer._closing import ClosesItsLayout
from agent_widget.viewer._kernel_owned import KernelOwnedTraits
from agent_widget.viewer._known_options import RefusesUnknownOptions
from agent_widget.viewer._marimo import OpensOutsideMarimoCells
from agent_widget.viewer._saved_copy import SavedCopy


class AgentWidget(
    RefusesUnknownOptions,
    KernelOwnedTraits,
    OpensOutsideMarimoCells,
    ClosesItsLayout,
    SavedCopy,
    anywidget.AnyWidget,
):
    """The base of every widget of the package; a subclass sets ``_esm`` and ``_css``
    and says what its saved copy shows (``_saved_text``, and ``_saved_picture`` or
    ``_saved_html``).

    What each widget gets from it, and why:

    - a keyword it does not take is refused (:class:`RefusesUnknownOptions`), naming
      the option probably meant: traitlets only warns, unseen, and the option is lost;
    - read-only traits stay the kernel's (:class:`KernelOwnedTraits`): a page cannot
      set a viewer's ``length`` or replace its ``panels``;
    - it opens in marimo outside a running cell (:class:`OpensOutsideMarimoCells`),
      as the leaderboard's Open makes viewers from a front end's message;
    - it closes whole, its layout model too (:class:`ClosesItsLayout`), so a notebook
      saved with its widget state holds no closed widget's;
    - its output carries a saved copy (:class:`SavedCopy`): a picture or table and a
      sentence, shown where the widget cannot run (GitHub, nbconvert, untrusted).
    """
