"""What one episode looks like in a video frame: a :class:`Column` drawn at each position.

A column is, from the top: a header (the comparison's title for the episode, and the
step counter, ``t = 12 / 200`` as the readout writes it), the frame with its overlay
panels, enlarged by ``scale``, the readout's other lines, and a timeline strip of the
filmed range (rewards as bars, the return as a line, a cursor at the step); the
panels' cards stand in a column to its right. Its size is fixed when it is made, from
the first frame and the first cards, so that every video frame has one size.

``scale`` enlarges the frame in crisp blocks when it is a whole number (pixel art stays
sharp) and smoothly otherwise; by default the smallest whole factor that makes the frame
at least ``MIN_FRAME_HEIGHT`` px tall (Pong's 210 px: 2). Text and cards grow with it,
by a whole zoom of at most ``MAX_ZOOM``: cards are drawn at their size on the page and
enlarged in blocks, text is drawn at the zoomed size. Lines are wrapped, never cut.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from PIL import Image, ImageDraw

from agent_widget.panels import (
    BACKGROUND,
    BAR,
    BORDER,
    HIGHLIGHT,
    MUTED,
    TEXT,
    PanelRunner,
    card_image,
    needed_height,
    overlay_on,
    text_font,
    wrapped,
)
from agent_widget.viewer._episode import ServedEpisode
from agent_widget.viewer._lettering import Glyphs, TextBox
from agent_widget.viewer._saved_copy import counter_line, readout_lines

MIN_FRAME_HEIGHT = 400  # px the default scale reaches at least
MAX_ZOOM = 2  # text and cards grow with the frame up to this
CARD_WIDTH = 320  # px of the cards' column at zoom 1, about a card's width on the page
MIN_CARD_HEIGHT = 160  # px a card gets at least at zoom 1, however small the frame
FONT_SIZE = 13
LINE_HEIGHT = 18
PAD = 6
TIMELINE_HEIGHT = 48
MIN_TEXT_WIDTH = 160  # px at zoom 1 the header and readout get, however narrow the frame


def default_scale(frame_height: int) -> int:
    """The smallest whole factor making a frame ``frame_height`` px tall reach
    ``MIN_FRAME_HEIGHT`` (1 for frames that tall already).

    Examples:
        >>> default_scale(210), default_scale(64), default_scale(480)
        (2, 7, 1)
    """
    return max(1, math.ceil(MIN_FRAME_HEIGHT / max(1, frame_height)))


def first_shape(episode: ServedEpisode, start: int, stop: int) -> tuple[int, ...]:
    """The shape of the first frame there is from ``start`` to ``stop - 1``: it sets a
    video's size (a missing frame films as black)."""
    frames = episode.frames
    if frames is None:
        raise ValueError("the episode has no frames to film")
    shape = next((frames[t].shape for t in range(start, stop) if frames[t].size), None)
    if shape is None:
        raise ValueError(f"positions {start} to {stop - 1} have no frame to film")
    return tuple(shape)


def beside(
    described: list[dict[str, object]], panels: bool | str | Iterable[str], overlay: bool
) -> list[str]:
    """The panels whose cards go beside the frame: those named, or with ``True`` every
    panel not already drawn over it (with ``overlay``)."""
    names = [str(panel["name"]) for panel in described]
    if isinstance(panels, bool):
        drawn = {str(p["name"]) for p in described if overlay and p["overlay"]}
        return [name for name in names if name not in drawn] if panels else []
    wanted = [panels] if isinstance(panels, str) else list(panels)
    unknown = [name for name in wanted if name not in names]
    if unknown:
        known = ", ".join(map(repr, names)) or "none"
        raise KeyError(f"panels: the viewer has no panel {unknown[0]!r} (it has: {known})")
    return wanted


def zoom_of(scale: float) -> int:
    """How much text and cards grow with a frame enlarged by ``scale``: the nearest whole
    number from 1 to ``MAX_ZOOM``."""
    return min(MAX_ZOOM, max(1, round(scale)))


def scaled(frame: np.ndarray, scale: float) -> np.ndarray:
    """``frame`` enlarged (or shrunk) by ``scale``: by repeating pixels for a whole number,
    bilinearly otherwise."""
    if scale == int(scale):
        grow = int(scale)
        return frame if grow == 1 else frame.repeat(grow, 0).repeat(grow, 1)
    height, width = frame.shape[:2]
    size = (max(1, round(width * scale)), max(1, round(height * scale)))
    return np.asarray(Image.fromarray(frame).resize(size, Image.Resampling.BILINEAR))


def video_options(
    scale: float | None,
    frame_height: int,
    *,
    step_counter: bool,
    readout: bool,
    timeline: bool,
    overlay: bool,
) -> Options:
    """The options of a video whose tallest first frame is ``frame_height`` px, checked;
    ``scale=None`` takes :func:`default_scale`."""
    if scale is None:
        scale = default_scale(frame_height)
    elif not 0 < scale < math.inf:
        raise ValueError(f"scale must be a positive number (2: twice as large), got {scale!r}")
    return Options(float(scale), step_counter, readout, timeline, overlay)


def paint_frame(box: np.ndarray, frame: np.ndarray, scale: float) -> None:
    """Fills ``box`` with ``frame`` enlarged by ``scale`` at its top left, cut to the box,
    black where it does not reach. A whole ``scale`` repeats each pixel straight into the
    box (each row widened once, then written ``scale`` times): no enlarged copy."""
    if scale != int(scale):
        frame = scaled(frame, scale)[: box.shape[0], : box.shape[1]]
        rows, columns, grow = frame.shape[0], frame.shape[1], 1
    else:
        grow = int(scale)
        rows, columns = min(len(frame), len(box) // grow), min(frame.shape[1], box.shape[1] // grow)
        frame = frame[:rows, :columns].repeat(grow, 1) if grow > 1 else frame[:rows, :columns]
    box[: rows * grow, : columns * grow].reshape(rows, grow, columns * grow, 3)[:] = frame[:, None]
    box[rows * grow :] = 0
    box[: rows * grow, columns * grow :] = 0


@dataclass(frozen=True)
class Options:
    """What a video shows besides the frames (see ``EpisodeViewer.save_video``)."""

    scale: float
    step_counter: bool
    readout: bool
    timeline: bool
    overlay: bool

    @property
    def zoom(self) -> int:
        return zoom_of(self.scale)


class Column:
    """One episode filmed from ``start`` to ``stop - 1``: its layout, fixed at creation
    (the frame's size from the first frame there is, the readout's from its longest,
    each card's height from its card at ``start``), and :meth:`draw`, the column's
    picture at a position."""

    def __init__(
        self,
        episode: ServedEpisode,
        runner: PanelRunner,
        start: int,
        stop: int,
        beside: Sequence[str],
        options: Options,
        readout_kind: str = "step",
        title: str = "",
    ) -> None:
        shown = first_shape(episode, start, stop)
        self.episode, self.runner, self.options = episode, runner, options
        self.start, self.stop, self.title, self.readout_kind = start, stop, title, readout_kind
        described = runner.describe()
        self.overlays = [str(p["name"]) for p in described if options.overlay and p["overlay"]]
        self.beside = list(beside)
        zoom = options.zoom
        self.font = text_font(FONT_SIZE * zoom)
        self._glyphs = Glyphs(self.font)
        self.line = LINE_HEIGHT * zoom
        frame_height = round(shown[0] * options.scale)
        frame_width = round(shown[1] * options.scale)
        self.frame_box = (frame_height, frame_width)
        self.text_width = max(frame_width, MIN_TEXT_WIDTH * zoom) - 2 * PAD * zoom
        self.header_height = self._lines_height(max(self._header_counts(), default=0))
        # Wrapped once: the longest sets the space they get, and each is drawn as it is.
        self._readouts = {t: self._readout(t) for t in range(start, stop)}
        most = max(map(len, self._readouts.values()), default=0)
        self.readout_height = self._lines_height(most) if options.readout else 0
        self.timeline_height = TIMELINE_HEIGHT * zoom if options.timeline else 0
        left_height = self.header_height + frame_height + self.readout_height
        self.card_width = CARD_WIDTH * zoom if self.beside else 0
        needed = [needed_height(runner.card_now(n, start)[1], CARD_WIDTH) for n in self.beside]
        card_height = math.ceil(left_height / zoom / len(self.beside)) if self.beside else 0
        self.card_height = max(MIN_CARD_HEIGHT, card_height, *needed) if self.beside else 0
        texts = self._has_header or options.readout
        self.left_width = self.text_width + 2 * PAD * zoom if texts else frame_width
        self.width = self.left_width + self.card_width
        body = max(left_height, len(self.beside) * self.card_height * zoom)
        self.height = body + self.timeline_height
        self._strip = self._timeline_strip() if options.timeline else None
        text = (self._glyphs, self.line, PAD * zoom, (BACKGROUND, TEXT))
        self._header_box = TextBox((self.left_width, self.header_height), *text)
        self._readout_box = TextBox((self.left_width, self.readout_height), *text)

    @property
    def _has_header(self) -> bool:
        return bool(self.title) or self.options.step_counter

    def paint(self, picture: np.ndarray, t: int, ended: bool = False) -> None:
        """Paints the column at position ``t`` into ``picture``, its place in the video
        frame (``height`` x ``width`` x 3, the background where nothing is drawn).

        Every part that changes from one position to the next is painted whole, in
        numpy: the rest stays the background the picture started as, and the text is
        drawn again only when it changes (``ended``: the episode holds its last frame)."""
        zoom = self.options.zoom
        if self._has_header:
            picture[: self.header_height, : self.left_width] = self._header_box(
                self._header(t, ended)
            )
        frame_top = self.header_height
        frame_box = picture[frame_top : frame_top + self.frame_box[0], : self.frame_box[1]]
        frame = self.episode.frames[t]  # type: ignore[index]
        for name in self.overlays if frame.size else ():
            frame = overlay_on(frame, self.runner.card_now(name, t)[1])
        paint_frame(frame_box, frame, self.options.scale)
        if self.options.readout:
            top = frame_top + self.frame_box[0]
            box = picture[top : top + self.readout_height, : self.left_width]
            box[:] = self._readout_box(self._readouts[t])
        for i, name in enumerate(self.beside):
            card = card_image(name, self.runner.card_now(name, t)[1], CARD_WIDTH, self.card_height)
            if zoom > 1:
                card = card.resize(
                    (card.width * zoom, card.height * zoom), Image.Resampling.NEAREST
                )
            top = i * self.card_height * zoom
            picture[top : top + card.height, self.left_width :] = np.asarray(card)
        if self._strip is not None:
            picture[self.height - self.timeline_height :] = self._timeline(t)

    def _header(self, t: int, ended: bool) -> list[str]:
        """The title, then the step counter (``t = 12 / 200``), wrapped to the column."""
        parts = [self.title] if self.title else []
        if self.options.step_counter:
            counter = counter_line(self.episode, t, self.readout_kind)
            parts.append(f"{counter} · ended" if ended else counter)
        return [line for part in parts for line in self._wrapped(part)]

    def _wrapped(self, text: str) -> list[str]:
        """``text`` wrapped to the column; one line when it fits whole (measured from the
        glyphs: at every frame), unless it starts with a space, which wrapping drops."""
        if not text.startswith(" ") and self._glyphs.length(text) <= self.text_width:
            return [text]
        return wrapped(text, self.text_width, self.font)

    def _header_counts(self) -> list[int]:
        """How many lines the header takes at the range's first and last positions, ended
        or not (the counter's digits and the mark make it longest there)."""
        if not self._has_header:
            return []
        last = self.stop - 1
        return [len(self._header(t, e)) for t in (self.start, last) for e in (False, True)]

    def _readout(self, t: int) -> list[str]:
        """The readout's lines but the counter (the header has it), each wrapped."""
        if not self.options.readout:
            return []
        lines = readout_lines(self.episode, t, self.readout_kind)
        body = lines[1:] if self.options.step_counter else lines
        return [part for line in body for part in wrapped(line, self.text_width, self.font)]

    def _lines_height(self, count: int) -> int:
        return count * self.line + 2 * PAD * self.options.zoom if count else 0

    def _timeline_strip(self) -> Image.Image:
        """The strip without its cursor: each step's reward as a bar from a zero line and the
        return as a line, over the filmed range, each scaled to its own extent."""
        zoom = self.options.zoom
        strip = Image.new("RGB", (self.width, TIMELINE_HEIGHT * zoom), BACKGROUND)
        draw = ImageDraw.Draw(strip)
        draw.line((0, 0, self.width, 0), fill=BORDER)
        steps = self.episode.num_steps
        rewards = np.asarray(self.episode.rewards[self.start : min(self.stop, steps)], float)
        returns = np.asarray(self.episode.finite_returns()[self.start : self.stop], float)
        middle, half = strip.height / 2, strip.height / 2 - 2 * zoom
        peak = float(np.abs(rewards[np.isfinite(rewards)]).max(initial=0.0)) or 1.0
        for t, reward in enumerate(rewards, self.start):
            if np.isfinite(reward) and reward:
                x = self._x_of(t)
                draw.line((x, middle, x, middle - reward / peak * half), fill=BAR, width=zoom)
        low, high = float(returns.min(initial=0.0)), float(returns.max(initial=0.0))
        span = high - low or 1.0
        points = [
            (self._x_of(t), 2 * zoom + (high - value) / span * (strip.height - 4 * zoom))
            for t, value in enumerate(returns, self.start)
        ]
        if len(points) > 1:
            draw.line(points, fill=TEXT, width=zoom)
        font = text_font(FONT_SIZE * zoom - 2)
        draw.text((PAD * zoom, 2 * zoom), "reward (bars) · return (line)", MUTED, font)
        return strip

    def _x_of(self, t: int) -> float:
        span = max(1, self.stop - 1 - self.start)
        return PAD + (t - self.start) / span * (self.width - 1 - 2 * PAD)

    def _timeline(self, t: int) -> np.ndarray:
        """The timeline strip with its cursor at ``t``."""
        assert self._strip is not None
        strip = self._strip.copy()
        x = round(self._x_of(t))
        ImageDraw.Draw(strip).line((x, 1, x, strip.height - 1), HIGHLIGHT, width=self.options.zoom)
        return np.asarray(strip)
