"""Cards from each checkpoint's own network, for a checkpoint's episode in the tab.

When the ``--agent_panels`` file defines ``model`` (what ``CheckpointViewer(model=...)``
takes: an SB3 model, a torch module, or a function making one), an episode that
``RecordCheckpoints`` wrote gets the cards a checkpoint viewer would show with its own
checkpoint's network: ``QValues`` (or ``Policy``, for a model ``QValues`` refuses: an
actor) and ``Saliency``. The weights are loaded, without pickle, from the files its
run's ``run.json`` names inside the run's folder (:class:`~agent_widget.checkpoints.Networks`,
a few kept), and the cards made as the checkpoint viewer makes them
(:class:`~agent_widget.checkpoints.NetworkPanels`). Needs the ``torch`` extra; imported
only when a model is given.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from torch import nn

from agent_widget.checkpoints import Checkpoints, NetworkPanels, Networks
from agent_widget.episodes import Rollout
from agent_widget.library import RunLibrary
from agent_widget.panels import DEFAULT_TIMEOUT
from agent_widget.torch import Policy, QValues, Saliency
from agent_widget.viewer import EpisodeViewer


class NetworkCards:
    """``model``'s panels by run folder: each episode's cards from its checkpoint's network."""

    def __init__(self, model: Any) -> None:
        self._makers = panel_makers(model)
        self._model = model
        self._runs: dict[Path, tuple[Checkpoints, NetworkPanels]] = {}
        self._lock = threading.RLock()

    def add_to(self, viewer: EpisodeViewer, path: Path, rollout: Rollout) -> None:
        """The network panels on ``viewer``, the episode of file ``path``, when it is a
        checkpoint's (its metadata names a training step); else nothing."""
        step = rollout.metadata.get("training_step")
        if not isinstance(step, int) or isinstance(step, bool):
            return
        checkpoints, panels = self._run(path.parent)
        if step not in checkpoints.steps:
            checkpoints.refresh()  # a checkpoint written since the run was first read
        for name in panels.names:
            panels.add_to(viewer, step, name)

    def _run(self, folder: Path) -> tuple[Checkpoints, NetworkPanels]:
        with self._lock:
            if folder not in self._runs:
                checkpoints = Checkpoints(RunLibrary(folder.parent), folder.name)
                panels = NetworkPanels(Networks(checkpoints, self._model), self._lock)
                for name, make in self._makers.items():
                    panels.set(name, make, name == "Saliency", False, DEFAULT_TIMEOUT)
                self._runs[folder] = (checkpoints, panels)
            return self._runs[folder]


def panel_makers(model: Any) -> dict[str, Any]:
    """The panels ``model`` gets, by name: ``QValues``, or ``Policy`` where ``QValues``
    refuses it (an actor), and ``Saliency``; each class is asked with the model itself
    (one made, for a function making them), so the panels' own rules decide, not a
    second copy of them here."""
    made = model if isinstance(model, nn.Module) or not callable(model) else model()
    makers: dict[str, Any] = {}
    for name, make in (("QValues", QValues), ("Policy", Policy)):
        try:
            make(made)
        except (TypeError, ValueError):
            continue
        makers[name] = make
        break
    else:
        raise ValueError(f"neither QValues nor Policy takes a {type(made).__name__}")
    makers["Saliency"] = Saliency
    return makers
