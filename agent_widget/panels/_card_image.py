"""Cards drawn as pixels in the kernel, as the page draws them: for videos of an episode.

The page draws a card in the browser (js/panels/card-view.ts); an export that has no
browser needs the same picture as an image. :func:`card_image` draws a card's title
and body in a box of a given size, one function per kind; :func:`overlay_on` draws
an overlay panel's map or image over the frame, scaled and blended as the page does.
Text is drawn with Pillow's own font, so nothing needs installing.
"""

from __future__ import annotations

import io
import zlib
from bisect import bisect_right
from collections.abc import Callable
from functools import cache

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from agent_widget.panels._cards import Card
from agent_widget.panels._numbers import common_decimals, format_fixed, format_number

# The page's light theme (js/viewer/widget.css) and bar colours (js/panels/bars.ts).
BACKGROUND = (255, 255, 255)
HEADER = (236, 239, 241)
BORDER = (207, 216, 220)
TEXT = (33, 33, 33)
MUTED = (117, 117, 117)
ERROR = (198, 40, 40)
BAR = (144, 164, 174)
HIGHLIGHT = (230, 81, 0)
OVERLAY_OPACITY = 0.6  # the page's default (DEFAULT_OPACITY in js/panels/card-view.ts)

TITLE_HEIGHT = 20
PAD = 6
FONT_SIZE = 11
ROW_HEIGHT = 18  # of a bar, as on the page
LABEL_WIDTH, VALUE_WIDTH = 0.3, 0.18  # of a bar's row, as on the page
# The greedy row's mark, a triangle left of the bars' area; labels end left of it
# (MARK_WIDTH, MARK_GAP and LABEL_GAP of js/panels/bars.ts).
MARK_WIDTH, MARK_GAP = 6, 3
LABEL_GAP = MARK_WIDTH + MARK_GAP + 3
COLOR_BAR_HEIGHT = 12

Font = ImageFont.FreeTypeFont | ImageFont.ImageFont


def card_image(title: str, card: Card, width: int, height: int) -> Image.Image:
    """The card in a ``width`` x ``height`` RGB box: ``title`` in a header, the body below.

    What does not fit is cut: a video's cards keep one size whatever a step returns.

    Examples:
        >>> card_image("notes", Card("text", {"text": "t = 3"}), 200, 60).size
        (200, 60)
    """
    image = Image.new("RGB", (width, height), BACKGROUND)
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, width - 1, TITLE_HEIGHT - 1), fill=HEADER)
    font = text_font(FONT_SIZE + 1)
    draw.text((PAD, TITLE_HEIGHT // 2), clip(title, width - 2 * PAD, font), TEXT, font, "lm")
    body_width, body_height = width - 2 * PAD, height - TITLE_HEIGHT - 2 * PAD
    if body_width > 0 and body_height > 0:
        image.paste(_BODIES[card.kind](card, body_width, body_height), (PAD, TITLE_HEIGHT + PAD))
    draw.rectangle((0, 0, width - 1, height - 1), outline=BORDER)
    return image


def overlay_on(frame: np.ndarray, card: Card, opacity: float = OVERLAY_OPACITY) -> np.ndarray:
    """``frame`` (HxWx3 uint8) with an overlay card's map or image drawn over it.

    Like the page: the picture is scaled to the frame in blocks when the frame is a
    whole multiple of it (a grid world's cells), bilinearly otherwise; a map's alpha
    is its colour's index in the table (low values let the frame show through), and
    the whole is blended at the page's default opacity. Other cards (an error, nothing
    for this step) leave the frame as it is, as on the page.
    """
    if card.kind not in ("heatmap", "image") or card.meta.get("overlay") is not True:
        return frame
    if card.kind == "heatmap":
        picture = Image.fromarray(_coloured_levels(card, overlay=True), "RGBA")
    else:
        picture = _png(card).convert("RGBA")
    height, width = frame.shape[:2]
    if picture.size != (width, height):
        smooth = width % picture.width != 0 or height % picture.height != 0
        resample = Image.Resampling.BILINEAR if smooth else Image.Resampling.NEAREST
        # Premultiplied, as a canvas scales: transparent cells must not bleed their colour.
        picture = picture.convert("RGBa").resize((width, height), resample).convert("RGBA")
    rgba = np.asarray(picture)
    alpha = rgba[..., 3:] * np.float32(opacity / 255)
    # frame + (colour - frame) * alpha, in place in float32: 6 ms a 600x400 frame, not 20.
    blended = rgba[..., :3].astype(np.float32)
    blended -= frame
    blended *= alpha
    blended += frame
    blended += 0.5
    return blended.astype(np.uint8)


def _bars(card: Card, width: int, height: int) -> Image.Image:
    """Horizontal bars from zero, the taken action's highlighted, the greedy one marked
    beside its label (a triangle, the label in bold) as on the page: never an outline
    across the bars' area, which read as a bar at the axis maximum."""
    image, draw = _canvas(width, height)
    values = np.frombuffer(card.buffers[0], "<f8")
    labels, highlight, greedy = (
        card.meta["labels"],
        card.meta.get("highlight"),
        card.meta.get("greedy"),
    )
    caption_font = text_font(FONT_SIZE)
    caption = _caption_lines(card, width)
    rows_height = height - ROW_HEIGHT * len(caption)
    row = max(1, min(ROW_HEIGHT, rows_height // len(values)))
    font = text_font(max(6, min(FONT_SIZE, row - 4)))
    left, right = round(width * LABEL_WIDTH), round(width * (1 - VALUE_WIDTH))
    finite = values[np.isfinite(values)]
    decimals = common_decimals(finite.tolist())  # one column's: the values line up
    low, high = card.meta.get("scale") or (min(0.0, *finite), max(0.0, *finite))
    span = high - low or 1.0

    def x_of(value: float) -> float:
        return min(right, max(left, left + (value - low) / span * (right - left)))

    zero = x_of(0.0)
    inset = 2 if row >= 8 else 0
    for i, (label, value) in enumerate(zip(labels, values, strict=True)):
        top, bottom, middle = i * row + inset, (i + 1) * row - 1 - inset, i * row + row / 2
        if np.isfinite(value):
            x0 = round(min(zero, x_of(value)))
            x1 = x0 + max(1, round(abs(x_of(value) - zero))) - 1
            draw.rectangle((x0, top, x1, bottom), fill=HIGHLIGHT if i == highlight else BAR)
        text = clip(label, left - LABEL_GAP - 2, font)
        if i == greedy:
            _greedy_mark(draw, left, middle, row)
            draw.text((left - LABEL_GAP - 1, middle), text, TEXT, font, "rm")  # bold: twice
        draw.text((left - LABEL_GAP, middle), text, TEXT, font, "rm")
        shown = "nan" if np.isnan(value) else format_fixed(float(value), decimals)  # as bars.ts
        value_text = clip(shown, width - right - 4, font)
        draw.text((right + 4, middle), value_text, TEXT, font, "lm")
    draw.line((round(zero), 0, round(zero), len(values) * row - 1), fill=TEXT)
    for i, line in enumerate(caption):  # wrapped: a caption is read whole, never cut
        draw.text((0, len(values) * row + ROW_HEIGHT * (i + 0.5)), line, MUTED, caption_font, "lm")
    return image


def _greedy_mark(draw: ImageDraw.ImageDraw, left: int, middle: float, row: int) -> None:
    """A triangle between the greedy row's label and the bars' area, pointing at its bar."""
    tip, half = left - MARK_GAP, min(MARK_WIDTH / 2 + 1, row / 2 - 1)
    draw.polygon(
        [(tip, middle), (tip - MARK_WIDTH, middle - half), (tip - MARK_WIDTH, middle + half)],
        fill=TEXT,
    )


def _caption_lines(card: Card, width: int) -> list[str]:
    """A card's caption wrapped to ``width`` (none without a caption)."""
    caption = card.meta.get("caption")
    return [] if caption is None else wrapped(str(caption), width, text_font(FONT_SIZE))


def needed_height(card: Card, width: int) -> int:
    """The height a card of ``width`` px needs to show all of itself at full size: for
    bars, every row and every line of the wrapped caption; other kinds fit any box.

    Examples:
        >>> card = Card("bars", {"labels": ["a", "b"], "caption": "greedy a"}, [b""])
        >>> needed_height(card, 200)
        86
    """
    if card.kind != "bars":
        return 0
    lines = len(card.meta["labels"]) + len(_caption_lines(card, width - 2 * PAD))
    return TITLE_HEIGHT + 2 * PAD + ROW_HEIGHT * lines


def _heatmap(card: Card, width: int, height: int) -> Image.Image:
    """The colour bar between the map's min and max, then the map with opaque cells."""
    image, draw = _canvas(width, height)
    font = text_font(FONT_SIZE)
    low, high = format_number(card.meta["min"]), format_number(card.meta["max"])
    low_width, high_width = draw.textlength(low, font), draw.textlength(high, font)
    strip_width = max(1, round(width - low_width - high_width - 8))
    lut = np.frombuffer(card.buffers[1], np.uint8).reshape(1, -1, 3)
    strip = Image.fromarray(lut).resize((strip_width, COLOR_BAR_HEIGHT), Image.Resampling.BILINEAR)
    image.paste(strip, (round(low_width) + 4, 0))
    draw.text((0, COLOR_BAR_HEIGHT / 2), low, TEXT, font, "lm")
    draw.text((width, COLOR_BAR_HEIGHT / 2), high, TEXT, font, "rm")
    map_top = COLOR_BAR_HEIGHT + PAD
    picture = Image.fromarray(_coloured_levels(card, overlay=False), "RGBA")
    _paste_fitted(
        image, picture, map_top, height - map_top - _picture_caption(card, draw, width, height)
    )
    return image


def _image(card: Card, width: int, height: int) -> Image.Image:
    image, draw = _canvas(width, height)
    _paste_fitted(
        image, _png(card).convert("RGBA"), 0, height - _picture_caption(card, draw, width, height)
    )
    return image


def _picture_caption(card: Card, draw: ImageDraw.ImageDraw, width: int, height: int) -> int:
    """A map's or an image's caption, wrapped, at the bottom of its box; the height it takes."""
    lines = _caption_lines(card, width)
    top = height - ROW_HEIGHT * len(lines)
    for i, line in enumerate(lines):
        draw.text((0, top + ROW_HEIGHT * (i + 0.5)), line, MUTED, text_font(FONT_SIZE), "lm")
    return height - top


def _text(card: Card, width: int, height: int) -> Image.Image:
    """Lines as written (the page shows them preformatted): cut at the edges, never wrapped."""
    image, draw = _canvas(width, height)
    _lines(draw, str(card.meta["text"]).splitlines(), 0, width, height, text_font(FONT_SIZE), TEXT)
    return image


def _empty(card: Card, width: int, height: int) -> Image.Image:
    image, draw = _canvas(width, height)
    draw.text(
        (0, 0),
        clip("nothing for this step", width, text_font(FONT_SIZE)),
        MUTED,
        text_font(FONT_SIZE),
    )
    return image


def _error(card: Card, width: int, height: int) -> Image.Image:
    """The exception's type and message, wrapped, then the traceback's lines."""
    image, draw = _canvas(width, height)
    font = text_font(FONT_SIZE)
    title = wrapped(f"{card.meta['error']}: {card.meta['message']}", width, font)
    top = _lines(draw, title, 0, width, height, font, ERROR)
    trace = str(card.meta.get("traceback") or "").splitlines()
    _lines(draw, trace, top + PAD, width, height, text_font(FONT_SIZE - 1), MUTED)
    return image


_BODIES: dict[str, Callable[[Card, int, int], Image.Image]] = {
    "bars": _bars,
    "heatmap": _heatmap,
    "image": _image,
    "text": _text,
    "empty": _empty,
    "error": _error,
}


def _coloured_levels(card: Card, overlay: bool) -> np.ndarray:
    """A map's RGBA pixels: level L takes colour round((L - 1) * 255 / 254) of its table,
    opaque in a card, as transparent as that index over the frame; level 0 is clear."""
    width, height = card.meta["width"], card.meta["height"]
    levels = np.frombuffer(zlib.decompress(card.buffers[0]), np.uint8).reshape(height, width)
    lut = np.frombuffer(card.buffers[1], np.uint8).reshape(256, 3)
    entries = np.floor(np.arange(-1, 255) * 255 / 254 + 0.5).astype(np.intp)  # JS rounding
    colours = np.zeros((256, 4), np.uint8)
    colours[1:, :3] = lut[entries[1:]]
    colours[1:, 3] = entries[1:] if overlay else 255
    return colours[levels]


def _png(card: Card) -> Image.Image:
    return Image.open(io.BytesIO(card.buffers[0]))


def _paste_fitted(image: Image.Image, picture: Image.Image, top: int, height: int) -> None:
    """``picture`` as large as fits below ``top``: small ones grown by a whole factor in
    crisp blocks (like the page's small images), large ones shrunk smoothly."""
    factor = min(image.width / picture.width, height / picture.height)
    if factor <= 0:
        return
    if factor >= 1:
        size = (picture.width * int(factor), picture.height * int(factor))
        picture = picture.resize(size, Image.Resampling.NEAREST)
    else:
        size = (max(1, int(picture.width * factor)), max(1, int(picture.height * factor)))
        picture = picture.resize(size, Image.Resampling.BILINEAR)
    image.paste(picture, (0, top), picture)


def _canvas(width: int, height: int) -> tuple[Image.Image, ImageDraw.ImageDraw]:
    image = Image.new("RGB", (width, height), BACKGROUND)
    return image, ImageDraw.Draw(image)


def _lines(
    draw: ImageDraw.ImageDraw,
    lines: list[str],
    top: int,
    width: int,
    height: int,
    font: Font,
    fill: tuple[int, int, int],
) -> int:
    """Draws ``lines`` from ``top`` down while they fit; returns where the next would go."""
    line_height = round(font.getbbox("Ag")[3]) + 4
    for line in lines:
        if top + line_height > height:
            break
        draw.text((0, top), clip(line, width, font), fill, font)
        top += line_height
    return top


def wrapped(text: str, width: float, font: Font) -> list[str]:
    """``text`` broken into lines no wider than ``width`` px: at spaces, and a word wider
    than a line alone between its characters, so that nothing is ever cut.

    Examples:
        >>> wrapped("greedy UP · taken DOWN", 80, text_font(11))
        ['greedy UP ·', 'taken DOWN']
    """
    lines = []
    for paragraph in text.splitlines() or [""]:
        line = ""
        for word in paragraph.split(" "):
            candidate = f"{line} {word}" if line else word
            if font.getlength(candidate) <= width:
                line = candidate
                continue
            if line:
                lines.append(line)
            while len(word) > 1 and font.getlength(word) > width:
                fits = bisect_right(
                    range(1, len(word)), width, key=lambda n: font.getlength(word[:n])
                )
                lines.append(word[: max(1, fits)])
                word = word[max(1, fits) :]
            line = word
        lines.append(line)
    return lines


def clip(text: str, width: float, font: Font) -> str:
    """``text``, cut with an ellipsis to fit ``width`` pixels."""
    if font.getlength(text) <= width:
        return text
    fits = bisect_right(range(len(text)), width, key=lambda n: font.getlength(text[:n] + "…"))
    return text[: max(0, fits - 1)] + "…"


@cache
def text_font(size: int) -> Font:
    """Pillow's own font at ``size`` px: nothing to install, the same on every machine."""
    return ImageFont.load_default(size=size)
