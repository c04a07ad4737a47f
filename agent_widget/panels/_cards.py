"""A panel function's result, converted by its type into a card the front end draws.

A card is a kind, a small JSON-able ``meta`` dict and binary buffers (PNG bytes,
packed arrays or a map's compressed levels, never base64):

=========================================  =========  ==========================================
result                                     kind       meta / buffers
=========================================  =========  ==========================================
1-D real array, or ``dict[str, number]``   bars       labels, highlight / values as float64 LE
2-D uint8 array (a greyscale picture)      image      width, height, overlay / PNG
2-D real array of another dtype            heatmap    width, height, min, max, colormap,
                                                      overlay / zlib levels (one byte per cell,
                                                      see :mod:`agent_widget.panels._heatmap`),
                                                      colormap (256 RGB bytes)
HxWx3 or HxWx4 uint8 array                 image      width, height, overlay / PNG
matplotlib ``Figure`` (or ``Axes``)         image      width, height, overlay / PNG (closed)
``str``                                    text       text (the front end shows it as text)
``None``                                   empty      (nothing for this step)
anything else, or an exception             error      error, message, traceback
=========================================  =========  ==========================================

Objects with ``__array__`` (torch tensors, JAX arrays) count as arrays. A panel
registered with ``overlay=True`` draws its heatmap or image over the frame (when
the episode has frames): the card holds it at its own size, and the page scales it
to the frame's, so the kernel never reads a frame to learn its size. An array may
say more through optional attributes (e.g. a saliency map's): ``caption`` (a line
of text under it) and ``over_frame`` (``False``: it is no picture of the frame, and
is drawn in its card even for an overlay panel).

A mapping may say more about its bars through optional attributes (e.g.
:class:`agent_widget.torch.ActionBars`): ``taken`` (the index to highlight,
instead of the step's action), ``greedy`` (an index marked beside its label),
``scale`` (``(low, high)``, a value axis fixed across steps), ``ranges`` and
``marks`` (a whisker and a marked value per bar: a continuous actor's spread and the
action taken) and ``caption`` (a
line of text under the bars); they travel in the meta under the same names
(``taken`` as ``highlight``).
"""

from __future__ import annotations

import contextlib
import io
import sys
import traceback
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from types import TracebackType
from typing import Any

import numpy as np
from PIL import Image

from agent_widget.panels._heatmap import COLORMAP, LUT, heatmap
from agent_widget.panels._returned import Returned
from agent_widget.panels._step import Step

ACCEPTED = (
    "a 1-D array or dict[str, float] (bars), a 2-D array (heatmap), an HxWx3 or HxWx4 "
    "uint8 array (image), a matplotlib Figure or Axes, a str (text), or None (nothing to show)"
)
MAX_TEXT = 100_000  # characters of a text card; more is cut, with a note
MAX_PIXELS = 4096 * 4096  # of an image or heatmap, to keep a card's size sane
MAX_BARS = 10_000  # of a bars card: more are no longer readable as bars
TRACEBACK_FRAMES = 5  # of the user's code, most recent last
_MAX_MESSAGE = 2_000
# Speed over size: images are encoded per step while the user scrubs.
_PNG_LEVEL = 1


@dataclass(frozen=True)
class Card:
    """What the front end draws for one panel at one step: ``kind``, ``meta``, ``buffers``;
    and what the panel function did (``returned``), for ``viewer.card``: None for a card
    that is no result (no answer in time, a call given up on)."""

    kind: str
    meta: dict[str, Any] = field(default_factory=dict)
    buffers: tuple[bytes, ...] = ()
    returned: Returned | None = field(default=None, compare=False, repr=False)

    @property
    def nbytes(self) -> int:
        """Rough memory held, for the cache's byte bound (buffers, the meta's text and
        the value returned)."""
        held = 0 if self.returned is None else self.returned.nbytes(self._drawn_pixels())
        return sum(len(b) for b in self.buffers) + len(repr(self.meta)) + held

    def _drawn_pixels(self) -> int:
        return int(self.meta.get("width", 0)) * int(self.meta.get("height", 0))


class PanelResultError(ValueError):
    """A result the cards cannot show; the message says why and what is accepted."""


def compute(fn: Callable[[Step], Any], step: Step, overlay: bool = False) -> Card:
    """Run a panel function on ``step`` and convert its result; never raises.

    Examples:
        >>> from agent_widget.episodes import Rollout
        >>> step = Step(Rollout.from_arrays(observations=np.zeros((2, 1)), actions=[0]), 0)
        >>> compute(lambda step: f"t = {step.t}", step)
        Card(kind='text', meta={'text': 't = 0'}, buffers=())
        >>> compute(lambda step: 1 / 0, step).meta["error"]
        'ZeroDivisionError'
    """
    with _closing_new_figures():
        try:
            result = fn(step)
        # Whatever the panel raises (SystemExit, KeyboardInterrupt and GeneratorExit
        # too) is the user's bug, shown on the card: it must not end the panel worker.
        except BaseException as error:
            card = error_card(error, user_frames(error.__traceback__))
            return replace(card, returned=Returned.raised(error))
        try:
            card = to_card(result, step, overlay)
        except Exception as error:  # the result could not be shown; our frames would not help
            card = error_card(error, "")
        return replace(card, returned=Returned(result))


@contextlib.contextmanager
def _closing_new_figures() -> Iterator[None]:
    """Close the pyplot figures a panel opened and did not return (or opened, then raised),
    so that figures never pile up whatever the panel does."""
    pyplot = sys.modules.get("matplotlib.pyplot")
    before = set(pyplot.get_fignums()) if pyplot is not None else set()
    try:
        yield
    finally:
        pyplot = sys.modules.get("matplotlib.pyplot")
        if pyplot is not None:
            for number in set(pyplot.get_fignums()) - before:
                pyplot.close(number)


def to_card(result: Any, step: Step, overlay: bool = False) -> Card:
    """The card for ``result``; raises PanelResultError for results it cannot show."""
    # An overlay panel's picture goes over the frame, unless the episode has no frames.
    overlay = overlay and step.rollout.frames is not None
    if result is None:
        return Card("empty")
    if isinstance(result, str):
        return _text(result)
    if isinstance(result, Mapping):
        return _dict_bars(result, step)
    if _is_figure(result):
        return _figure(result, overlay)
    figure = _axes_figure(result)
    if figure is not None:
        return _figure(figure, overlay)
    if isinstance(result, np.ndarray) or hasattr(result, "__array__"):
        overlay = overlay and getattr(result, "over_frame", True) is not False
        card = _array(np.asarray(result), type(result).__name__, step, overlay)
        caption = getattr(result, "caption", None)
        return (
            card if caption is None else replace(card, meta={**card.meta, "caption": str(caption)})
        )
    raise PanelResultError(f"the panel returned {_type_name(result)}; return {ACCEPTED}")


def error_card(error: BaseException, trace: str) -> Card:
    """An error card: the exception's type and message, and the traceback text, if any."""
    try:
        message = str(error)
    except Exception as broken:  # its __str__ fails: say so rather than lose the card
        message = f"(its message could not be shown: {type(broken).__name__} in __str__)"
    if len(message) > _MAX_MESSAGE:
        message = message[:_MAX_MESSAGE] + " …"
    meta = {"error": type(error).__name__, "message": message, "traceback": trace}
    return Card("error", meta)


def no_answer_card(name: str, timeout: float, t: int, where: str) -> Card:
    """The card of panel ``name`` while its call at step ``t`` runs past its ``timeout``:
    an error card saying where the call is, marked ``retry`` because it is no result:
    no cache keeps it, so the step is asked for again once the call returns."""
    trace = (
        f"still running for step {t}; {name!r} is called again once that call returns "
        f"(remove_panel or a fixed function of the same name take effect at once)\n{where}"
    )
    message = f"no answer after {timeout:g} s"
    return Card("error", {"error": "TimeoutError", "message": message, "traceback": trace,
                          "retry": True})  # fmt: skip


def user_frames(tb: TracebackType | None) -> str:
    """The last frames of a traceback caught around a user's call, the catching frame left out."""
    frames = traceback.extract_tb(tb.tb_next if tb is not None else None)
    return "".join(traceback.format_list(frames[-TRACEBACK_FRAMES:]))


def _text(text: str) -> Card:
    if len(text) > MAX_TEXT:
        text = text[:MAX_TEXT] + f"\n… ({len(text) - MAX_TEXT} more characters not shown)"
    return Card("text", {"text": text})


def _array(array: np.ndarray, what: str, step: Step, overlay: bool) -> Card:
    if array.dtype.kind not in "biuf":
        message = f"the panel returned {what} of dtype {array.dtype}; return {ACCEPTED}"
        raise PanelResultError(message)
    if array.ndim == 1:
        _check_bars(len(array), what)
        return _bars(array, _array_labels(len(array), step), _action_highlight(len(array), step))
    if array.ndim == 2 and array.dtype == np.uint8:  # a stacked frame, a camera: grey as it is
        _check_pixels(array.shape, what)
        return _image(np.repeat(array[:, :, None], 3, axis=2), overlay)
    if array.ndim == 2:
        _check_pixels(array.shape, what)
        return _heatmap(array, overlay)
    if array.ndim == 3 and array.shape[2] in (3, 4) and array.dtype == np.uint8:
        _check_pixels(array.shape, what)
        return _image(array, overlay)
    raise PanelResultError(
        f"the panel returned {what} of shape {array.shape} and dtype {array.dtype}; "
        f"{_array_hint(array)}return {ACCEPTED}"
    )


def _array_hint(array: np.ndarray) -> str:
    if array.ndim == 3 and array.shape[2] in (3, 4):
        return "an image must be uint8 (e.g. (x * 255).astype(np.uint8)); "
    if array.ndim == 3 and array.shape[2] == 1:
        return "for a heatmap drop the last axis (x[..., 0]); "
    if array.ndim == 0:
        return "for a single number return a str (e.g. f'{x:.3f}'); "
    return ""


def _bars(values: np.ndarray, labels: list[str], highlight: int | None) -> Card:
    if len(values) == 0:
        raise PanelResultError("the panel returned no values to draw; return None for nothing")
    packed = np.asarray(values, dtype="<f8").tobytes()
    return Card("bars", {"labels": labels, "highlight": highlight}, (packed,))


def _dict_bars(result: Mapping[Any, Any], step: Step) -> Card:
    _check_bars(len(result), "a dict")
    labels = [str(key) for key in result]
    numbers = []
    for label, value in zip(labels, result.values(), strict=True):
        number = np.asarray(value) if np.ndim(value) == 0 else None
        if number is None or number.dtype.kind not in "biuf":
            raise PanelResultError(
                f"the panel returned a dict whose value for {label!r} is {_type_name(value)}; "
                "bars need a number per key"
            )
        numbers.append(float(number))
    values = np.asarray(numbers, dtype=np.float64)
    taken = {step.action_name, None if step.action_index is None else str(step.action_index)}
    highlight = next((i for i, label in enumerate(labels) if label in taken), None)
    if hasattr(result, "taken"):
        highlight = _index(result.taken, len(values), "taken")
    card = _bars(values, labels, highlight)
    return Card(card.kind, {**card.meta, **_annotations(result, len(values))}, card.buffers)


def _annotations(result: Any, count: int) -> dict[str, Any]:
    """The optional ``greedy``, ``scale`` and ``caption`` of a bars result, checked."""
    meta: dict[str, Any] = {}
    if getattr(result, "greedy", None) is not None:
        meta["greedy"] = _index(result.greedy, count, "greedy")
    scale = getattr(result, "scale", None)
    if scale is not None:
        low, high = (float(x) for x in scale)
        if not (np.isfinite([low, high]).all() and low < high):
            raise PanelResultError(f"the bars' scale must be finite (low, high), got {scale!r}")
        meta["scale"] = [low, high]
    caption = getattr(result, "caption", None)
    if caption is not None:
        meta["caption"] = str(caption)
    for name, shape in (("ranges", (count, 2)), ("marks", (count,))):
        values = getattr(result, name, None)
        if values is not None:
            meta[name] = _per_bar(values, shape, name)
    return meta


def _per_bar(values: Any, shape: tuple[int, ...], what: str) -> list[Any]:
    """A bars result's ``ranges`` (a low, high whisker per bar) or ``marks`` (a value per
    bar), checked: finite numbers, one per bar."""
    array = np.asarray(values, dtype=np.float64)
    if array.shape != shape or not np.isfinite(array).all():
        raise PanelResultError(
            f"the bars' {what} must be finite numbers of shape {shape}, got {array.shape}"
        )
    return array.tolist()


def _index(value: Any, count: int, what: str) -> int | None:
    if value is None:
        return None
    integer = isinstance(value, (int, np.integer)) and not isinstance(value, bool)
    if not integer or not 0 <= value < count:
        raise PanelResultError(f"the bars' {what} must be an index below {count}, got {value!r}")
    return int(value)


def _array_labels(count: int, step: Step) -> list[str]:
    names = step.action_names
    return list(names) if len(names) == count else [str(i) for i in range(count)]


def _action_highlight(count: int, step: Step) -> int | None:
    """The taken action's bar, when the bars are one per action (as many as names, if known)."""
    index = step.action_index
    per_action = not step.action_names or len(step.action_names) == count
    return index if per_action and index is not None and 0 <= index < count else None


def _heatmap(values: np.ndarray, overlay: bool) -> Card:
    try:
        drawn = heatmap(values)
    except ValueError as error:
        raise PanelResultError(f"the panel returned a map that cannot be drawn: {error}") from None
    height, width = drawn.levels.shape
    meta = {
        "width": width,
        "height": height,
        "min": drawn.min,
        "max": drawn.max,
        "colormap": COLORMAP,
        "overlay": overlay,
    }
    return Card("heatmap", meta, (drawn.payload, LUT.tobytes()))


def _image(pixels: np.ndarray, overlay: bool) -> Card:
    buffer = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(pixels)).save(
        buffer, format="PNG", compress_level=_PNG_LEVEL
    )
    meta = {"width": pixels.shape[1], "height": pixels.shape[0], "overlay": overlay}
    return Card("image", meta, (buffer.getvalue(),))


def _figure(figure: Any, overlay: bool) -> Card:
    """The figure as a PNG at its own size and dpi, closed afterwards so figures never pile up."""
    try:
        buffer = io.BytesIO()
        figure.savefig(buffer, format="png", dpi=figure.dpi)
    finally:
        pyplot = sys.modules.get("matplotlib.pyplot")
        if pyplot is not None:  # a figure pyplot never saw needs no closing
            pyplot.close(figure)
    width, height = Image.open(buffer).size
    meta = {"width": width, "height": height, "overlay": overlay}
    return Card("image", meta, (buffer.getvalue(),))


def _is_figure(result: Any) -> bool:
    figure = sys.modules.get("matplotlib.figure")
    return figure is not None and isinstance(result, figure.Figure)


def _axes_figure(result: Any) -> Any:
    """The figure of a matplotlib ``Axes``, else None."""
    axes = sys.modules.get("matplotlib.axes")
    return result.figure if axes is not None and isinstance(result, axes.Axes) else None


def _check_bars(count: int, what: str) -> None:
    if count > MAX_BARS:
        raise PanelResultError(
            f"the panel returned {what} of {count:,} values; bars show at most {MAX_BARS:,} "
            "(a 2-D array draws as a heatmap)"
        )


def _check_pixels(shape: tuple[int, ...], what: str) -> None:
    if shape[0] * shape[1] > MAX_PIXELS or min(shape[:2]) == 0:
        raise PanelResultError(
            f"the panel returned {what} of shape {shape}: images and maps must have between "
            f"1 and {MAX_PIXELS} pixels"
        )


def _type_name(value: Any) -> str:
    kind = type(value)
    return kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__name__}"
