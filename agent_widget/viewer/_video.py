"""A range of an episode's positions filmed as an MP4 or a GIF, for slides and papers.

Each video frame is one :class:`~agent_widget.viewer._film.Column` per episode, side by
side (one for a viewer, one per rollout for a comparison): the step counter, the frame
enlarged by ``scale`` with the overlay panels drawn over it, optionally the readout and
a timeline strip, and, when asked, the panels' cards to its right (drawn by
:mod:`agent_widget.panels._card_image`). The layout is fixed by the first frame, so
every video frame has one size: a frame of another size is placed at the top left, cut
or padded with black. MP4 is H.264 through imageio's ffmpeg plugin (the ffmpeg binary
comes in the imageio-ffmpeg wheel); GIF goes through Pillow. The file is written under
a temporary name beside ``path`` and renamed into place, so a failed or interrupted
export never leaves a partial video behind.
"""

from __future__ import annotations

import errno
import math
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import numpy as np
from PIL import Image
from tqdm.auto import tqdm

from agent_widget.format import atomic_path
from agent_widget.panels import BACKGROUND
from agent_widget.viewer._film import PAD, Column

KINDS = (".mp4", ".gif")
# x264's tuning for flat colours, sharp edges and text, and its constant quality (lower:
# finer; imageio's default quality 5 is CRF 25, its 8 CRF 10): see :func:`mp4_crf`.
MP4_TUNE = "animation"
MP4_CRF, MP4_CRF_IN_BLOCKS = 24, 30
MISSING_IMAGEIO = 'save_video needs imageio and imageio-ffmpeg: pip install "agent-widget[video]"'

Append = Callable[[np.ndarray], None]
# What a video frame shows of each column: its position, and whether its episode has ended.
Shot = Sequence[tuple[int, bool]]


def checked_video(path: str | os.PathLike[str], fps: float) -> Path:
    """``path`` if a video can be written there at ``fps``, checked before anything is drawn."""
    path = _checked_path(path)
    if not 0 < fps < math.inf:
        raise ValueError(f"fps must be a positive number of frames per second, got {fps!r}")
    return path


def mp4_crf(scale: float) -> int:
    """x264's constant quality for frames enlarged by ``scale``: coarser for an even whole
    scale, whose blocks of repeated pixels line up with yuv420p's colour samples (one per
    2x2 pixels), so that each block keeps its colour at coarser steps.

    Measured (benchmarks/video.py, tests/viewer/test_video_quality.py): Pong at scale 1
    and a smooth 480x480 render decode at 40-41 dB PSNR at CRF 24; Pong at scale 2 at
    42-44 dB and at scale 4 at 42 dB at CRF 30, but at scale 3 at 39.9 dB. CRF 10
    (imageio's quality 8, before) took 2.9-3.8x the bytes of imageio's default MP4.

    Examples:
        >>> mp4_crf(1), mp4_crf(1.5), mp4_crf(2), mp4_crf(3)
        (24, 24, 30, 24)
    """
    return MP4_CRF_IN_BLOCKS if scale >= 2 and scale % 2 == 0 else MP4_CRF


def film(
    path: Path,
    fps: float,
    columns: Sequence[Column],
    shots: Iterable[Shot],
    total: int,
    progress: bool,
) -> Path:
    """Writes one video frame per shot: the columns side by side, each at its position."""
    gap = PAD * columns[0].options.zoom if len(columns) > 1 else 0
    width = sum(column.width for column in columns) + gap * (len(columns) - 1)
    height = max(column.height for column in columns)
    mp4 = path.suffix.lower() == ".mp4"
    if mp4:  # H.264 in yuv420p needs even sizes: pad with the background
        width, height = width + width % 2, height + height % 2
    with (
        atomic_path(path, path.suffix) as temporary,
        (
            _mp4(temporary, fps, mp4_crf(columns[0].options.scale)) if mp4 else _gif(temporary, fps)
        ) as append,
        tqdm(total=total, disable=not progress, desc="video", unit="frame") as bar,
    ):
        # One picture painted over and over: each column repaints what changes in its
        # place, the gaps and margins stay the background (writers copy what they get).
        picture = np.empty((height, width, 3), np.uint8)
        picture[:] = BACKGROUND
        places, left = [], 0
        for column in columns:
            places.append(picture[: column.height, left : left + column.width])
            left += column.width + gap
        for shot in shots:
            for column, place, (t, ended) in zip(columns, places, shot, strict=True):
                column.paint(place, t, ended)
            append(picture)
            bar.update()
    return path


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


@contextmanager
def _mp4(path: Path, fps: float, crf: int = MP4_CRF) -> Iterator[Append]:
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
        quality=None,  # imageio's 0-10 scale misses most CRFs: passed to x264 as they are
        output_params=["-crf", str(crf), "-tune", MP4_TUNE],
        pixelformat="yuv420p",
        macro_block_size=1,  # the layout pads to even sizes; never let imageio resize
        ffmpeg_log_level="error",
    )
    try:
        yield writer.append_data
    finally:
        writer.close()
    _check_whole_mp4(path)


def _check_whole_mp4(path: Path) -> None:
    """An ``OSError`` unless ``path``'s top-level boxes tile it and hold the movie's
    index (``moov``) and its data (``mdat``).

    imageio never reads ffmpeg's exit status: on a full disk ffmpeg says "Error writing
    trailer" and stops, leaving an MP4 without its index that no player opens, which
    would otherwise be renamed over the path (and over a good clip there)."""
    size, boxes, position = path.stat().st_size, set(), 0
    with path.open("rb") as file:
        while position < size:
            file.seek(position)
            head = file.read(16)
            length, kind = int.from_bytes(head[:4], "big"), head[4:8]
            if length == 1:  # a 64-bit size follows the type
                length = int.from_bytes(head[8:16], "big")
            elif length == 0:  # the box runs to the end of the file
                length = size - position
            if len(head) < 8 or length < 8 or position + length > size:
                break
            boxes.add(kind)
            position += length
    if position != size or not {b"moov", b"mdat"} <= boxes:
        raise OSError(
            errno.EIO,
            f"ffmpeg left the MP4 incomplete ({size:,} bytes, no whole movie index: its "
            "trailer was not written; a full disk?), so it was not saved",
            os.fspath(path),
        )


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
