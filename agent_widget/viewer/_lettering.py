"""Text in a video's frames, set from glyphs drawn once: the step counter changes at every
frame, and having Pillow draw its line anew (FreeType rendering every glyph) cost 100 µs
a frame, a fifth of what encoding a Pong frame costs.

Pillow's default font lays glyphs out whole pixels apart (hinted advances, no kerning),
so a line set glyph by glyph at its advances, overlapping coverage added as Pillow adds
it, is the line Pillow draws (where a glyph overlaps its neighbour, within a few levels).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from PIL import Image, ImageDraw, ImageFont

Font = ImageFont.ImageFont | ImageFont.FreeTypeFont
Colour = tuple[int, int, int]


class Glyphs:
    """A font's glyphs, each drawn once: their coverage and advances, and the length of
    a line from them (Pillow's ``getlength`` costs 50 µs a call, every frame)."""

    def __init__(self, font: Font) -> None:
        self.font = font
        self._pad = max(1, round(font.getbbox("Mg|")[3]))  # room around any glyph
        self._drawn: dict[str, tuple[np.ndarray, int, int, int]] = {}

    def __getitem__(self, character: str) -> tuple[np.ndarray, int, int, int]:
        """``character``'s coverage cut to its ink, where that starts from the pen (left,
        up), and the pen's advance."""
        if character not in self._drawn:
            pad, advance = self._pad, round(self.font.getlength(character))
            image = Image.new("L", (2 * pad + advance, 3 * pad), 0)
            ImageDraw.Draw(image).text((pad, pad), character, 255, self.font)
            box = image.getbbox() or (pad, pad, pad, pad)
            ink = np.asarray(image.crop(box), np.uint16)
            self._drawn[character] = (ink, box[0] - pad, box[1] - pad, advance)
        return self._drawn[character]

    def length(self, text: str) -> int:
        """``text``'s width in px, as Pillow's ``getlength`` gives it."""
        return sum(self[character][3] for character in text)


class TextBox:
    """Lines of text in ``colours`` (background, text), ``size`` px, one every ``line``
    px from ``margin`` in: set again only when they change (most text in a video does
    not from one frame to the next: a held frame, an episode that ended)."""

    def __init__(
        self,
        size: tuple[int, int],
        glyphs: Glyphs,
        line: int,
        margin: int,
        colours: tuple[Colour, Colour],
    ) -> None:
        self.size, self.glyphs, self.line, self.margin = size, glyphs, line, margin
        background, colour = (np.asarray(c, np.int32) for c in colours)
        # Pillow's blend of the colour over the background at each coverage, rounded as it is.
        level = np.arange(256, dtype=np.int32)[:, None]
        mixed = background * (255 - level) + colour * level + 128
        self._shades = (((mixed >> 8) + mixed) >> 8).astype(np.uint8)
        self._lines: Sequence[str] | None = None
        self._pixels = np.take(self._shades, np.zeros(size[::-1], np.uint8), axis=0)

    def __call__(self, lines: Sequence[str]) -> np.ndarray:
        """The box with ``lines`` in it (the same array until they change)."""
        if lines != self._lines:
            width, height = self.size
            coverage = np.zeros((height, width), np.uint16)  # room to add overlaps
            for i, text in enumerate(lines):
                self._set(coverage, text, self.margin + i * self.line)
            levels = np.minimum(coverage, 255).astype(np.uint8)
            self._lines, self._pixels = lines, np.take(self._shades, levels, axis=0)
        return self._pixels

    def _set(self, coverage: np.ndarray, text: str, top: int) -> None:
        """``text``'s glyphs added into ``coverage`` from (``margin``, ``top``), cut to it."""
        x = self.margin
        for character in text:
            glyph, left, upper, advance = self.glyphs[character]
            if glyph.size:
                y, x0 = top + upper, x + left
                area = coverage[max(0, y) : y + len(glyph), max(0, x0) : x0 + glyph.shape[1]]
                area += glyph[max(0, -y) :, max(0, -x0) :][: area.shape[0], : area.shape[1]]
            x += advance
