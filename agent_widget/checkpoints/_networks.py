"""Networks of checkpoints: copies of the user's model, each holding one checkpoint's weights.

A checkpoint viewer computes its panels with the network as it was at the checkpoint
shown. Loading a weights file and building a copy of the model costs milliseconds
and memory the size of the network, so copies are made on demand and only the most
recently used few are kept (an LRU): scrubbing back and forth between two or three
checkpoints loads each once.

The model the user passes is never changed: a Stable-Baselines3 model is copied
with its own policy (its replay buffer and env are shared, not copied: panels only
run the policy's networks), a module is deep-copied, a factory is called. Each copy's
``get_vec_normalize_env()`` (SB3's method, given to a module too) gives its
checkpoint's observation statistics (None for a checkpoint saved without), never an
SB3 model's training env's latest: the torch panels feed its network observations
normalized as they were at that checkpoint.
"""

from __future__ import annotations

import copy
import threading
from collections import OrderedDict
from typing import Any

from torch import nn

from agent_widget.checkpoints._checkpoints import Checkpoints

DEFAULT_KEPT = 4


class Networks:
    """The networks of a run's checkpoints, loaded on demand, ``kept`` at most in memory.

    Args:
        checkpoints: the run's checkpoints (their weights files).
        model: a Stable-Baselines3 model (its ``policy`` holds the weights), a torch
            ``nn.Module`` (deep-copied per checkpoint), or a function of no arguments
            returning a new module of the architecture the weights were saved from.
        kept: how many loaded copies to keep.
    """

    def __init__(self, checkpoints: Checkpoints, model: Any, kept: int = DEFAULT_KEPT) -> None:
        if kept < 1:
            raise ValueError(f"kept must be at least 1 network, got {kept}")
        if not (_is_sb3(model) or isinstance(model, nn.Module) or callable(model)):
            raise TypeError(
                "model must be a Stable-Baselines3 model, a torch nn.Module, or a function "
                f"returning one; got {type(model).__name__}"
            )
        self._checkpoints, self._model, self.kept = checkpoints, model, kept
        self._loaded: OrderedDict[int, Any] = OrderedDict()
        self._lock = threading.Lock()
        self.loads = 0
        """How many weights files were loaded so far (a benchmark checks each is loaded once)."""

    def __call__(self, step: int) -> Any:
        """The model holding the weights of the checkpoint at training ``step``: an SB3
        model or a module, as given. A :class:`WeightsFileError` when they cannot be
        loaded (missing, a pickle, cut short, another architecture)."""
        with self._lock:
            if step in self._loaded:
                self._loaded.move_to_end(step)
                return self._loaded[step]
        network = self._copy()
        self._checkpoints.load_weights(step, _module(network))
        statistics = self._checkpoints.statistics(step)
        network.get_vec_normalize_env = lambda: statistics  # what the torch panels ask
        _module(network).eval()
        with self._lock:
            self.loads += 1
            self._loaded[step] = network
            self._loaded.move_to_end(step)
            while len(self._loaded) > self.kept:
                self._loaded.popitem(last=False)
            return network

    @property
    def loaded(self) -> list[int]:
        """The training steps whose networks are in memory, least recently used first."""
        with self._lock:
            return list(self._loaded)

    def _copy(self) -> Any:
        model = self._model
        if _is_sb3(model):
            clone = copy.copy(model)  # shares the replay buffer and env, not the networks
            clone.policy = _same_architecture(model.policy)
            aliases = getattr(clone, "_create_aliases", None)  # DQN's q_net, SAC's actor...
            if aliases is not None:
                aliases()
            return clone
        if isinstance(model, nn.Module):
            return copy.deepcopy(model)
        made = model()
        if not isinstance(made, nn.Module):
            raise TypeError(f"the model factory returned a {type(made).__name__}, not an nn.Module")
        return made


def _same_architecture(policy: nn.Module) -> nn.Module:
    """A new SB3 policy of ``policy``'s architecture, made as SB3's ``load`` makes one
    (from its constructor parameters), its weights to be loaded. Not a deep copy: a PPO
    just trained on a Box keeps its last Gaussian, tensors of a graph, which torch
    refuses to deep-copy."""
    made = type(policy)(**policy._get_constructor_parameters())  # type: ignore[operator]
    return made.to(next(policy.parameters()).device)


def _module(network: Any) -> nn.Module:
    """Where a copy's weights go: an SB3 model's policy (what RecordCheckpoints saves)."""
    return network.policy if _is_sb3(network) else network


def _is_sb3(model: Any) -> bool:
    """Duck-typed, so that this layer never imports SB3: a policy module and ``predict``."""
    return isinstance(getattr(model, "policy", None), nn.Module) and callable(
        getattr(model, "predict", None)
    )
