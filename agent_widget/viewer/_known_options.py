"""Options a widget does not know are refused, with the one that was probably meant.

Every widget takes ``**traits`` for its traits' initial values, and traitlets passes
any other keyword on with a ``DeprecationWarning`` nobody sees: ``EpisodeViewer(r,
embed_byte=0)`` made a viewer that carried the default ``embed_bytes``, silently. The
check runs in ``__new__``, which sees the constructor's keywords before it does any
work (opens an episode, starts a thread).
"""

from __future__ import annotations

import difflib
import functools
import inspect
from typing import Any

import traitlets

# Named parameters: what a keyword can set besides a trait.
_NAMED = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
# ipywidgets' Widget takes this one keyword that is no trait (a model's id in the front end).
_WIDGET_KEYWORDS = frozenset({"model_id"})


class RefusesUnknownOptions(traitlets.HasTraits):
    """Mixin for a widget: a keyword its constructor does not name and no trait of it
    takes is a ``TypeError`` naming the close match, before the widget is made."""

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        known = _known(cls)
        unknown = [name for name in kwargs if name not in known]
        if unknown:
            raise TypeError(_refusal(cls, unknown[0], known))
        return super().__new__(cls, *args, **kwargs)


@functools.cache
def _known(cls: type[traitlets.HasTraits]) -> frozenset[str]:
    """The keywords ``cls(...)`` takes: its constructor's named parameters and its traits."""
    return frozenset({*_parameters(cls), *cls.class_trait_names(), *_WIDGET_KEYWORDS})


def _parameters(cls: type) -> list[str]:
    """The constructor's named parameters, in order, and those of each ``__init__`` up the
    MRO its ``**kwargs`` reach (a user's subclass forwarding them to the viewer's)."""
    names: list[str] = []
    for klass in cls.__mro__:
        init = vars(klass).get("__init__")
        if init is None:
            continue
        parameters = inspect.signature(init).parameters.values()
        names += [p.name for p in parameters if p.kind in _NAMED and p.name not in names]
        if all(p.kind is not inspect.Parameter.VAR_KEYWORD for p in parameters):
            break
    return [name for name in names if name != "self"]


def _refusal(cls: type, name: str, known: frozenset[str]) -> str:
    """What the error says: the keyword, where, and the option probably meant (else the
    constructor's arguments, and where its traits are listed)."""
    said = f"{cls.__name__}() got an unexpected keyword argument {name!r}"
    public = sorted(option for option in known if not option.startswith("_"))
    close = difflib.get_close_matches(name, public, n=1)
    if close:
        return f"{said}: did you mean {close[0]!r}?"
    return (
        f"{said}; its arguments are {', '.join(_parameters(cls))}, and help({cls.__name__}) "
        "lists the traits it takes too"
    )
