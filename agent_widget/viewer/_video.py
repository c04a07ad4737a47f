"""A range of an episode's positions filmed as an MP4 or a GIF, for slides and papers.

Each video frame is the episode's frame with the overlay panels drawn over it and,
when asked, the panels' cards in a column to its right (drawn by
:mod:`agent_widget.panels._card_image`). The layout is fixed by the first frame, so
every video frame has one size: a frame of another size is placed at the top left,
cut or padded with black, never scaled. MP4 is H.264 through imageio's ffmpeg plugin
(the ffmpeg binary comes in the imageio-ffmpeg wheel); GIF goes through Pillow. The
file is written under a temporary name beside ``path`` and renamed into place, so a
failed or interrupted export never leaves a partial video behind.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple

import numpy as np
from PIL import Image
from tqdm.auto import tqdm

from agent_widget.format import atomic_path
from agent_widget.panels import Card, PanelRunner, card_image, overlay_on
from agent_widget.viewer._episode import ServedEpisode, positions

KINDS = (".mp4", ".gif")
CARD_WIDTH = 320  # px of the cards' column, about a card's width on the page
MIN_CARD_HEIGHT = 160  # px a card gets at least, however small the frame
# imageio's 0-10 scale; 8 is x264's CRF 10: sharp pixel-art edges stay crisp.
MP4_QUALITY = 8
MISSING_IMAGEIO = 'save_video needs imageio and imageio-ffmpeg: pip install "agent-widget[video]"'

Append = Callable[[np.ndarray], None]


def save_video(
    episode: ServedEpisode,
    runner: PanelRunner,
    path: str | os.PathLike[str],
    start: int = 0,
    stop: int | None = None,
    fps: float = 30.0,
    *,
    panels: bool | str | Iterable[str] = False,
    overlay: bool = True,
    progress: bool = True,
) -> Path:
    """Writes positions ``start .. stop - 1`` of ``episode`` to ``path``; see
    :meth:`agent_widget.viewer.EpisodeViewer.save_video`."""
    path = _checked_path(path)
    frames = episode.frames
    if frames is None:
        raise ValueError("the episode has no frames to film")
    start, stop = positions(start, stop, len(frames))
    if not 0 < fps < math.inf:
        raise ValueError(f"fps must be a positive number of frames per second, got {fps!r}")
    described = runner.describe()
    overlays = [panel["name"] for panel in described if overlay and panel["overlay"]]
    beside = _beside(described, panels, overlays)
    mp4 = path.suffix.lower() == ".mp4"
    # The first frame there is sets the size (a missing frame films as black).
    shown = next((frames[t].shape for t in range(start, stop) if frames[t].size), None)
    if shown is None:
        raise ValueError(f"positions {start} to {stop - 1} have no frame to film")
    layout = _Layout.of(shown, len(beside), even=mp4)
    with (
        atomic_path(path, path.suffix) as temporary,
        (_mp4 if mp4 else _gif)(temporary, fps) as append,
        tqdm(total=stop - start, disable=not progress, desc="video", unit="frame") as bar,
    ):
        for t in range(start, stop):
            frame = frames[t]
            for name in overlays if frame.size else ():
                frame = overlay_on(frame, runner.card_now(name, t)[1])
            append(layout.compose(frame, [(name, runner.card_now(name, t)[1]) for name in beside]))
            bar.update()
    return path


class _Layout(NamedTuple):
    """Where things go in a video frame: the frame at the top left, the cards to its right."""

    frame_height: int
    frame_width: int
    card_height: int
    height: int
    width: int

    @classmethod
    def of(cls, frame_size: tuple[int, ...], cards: int, even: bool) -> _Layout:
        """Cards share the frame's height, each at least ``MIN_CARD_HEIGHT`` px tall; ``even``
        rounds the size up to even numbers (H.264 in yuv420p needs them) with black."""
        frame_height, frame_width = frame_size[:2]
        card_height = max(MIN_CARD_HEIGHT, -(-frame_height // cards)) if cards else 0
        height = max(frame_height, cards * card_height)
        width = frame_width + (CARD_WIDTH if cards else 0)
        if even:
            height, width = height + height % 2, width + width % 2
        return cls(frame_height, frame_width, card_height, height, width)

    def compose(self, frame: np.ndarray, cards: list[tuple[str, Card]]) -> np.ndarray:
        """The video frame: ``frame`` (cut to the first frame's size) and the titled cards."""
        image = np.zeros((self.height, self.width, 3), np.uint8)
        cut = frame[: self.frame_height, : self.frame_width]
        image[: cut.shape[0], : cut.shape[1]] = cut
        left = self.frame_width
        for i, (name, card) in enumerate(cards):
            top = i * self.card_height
            drawn = card_image(name, card, CARD_WIDTH, self.card_height)
            image[top : top + self.card_height, left : left + CARD_WIDTH] = np.asarray(drawn)
        return image


def _checked_path(path: str | os.PathLike[str]) -> Path:
    """``path`` if a video can be written there, checked before any frame is drawn."""
    path = Path(path)
    if path.suffix.lower() not in KINDS:
        raise ValueError(f"save_video writes .mp4 or .gif files; {str(path)!r} is neither")
    if path.is_dir():
        raise IsADirectoryError(f"cannot write the video to {path}: it is a folder")
    if not path.parent.is_dir():
        raise FileNotFoundError(f"cannot write {path}: the folder {path.parent} does not exist")
    return path


def _beside(
    described: list[dict[str, object]], panels: bool | str | Iterable[str], overlays: list[str]
) -> list[str]:
    """The panels whose cards go beside the frame: those named, or with ``True`` every
    panel not already drawn over it."""
    names = [str(panel["name"]) for panel in described]
    if isinstance(panels, bool):
        return [name for name in names if name not in overlays] if panels else []
    wanted = [panels] if isinstance(panels, str) else list(panels)
    unknown = [name for name in wanted if name not in names]
    if unknown:
        known = ", ".join(map(repr, names)) or "none"
        raise KeyError(f"panels: the viewer has no panel {unknown[0]!r} (it has: {known})")
    return wanted


@contextmanager
def _mp4(path: Path, fps: float) -> Iterator[Append]:
    """H.264 in yuv420p, the MP4 that browsers, slides and players all show."""
    try:
        import imageio.v2 as imageio
        import imageio_ffmpeg  # noqa: F401  (the plugin's ffmpeg; without it, fail with the hint)
    except ImportError:
        raise ImportError(MISSING_IMAGEIO) from None
    writer = imageio.get_writer(
        path,
        format="FFMPEG",
        mode="I",
        fps=fps,
        codec="libx264",
        quality=MP4_QUALITY,
        pixelformat="yuv420p",
        macro_block_size=1,  # the layout pads to even sizes; never let imageio resize
        ffmpeg_log_level="error",
    )
    try:
        yield writer.append_data
    finally:
        writer.close()


@contextmanager
def _gif(path: Path, fps: float) -> Iterator[Append]:
    """A looping GIF. Pillow writes it at the end, so frames wait in memory as one byte a
    pixel (each with its own 256-colour palette). Delays are whole hundredths of a second
    and browsers slow down anything under 2, so a GIF plays at 100 / round(100 / fps) fps,
    50 at most; identical frames in a row become one, shown as long."""
    pictures: list[Image.Image] = []
    # Fast octree: median cut takes 100x longer on a noisy frame (300 ms at 600x400).
    octree = Image.Quantize.FASTOCTREE
    yield lambda frame: pictures.append(Image.fromarray(frame).quantize(256, octree))
    delay = 10 * max(2, round(100 / fps))  # ms
    first, *rest = pictures
    first.save(path, save_all=True, append_images=rest, duration=delay, loop=0)
