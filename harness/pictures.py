"""Reading pictures a test is shown (a PNG in an output, an <img> drawn by the browser)
and finding a frame in them, pixel for pixel."""

from __future__ import annotations

import base64
import io

import numpy as np
from PIL import Image
from playwright.sync_api import Locator


def png_pixels(data: bytes | str) -> np.ndarray:
    """The RGB pixels (HxWx3 uint8) of a PNG, given as bytes or as base64 text."""
    raw = base64.b64decode(data) if isinstance(data, str) else data
    with Image.open(io.BytesIO(raw)) as image:
        assert image.format == "PNG", image.format
        return np.asarray(image.convert("RGB"))


def shown_pixels(img: Locator, timeout: float = 30) -> np.ndarray:
    """The RGB pixels an ``<img>`` shows, as the browser decoded them: drawn at its own
    size on a canvas and read back (losslessly, as PNG)."""
    img.wait_for(timeout=timeout * 1000)
    loaded = "(img) => img.complete && img.naturalWidth > 0"
    img.page.wait_for_function(loaded, arg=img.element_handle(), timeout=timeout * 1000)
    url = img.evaluate(
        """(img) => {
            const canvas = document.createElement("canvas");
            canvas.width = img.naturalWidth;
            canvas.height = img.naturalHeight;
            canvas.getContext("2d").drawImage(img, 0, 0);
            return canvas.toDataURL("image/png");
        }"""
    )
    return png_pixels(url.split(",", 1)[1])


def holds(picture: np.ndarray, block: np.ndarray) -> bool:
    """Whether ``block`` (HxWx3) appears in ``picture`` exactly, somewhere.

    Candidates are the places where the block's first row starts; each is compared
    whole. Fine for the few hundred pixels a side the tests draw.
    """
    height, width = block.shape[:2]
    if picture.shape[0] < height or picture.shape[1] < width:
        return False
    rows = np.lib.stride_tricks.sliding_window_view(picture, (1, width, 3))[:, :, 0, 0]
    starts = np.argwhere((rows == block[0]).all(axis=(-1, -2)))
    return any(
        np.array_equal(picture[y : y + height, x : x + width], block)
        for y, x in starts
        if y + height <= picture.shape[0]
    )
