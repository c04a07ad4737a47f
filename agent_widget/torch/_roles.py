"""What a model's outputs are, so a panel computes only what they can give and says
what it computed from.

One output per action is a Q-network's Q-values or an actor's logits, and the two
cannot be told apart by their shapes: bars of an actor's logits drawn as Q-values,
with their largest as V, look right and are wrong. An SB3 model says which it is
(DQN: a Q-network; PPO, A2C, SAC, TD3, DDPG: an actor, with a critic); a model
returning a pair ``(logits, value)`` is an actor-critic; a plain module is whatever
the panel it is given to reads (``QValues``: a Q-network, ``Policy``: an actor)
unless the user marks it as a policy with :func:`mark_policy`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from torch import nn

from agent_widget.torch._model import _is_sb3, is_q_network

Role = Literal["Q-network", "actor"]

_MARK = "_agent_widget_policy"


def mark_policy(module: nn.Module) -> nn.Module:
    """Marks a torch module whose outputs are a policy's logits (an actor), and returns it.

    Nothing tells an actor's logits from Q-values by their shape: marked, the module
    is refused by ``QValues`` (pointing to ``Policy``) and named an actor on saliency
    cards. A module returning ``(logits, value)`` needs no mark.

    Examples:
        >>> import torch
        >>> actor = mark_policy(torch.nn.Linear(4, 2))
        >>> role_of(actor)
        'actor'
    """
    if not isinstance(module, nn.Module):
        raise TypeError(f"mark_policy marks a torch nn.Module, got {type(module).__name__}")
    setattr(module, _MARK, True)
    return module


def role_of(model: Any) -> Role | None:
    """What the model's per-action outputs are, where it says: ``None`` for a plain
    module that is not marked."""
    if getattr(model, _MARK, False) is True:
        return "actor"
    if is_q_network(model):
        return "Q-network"
    # Every other SB3 model the adapter reads (PPO, A2C, SAC, TD3, DDPG) is read by its actor.
    return "actor" if _is_sb3(model) else None


def refuse_actor(model: Any, role: Role | None) -> None:
    """TypeError for ``QValues`` of an actor's outputs, pointing to ``Policy``."""
    if role == "actor":
        what = "a module marked as a policy" if not _is_sb3(model) else f"a {type(model).__name__}"
        raise TypeError(
            f"QValues shows a Q-network's Q-values; {what} is an actor: its per-action "
            "outputs are logits, not Q-values, and its largest is no value: use "
            "Policy(model), which shows the action probabilities and the critic's V"
        )


def refuse_value_head(value: Any) -> None:
    """TypeError for ``QValues`` of a model returning ``(logits, value)``: an actor-critic."""
    if value is not None:
        raise TypeError(
            "QValues shows a Q-network's Q-values; this model returned a pair (logits, value), "
            "an actor-critic, whose per-action outputs are the actor's logits, not Q-values: "
            "use Policy(model), which shows the action probabilities and the critic's V"
        )


def explained(
    role: Role | None, target: int | str, labels: Sequence[str], box: bool, critic: bool
) -> str:
    """The output a saliency map explains, in words: whose it is and which.

    ``role`` is ``None`` for a plain module returning one output per action (a
    Q-network's or an actor's, unknown); ``critic``: the model has a value head.
    """
    if box:
        return "the sum of the actor's actions" if target == "sum" else f"the actor's a[{target}]"
    if role == "Q-network":
        outputs, one = "the Q-network's Q-values", "the Q-network's Q({})"
    elif role == "actor":
        outputs, one = "the actor's logits", "the actor's logit of {}"
    else:
        outputs, one = "the network's outputs", "the network's output {}"
    if isinstance(target, int):
        return one.format(labels[target])
    if target == "logits":
        return outputs
    # "value": the critic's V; without a value head, the largest output (max Q).
    return "the critic's V" if critic else f"the largest of {outputs}"
