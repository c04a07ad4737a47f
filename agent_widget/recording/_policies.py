"""What a recording calls for each action: a function of the observation, or a model
with Stable-Baselines3's ``predict`` (duck-typed: nothing here imports SB3)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

PolicyFunction = Callable[[Any], Any]
"""``obs -> action`` or ``obs -> (action, extras)``, extras a dict of per-step values."""


def as_policy(policy: Any, deterministic: bool = True) -> PolicyFunction:
    """``policy`` as a function of the observation.

    A callable is used as it is. An object with ``predict(obs, deterministic=...)``
    returning ``(action, state)`` (a Stable-Baselines3 model, or one shaped like it)
    is called for its action, deterministically unless asked otherwise: SB3's own
    ``evaluate_policy`` default, and what a user inspecting a trained agent means.
    It works on one observation or, for a vector env, on a batch of them.

    Examples:
        >>> as_policy(lambda obs: 0)(None)
        0
        >>> class Model:
        ...     def predict(self, obs, deterministic=False):
        ...         return (1 if deterministic else 0), None
        >>> as_policy(Model())(None), as_policy(Model(), deterministic=False)(None)
        (1, 0)
    """
    if callable(policy):
        return policy
    predict = getattr(policy, "predict", None)
    if not callable(predict):
        raise TypeError(
            "policy must be a function obs -> action, or a model with "
            "predict(obs, deterministic=...) as Stable-Baselines3's have; "
            f"got {type(policy).__name__}"
        )

    def act(obs: Any) -> Any:
        action, _state = predict(obs, deterministic=deterministic)
        return action

    return act


def split_policy_output(output: Any) -> tuple[Any, Mapping[str, Any]]:
    """``(action, {extras})`` -> its parts; anything else is the action alone."""
    if isinstance(output, tuple) and len(output) == 2 and isinstance(output[1], Mapping):
        return output[0], output[1]
    return output, {}
