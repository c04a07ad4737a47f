"""The checkpoint viewer's panels: each a function of a network returning a panel,
made for each episode with its own checkpoint's network.

Panels are functions of a network that return a panel (``QValues``, ``Policy``,
``Saliency``, or the user's own): each episode's cards are computed with the network
of its own checkpoint, a copy of the model the user passed with that checkpoint's
weights loaded (:class:`~agent_widget.checkpoints._networks.Networks`, a few kept).
Weights that cannot be loaded (missing, a pickle, cut short, another architecture)
give the panel's error card, saying which file and why; nothing in them is run.
A panel made with a network is kept while that network is.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from agent_widget.checkpoints._networks import Networks
from agent_widget.panels import Step
from agent_widget.viewer import EpisodeViewer

PanelMaker = Callable[[Any], Callable[[Step], Any]]


class NetworkPanels:
    """The panels by name, each made with the network of the episode it shows.

    ``lock`` is the viewer's, which guards its kept episodes too: a panel is made
    while the viewer neither adds one nor drops an episode.
    """

    def __init__(self, networks: Networks | None, lock: threading.RLock) -> None:
        self.networks = networks
        self._lock = lock
        self._makers: dict[str, tuple[PanelMaker, bool, bool, float | None]] = {}
        self._built: dict[tuple[int, str], tuple[Any, Callable[[Step], Any]]] = {}

    @property
    def names(self) -> list[str]:
        """The panels' names, in the order they were added."""
        return list(self._makers)

    def set(
        self,
        name: str,
        make: PanelMaker,
        overlay: bool,
        precompute: bool,
        timeout: float | None,
    ) -> None:
        """Panel ``name`` is ``make(network)`` from now on (those made before, forgotten);
        a ValueError without a model to load the weights into."""
        if self.networks is None:
            raise ValueError(
                "panels of a checkpoint are computed with its network: pass model= (the SB3 "
                "model trained, a torch module, or a function making one) to CheckpointViewer"
            )
        with self._lock:
            self._makers[name] = (make, overlay, precompute, timeout)
            self._built = {key: built for key, built in self._built.items() if key[1] != name}

    def add_to(self, viewer: EpisodeViewer, step: int, name: str) -> None:
        """Panel ``name`` on ``viewer``, the episode of the checkpoint at ``step``."""
        _, overlay, precompute, timeout = self._makers[name]
        viewer.add_panel(
            name,
            lambda at: self._panel(step, name)(at),
            overlay=overlay,
            precompute=precompute,
            timeout=timeout,
        )

    def _panel(self, step: int, name: str) -> Callable[[Step], Any]:
        """Panel ``name`` made with the network of the checkpoint at ``step`` (loaded now
        if it is not kept; a :class:`WeightsFileError` becomes the card's error)."""
        assert self.networks is not None  # set() refuses panels without a model
        network = self.networks(step)
        with self._lock:
            built = self._built.get((step, name))
            if built is None or built[0] is not network:
                built = (network, self._makers[name][0](network))
                kept = set(self.networks.loaded)
                self._built = {key: b for key, b in self._built.items() if key[0] in kept}
                self._built[step, name] = built
            return built[1]
