"""How an env was made, kept with its episodes, and the env made again from that.

An episode recorded without frames (a checkpoint's evaluation) gets them later by
replay, in an env made as it was recorded: its wrappers included, or the replay
strays from the recorded observations. Gymnasium's ``env.spec`` records that (the
id, its arguments, and ``additional_wrappers``: each wrapper's entry point and
arguments), so a recording keeps it in ``metadata["env_spec"]``, laid out as
``EnvSpec.to_json()`` lays it out; an argument that is no JSON (a function given to
``TransformReward``) is kept as None: not known.

A file never makes agent-widget import a module named in it, so only what gymnasium
already knows is made again: an env id of gymnasium's registry (whatever registered
it: gymnasium, or a package the user imported) and gymnasium's own wrappers. Anything
else (a wrapper of another package, one whose arguments were not kept) is left out,
and the replay (which checks every observation) says so if it strays for want of
it, with what to pass instead (``render_env=``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import gymnasium as gym
import gymnasium.wrappers

_FIELDS = (
    "id",
    "entry_point",
    "reward_threshold",
    "nondeterministic",
    "max_episode_steps",
    "order_enforce",
    "disable_env_checker",
    "kwargs",
)
_INSTEAD = (
    "pass render_env=, a function making the env as it was recorded, with render_mode='rgb_array'"
)


def env_spec(env: gym.Env[Any, Any]) -> dict[str, Any] | None:
    """How ``env`` was made, as JSON (``EnvSpec.to_json()``'s fields, its wrappers in
    ``additional_wrappers``); None for an env made without ``gym.make``.

    Examples:
        >>> spec = env_spec(gym.wrappers.FlattenObservation(gym.make("CartPole-v1")))
        >>> spec["id"], [wrapper["name"] for wrapper in spec["additional_wrappers"]]
        ('CartPole-v1', ['FlattenObservation'])
    """
    try:
        spec = env.spec
    except Exception:  # a wrapper's spec that cannot be made: the env is not described
        return None
    if spec is None:
        return None
    description = {name: _json(getattr(spec, name)) for name in _FIELDS}
    description["additional_wrappers"] = [
        {"name": w.name, "entry_point": w.entry_point, "kwargs": _json(w.kwargs)}
        for w in spec.additional_wrappers
    ]
    return description


def make_env(
    description: Mapping[str, Any], render_mode: str = "rgb_array"
) -> tuple[gym.Env[Any, Any], str]:
    """The env ``description`` (:func:`env_spec`'s) says, made again with ``render_mode``,
    and what was left out of it: each wrapper not made again, why, and what to pass
    instead ("" when none was). A replay checks every observation, so an env missing a
    wrapper that changed none (a monitor) still renders the episode's frames.

    Raises:
        ValueError: the env itself cannot be made again: what to import or pass instead.
    """
    env_id = description.get("id")
    if not isinstance(env_id, str) or env_id not in gym.registry:
        raise ValueError(
            f"env {env_id!r} is not in gymnasium's registry (import the package that "
            f"registers it, e.g. gym.register_envs(ale_py)), or {_INSTEAD}"
        )
    kwargs = description.get("kwargs")
    if not isinstance(kwargs, Mapping):
        raise ValueError(f"env {env_id}: its arguments were not kept (not JSON); {_INSTEAD}")
    given = list(description.get("additional_wrappers") or [])
    # gym.make applies the wrappers the registry names itself: the rest are the user's.
    wrappers = [_wrapper(w) for w in given[len(gym.registry[env_id].additional_wrappers) :]]
    left_out = [why for why in wrappers if isinstance(why, str)]
    note = f"{'; '.join(left_out)}: {_INSTEAD}" if left_out else ""
    steps = description.get("max_episode_steps")
    env = gym.make(env_id, max_episode_steps=steps, **{**kwargs, "render_mode": render_mode})
    try:
        for wrapper in wrappers:
            if not isinstance(wrapper, str):
                env = wrapper[0](env, **wrapper[1])
    except Exception as error:
        env.close()
        raise ValueError(f"env {env_id} made again: {error!r:.300}; {note or _INSTEAD}") from error
    return env, note


Wrapper = type[gym.Wrapper[Any, Any, Any, Any]]


def _wrapper(description: Mapping[str, Any]) -> tuple[Wrapper, dict[str, Any]] | str:
    """A wrapper of gymnasium's own (found among ``gymnasium.wrappers``, never imported
    by its name) and its arguments; for any other, why it is left out."""
    name, entry_point = description.get("name"), str(description.get("entry_point"))
    module, _, class_name = entry_point.partition(":")
    found = _gymnasium_wrapper(class_name) if module.startswith("gymnasium.") else None
    if found is None or found.__module__ != module:
        return (
            f"wrapper {name} ({entry_point}) is not one of gymnasium's (a file never makes "
            "agent-widget import a module), left out"
        )
    arguments = description.get("kwargs")
    if not isinstance(arguments, Mapping):
        return f"wrapper {name} is left out: its arguments were not kept (a function is no JSON)"
    return found, {key: _tuples(value) for key, value in arguments.items()}


def _gymnasium_wrapper(name: str) -> Wrapper | None:
    """Wrapper class ``name`` of ``gymnasium.wrappers`` (which loads some on demand,
    gymnasium's own modules only), else None."""
    try:
        found = getattr(gymnasium.wrappers, name, None)
    except Exception:  # gymnasium's loader of an optional wrapper (jax, torch) failed
        return None
    return found if isinstance(found, type) and issubclass(found, gym.Wrapper) else None


def _tuples(value: Any) -> Any:
    """Lists read back from JSON as the tuples they were (JSON has none, and a wrapper
    may insist: ``ResizeObservation(shape=(84, 84))``)."""
    if isinstance(value, list):
        return tuple(_tuples(item) for item in value)
    if isinstance(value, dict):
        return {key: _tuples(item) for key, item in value.items()}
    return value


def _json(value: Any) -> Any:
    """``value`` as JSON reads it back, or None when it is no JSON."""
    try:
        return json.loads(json.dumps(value, allow_nan=False))
    except (TypeError, ValueError):
        return None
