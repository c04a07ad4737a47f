"""What a widget's output shows where the widget cannot run: a picture and a sentence.

A widget's display data holds ``application/vnd.jupyter.widget-view+json``, a
reference to a model that lives in a kernel (or in the notebook's saved widget
state), and anywidget's ``text/plain``, its repr ``<agent_widget... object at
0x...>``. Where that model cannot be drawn, an output showed the repr or nothing:
a notebook saved without widget state (JupyterLab's default) exported by
``nbconvert --to html``, shown on GitHub or nbviewer, or opened untrusted.
:class:`SavedCopy` adds to the bundle what those show instead: an ``image/png`` of
what the widget showed when its output was made (a viewer's frame and readout at
its step), or a ``text/html`` table, and a ``text/plain`` sentence saying what it is
and how to make it interactive.

The widget view still wins wherever it can be drawn: JupyterLab and Notebook 7 rank
the widget renderer before every other (rank 0 against image/png's 90), nbconvert
renders it first when the notebook holds the model's state (its
``widgetsdatatypefilter`` skips it otherwise), and Voila draws widgets only. An
untrusted output may use only safe renderers, so JupyterLab shows the picture there.

The picture is drawn when the output is displayed (a millisecond or two for a Pong
frame), from the frame as stored: it says nothing the kernel did not already hold.
"""

from __future__ import annotations

import base64
import html
import io
import json
import logging
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from PIL import Image, ImageDraw

from agent_widget.panels import BACKGROUND, BORDER, MUTED, TEXT, clip, format_number, text_font
from agent_widget.viewer._agents import agent_lines
from agent_widget.viewer._episode import ServedEpisode
from agent_widget.viewer._transport import action_text

_log = logging.getLogger(__name__)

MAX_PNG_BYTES = 100_000
# Small frames (a grid world's 64 px) are grown by a whole factor, in crisp blocks,
# until their longer side reaches this; larger ones are drawn at their own size.
MIN_FRAME_SIDE = 192
READOUT_WIDTH = 240
PAD = 8
FONT_SIZE = 12
LINE_HEIGHT = 17
# A larger frame is shrunk to fit this box before it is drawn (a 4K render).
MAX_FRAME_SIDE = 640


class SavedCopy:
    """Mixin for a widget (before ``AnyWidget`` in the bases): its display data also
    carries :meth:`_saved_text`, :meth:`_saved_picture` and :meth:`_saved_html`.

    Drawing must never keep the widget from showing: a picture or table that fails
    is left out (logged), and the sentence stays.
    """

    def _saved_text(self) -> str:
        """What the output is and how to make it interactive (``text/plain``)."""
        raise NotImplementedError

    def _saved_picture(self) -> Image.Image | None:
        """What the widget shows now, as pixels (``image/png``); None for none."""
        return None

    def _saved_html(self) -> str | None:
        """What the widget shows now as HTML (``text/html``), every user string escaped."""
        return None

    def _repr_mimebundle_(self, **kwargs: Any) -> tuple[dict[str, Any], dict[str, Any]] | None:
        bundle = super()._repr_mimebundle_(**kwargs)  # type: ignore[misc]
        if bundle is None:
            return None
        data, metadata = bundle if isinstance(bundle, tuple) else (bundle, {})
        data = {**data, "text/plain": self._saved_text()}
        try:
            picture = self._saved_picture()
            if picture is not None:
                data["image/png"] = base64.b64encode(png(picture)).decode("ascii")
            html = self._saved_html()
            if html is not None:
                data["text/html"] = html
        except Exception:  # a saved copy is a courtesy: the widget shows whatever happens
            _log.warning("agent-widget: could not draw the output's saved copy", exc_info=True)
        # Marks the output for the server extension (agent_widget_server._saved_views).
        return data, {**metadata, "agent_widget": {"saved_copy": True}}


def sentence(what: str, how: str, page: bool = True) -> str:
    """The ``text/plain`` of a widget's output: ``what`` it shows, then that this is a
    saved copy and ``how`` running the cell makes it interactive; with ``page``, that the
    widget's ``to_html()`` saves a page that works without a kernel.

    Examples:
        >>> sentence("EpisodeViewer: Pong, step 3 of 0 to 9", "step through it", page=False)
        "EpisodeViewer: Pong, step 3 of 0 to 9. This is a saved copy of the widget's output: \
run the cell to step through it."
    """
    also = ", or save a page that works without a kernel with its to_html()" if page else ""
    return f"{what}. This is a saved copy of the widget's output: run the cell to {how}{also}."


def saved_table(kind: str, note: str, titles: Sequence[str], rows: Iterable[str]) -> str:
    """A table widget's ``text/html`` saved copy: its sentence ``note``, then the table
    of ``titles`` over ``rows`` (made by :func:`table_row`), in ``aw-saved-<kind>``;
    every user string escaped."""
    head = "".join(f"<th>{html.escape(title)}</th>" for title in titles)
    return (
        f'<div class="aw-saved-{kind}"><p>{html.escape(note)}</p>'
        f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
    )


def table_row(texts: Iterable[str]) -> str:
    """One row of :func:`saved_table`, its texts escaped."""
    return "<tr>" + "".join(f"<td>{html.escape(text)}</td>" for text in texts) + "</tr>"


def png(picture: Image.Image, max_bytes: int = MAX_PNG_BYTES) -> bytes:
    """``picture`` as PNG bytes, at most ``max_bytes``: lossless when that fits, else in
    256 colours, else shrunk until it fits. Whether the lossless one fits is judged from
    every fourth row first (a quarter of the work), so a large detailed render does not
    pay for a whole encoding it cannot use.

    Examples:
        >>> noise = np.random.default_rng(0).integers(0, 256, (400, 600, 3), dtype=np.uint8)
        >>> len(png(Image.fromarray(noise))) <= MAX_PNG_BYTES  # 720 KB as it is
        True
    """
    rgb = picture.convert("RGB")
    if len(_encoded(Image.fromarray(np.asarray(rgb)[::4]))) * 4 <= max_bytes:
        data = _encoded(rgb)
        if len(data) <= max_bytes:
            return data
    octree = Image.Quantize.FASTOCTREE  # median cut takes 100x longer on a noisy frame
    data = _encoded(rgb.quantize(256, octree))
    while len(data) > max_bytes and min(rgb.size) > 1:
        factor = min(0.9, (max_bytes / len(data)) ** 0.5)
        size = (max(1, int(rgb.width * factor)), max(1, int(rgb.height * factor)))
        rgb = rgb.resize(size, Image.Resampling.BILINEAR)
        data = _encoded(rgb.quantize(256, octree))
    return data


def shown_frame(frame: np.ndarray) -> np.ndarray:
    """``frame`` (HxWx3 uint8) as the picture draws it: a small one grown by a whole
    factor in blocks, a huge one shrunk to fit ``MAX_FRAME_SIDE``.

    Examples:
        >>> shown_frame(np.zeros((48, 64, 3), np.uint8)).shape
        (144, 192, 3)
    """
    height, width = frame.shape[:2]
    longer = max(height, width, 1)
    if longer > MAX_FRAME_SIDE:
        factor = MAX_FRAME_SIDE / longer
        size = (max(1, round(width * factor)), max(1, round(height * factor)))
        return np.asarray(Image.fromarray(frame).resize(size, Image.Resampling.BILINEAR))
    grow = max(1, MIN_FRAME_SIDE // longer)
    return frame.repeat(grow, 0).repeat(grow, 1) if grow > 1 else frame


def still(title: str, frame: np.ndarray | None, lines: Sequence[str], beside: bool) -> Image.Image:
    """One view as a picture: ``title`` above, the frame (if any), and the readout's
    ``lines`` to its right (``beside``) or below it."""
    shown = shown_frame(frame) if frame is not None and frame.size else None
    frame_height, frame_width = (0, 0) if shown is None else shown.shape[:2]
    font, title_font = text_font(FONT_SIZE), text_font(FONT_SIZE + 1)
    title_height = LINE_HEIGHT + PAD if title else 0
    text_height = len(lines) * LINE_HEIGHT
    if beside:
        width = PAD + frame_width + (PAD if shown is not None else 0) + READOUT_WIDTH + PAD
        height = title_height + max(frame_height, text_height) + 2 * PAD
        text_at = (PAD + frame_width + (PAD if shown is not None else 0), PAD + title_height)
    else:
        width = max(frame_width, READOUT_WIDTH) + 2 * PAD
        height = title_height + frame_height + text_height + 3 * PAD
        text_at = (PAD, PAD + title_height + frame_height + PAD)
    image = Image.new("RGB", (width, height), BACKGROUND)
    draw = ImageDraw.Draw(image)
    if title:
        draw.text((PAD, PAD), clip(title, width - 2 * PAD, title_font), TEXT, title_font)
    if shown is not None:
        image.paste(Image.fromarray(shown), (PAD, PAD + title_height))
    left, top = text_at
    for i, line in enumerate(lines):
        draw.text((left, top + i * LINE_HEIGHT), clip(line, width - left - PAD, font), TEXT, font)
    return image


def framed(pictures: Sequence[Image.Image], title: str, note: str) -> Image.Image:
    """``pictures`` side by side under ``title``, ``note`` in small print below, in a border."""
    title_font, note_font = text_font(FONT_SIZE + 2), text_font(FONT_SIZE - 1)
    title_height = LINE_HEIGHT + PAD if title else 0
    row_width = sum(p.width for p in pictures) + PAD * (len(pictures) - 1)
    row_height = max((p.height for p in pictures), default=0)
    width = max(row_width, 2 * READOUT_WIDTH) + 2 * PAD
    height = title_height + row_height + LINE_HEIGHT + 3 * PAD
    image = Image.new("RGB", (width, height), BACKGROUND)
    draw = ImageDraw.Draw(image)
    if title:
        draw.text((PAD, PAD), clip(title, width - 2 * PAD, title_font), TEXT, title_font)
    left = PAD
    for picture in pictures:
        image.paste(picture, (left, PAD + title_height))
        left += picture.width + PAD
    note_top = 2 * PAD + title_height + row_height
    draw.text((PAD, note_top), clip(note, width - 2 * PAD, note_font), MUTED, note_font)
    draw.rectangle((0, 0, width - 1, height - 1), outline=BORDER)
    return image


def readout_lines(episode: ServedEpisode, t: int, readout: str = "step") -> list[str]:
    """What the readout says of position ``t`` (see js/shared/readout.ts), one line each:
    ``readout="info"`` for positions that are not env steps (the position and its info's
    entries), else the step's action (in a multi-agent episode: who acted and each
    agent's action, reward and return), reward, return and end flags.

    Examples:
        >>> from agent_widget.episodes import Rollout
        >>> rollout = Rollout.from_arrays(actions=[2], rewards=[1.5])
        >>> readout_lines(ServedEpisode(rollout, None, "raw", (), ["L", "R", "UP"]), 0)[:4]
        ['t = 0 / 1', 'action: 2 (UP)', 'reward: 1.5 (of action 0)', 'return: 0 (before action 0)']
    """
    info = episode.infos[t] if t < episode.num_positions else {}
    if readout == "info":
        entries = info.items() if isinstance(info, dict) else []
        return [counter_line(episode, t, readout)] + [
            f"{key}: {_value_text(value)}" for key, value in entries
        ]
    steps = episode.num_steps
    acted = t < steps
    outcome = min(t, steps - 1)  # the action whose end flags show: the last one's at the end
    after = f"after action {outcome}"

    def flag(values: np.ndarray) -> str:
        return str(bool(values[outcome])).lower() if 0 <= outcome < len(values) else "-"

    agents = episode.agent_readout([t])  # a multi-agent episode: a line per agent instead
    if acted:
        action = f"action: {action_text(episode.actions[t], episode.action_names)}"
        reward = float(episode.rewards[t])
        finite = "" if np.isfinite(reward) else "; not a finite number: left out of the return"
        earned = f"reward: {format_number(reward)} (of action {t}{finite})"
    else:
        action, earned = "action: - (none at the last position)", "reward: -"
    flags = f"terminated: {flag(episode.terminated)}  truncated: {flag(episode.truncated)}"
    return [
        counter_line(episode, t, readout),
        *([action] if agents is None else agent_lines(agents[0], t)),
        earned,
        f"return: {format_number(float(episode.finite_returns()[t]))} "
        f"({f'before action {t}' if acted else after})",
        f"{flags} ({after})" if outcome >= 0 else flags,
        *([f"info: {_value_text(info)}"] if info else []),
    ]


def counter_line(episode: ServedEpisode, t: int, readout: str = "step") -> str:
    """The readout's first line alone (``t = 12 / 200``, or ``position 3 / 9`` with
    ``readout="info"``): a video's step counter, drawn at every frame.

    Examples:
        >>> from agent_widget.episodes import Rollout
        >>> episode = ServedEpisode(Rollout.from_arrays(actions=[2]), None, "raw", (), None)
        >>> counter_line(episode, 1)
        't = 1 / 1'
    """
    if readout == "info":
        return f"position {t} / {episode.num_positions - 1}"
    return f"t = {t} / {episode.num_steps}"


def _value_text(value: Any) -> str:
    if isinstance(value, float):
        return format_number(value)
    return value if isinstance(value, str) else json.dumps(value, default=str)


def _encoded(picture: Image.Image) -> bytes:
    buffer = io.BytesIO()
    picture.save(buffer, "PNG", compress_level=1)  # 2-3x faster than 6; a bit larger
    return buffer.getvalue()
