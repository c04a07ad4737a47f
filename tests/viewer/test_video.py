"""EpisodeViewer.save_video: real MP4 and GIF files, decoded again and compared with the frames."""

from __future__ import annotations

import errno
import itertools
import subprocess
import sys
from collections.abc import Iterator

import imageio.v3 as iio
import numpy as np
import pytest
from PIL import Image, ImageSequence

from agent_widget.episodes import Rollout
from agent_widget.panels._card_image import (
    BACKGROUND,
    BAR,
    ERROR,
    HIGHLIGHT,
    OVERLAY_OPACITY,
    card_image,
    overlay_on,
)
from agent_widget.panels._cards import Card, compute, error_card
from agent_widget.panels._heatmap import LUT
from agent_widget.panels._step import Step
from agent_widget.viewer import EpisodeViewer
from agent_widget.viewer._film import CARD_WIDTH, MIN_CARD_HEIGHT

pytestmark = pytest.mark.usefixtures("empty_panel_registry")

LENGTH, HEIGHT, WIDTH = 40, 16, 24
# Solid colours at least 85 apart in a channel: each frame is far from every other.
COLOURS = np.array(list(itertools.product((0, 85, 170, 255), repeat=3))[:LENGTH], np.uint8)
FRAMES = np.broadcast_to(COLOURS[:, None, None, :], (LENGTH, HEIGHT, WIDTH, 3)).copy()
# The frame alone at its own size: what the tests of frames, overlays and cards film.
BARE = {"scale": 1, "step_counter": False}


@pytest.fixture
def viewer() -> Iterator[EpisodeViewer]:
    viewer = EpisodeViewer(FRAMES, fps=8)
    yield viewer
    viewer.close()


def mp4_frames(path) -> np.ndarray:
    return iio.imread(path, plugin="FFMPEG", index=None)


def gif_frames(path) -> list[np.ndarray]:
    with Image.open(path) as gif:
        return [np.asarray(frame.convert("RGB")) for frame in ImageSequence.Iterator(gif)]


def gif_delays(path) -> list[int]:
    with Image.open(path) as gif:
        return [frame.info["duration"] for frame in ImageSequence.Iterator(gif)]


def nearest_positions(decoded) -> list[int]:
    """For each decoded frame, the position whose frame it is closest to (mean abs diff)."""
    distances = [
        np.abs(FRAMES.astype(int) - frame[:HEIGHT, :WIDTH].astype(int)).mean(axis=(1, 2, 3))
        for frame in decoded
    ]
    return [int(np.argmin(d)) for d in distances]


def assert_films(decoded, start: int, stop: int, tolerance: float) -> None:
    assert len(decoded) == stop - start
    assert nearest_positions(decoded) == list(range(start, stop))
    for t, frame in zip(range(start, stop), decoded, strict=True):
        assert np.abs(frame[:HEIGHT, :WIDTH].astype(int) - FRAMES[t]).mean() < tolerance


def film_diagonal(frames, path, **options):
    """``frames`` filmed with an overlay panel whose 4x4 map is high on its diagonal."""
    viewer = EpisodeViewer(frames)
    viewer.add_panel("diagonal", lambda step: np.eye(4), overlay=True)
    try:
        return viewer.save_video(path, progress=False, **{**BARE, **options})
    finally:
        viewer.close()


def near(pixels: np.ndarray, colour, within: int = 30) -> int:
    """How many of ``pixels`` are within ``within`` of ``colour`` in every channel."""
    return int((np.abs(pixels.astype(int) - colour) <= within).all(axis=-1).sum())


# The frames of a range, in order, at the right speed


def test_an_mp4_of_a_range_holds_exactly_those_positions_in_order(viewer, tmp_path):
    path = viewer.save_video(tmp_path / "clip.mp4", 5, 25, fps=12.5, progress=False, **BARE)
    assert path == tmp_path / "clip.mp4"
    assert_films(mp4_frames(path), 5, 25, tolerance=4)
    assert iio.immeta(path, plugin="FFMPEG")["fps"] == 12.5
    assert iio.immeta(path, plugin="FFMPEG")["codec"] == "h264"


def test_an_mp4_runs_at_the_viewers_fps_to_the_end_by_default(viewer, tmp_path):
    path = viewer.save_video(tmp_path / "clip.mp4", 30, progress=False, **BARE)
    assert_films(mp4_frames(path), 30, LENGTH, tolerance=4)
    assert iio.immeta(path, plugin="FFMPEG")["fps"] == 8


def test_a_gif_of_a_range_holds_exactly_those_positions_in_order_and_loops(viewer, tmp_path):
    path = viewer.save_video(tmp_path / "clip.gif", 5, 25, fps=10, progress=False, **BARE)
    assert_films(gif_frames(path), 5, 25, tolerance=2)
    assert gif_delays(path) == [100] * 20
    with Image.open(path) as gif:
        assert gif.info["loop"] == 0


def test_a_gif_delay_is_whole_hundredths_and_at_least_two(viewer, tmp_path):
    assert (
        gif_delays(viewer.save_video(tmp_path / "a.gif", 0, 2, progress=False, **BARE)) == [120] * 2
    )
    assert (
        gif_delays(viewer.save_video(tmp_path / "b.gif", 0, 2, 200, progress=False, **BARE))
        == [20] * 2
    )


def test_an_mp4_of_odd_sized_frames_is_padded_with_the_background_not_scaled(tmp_path):
    frames = np.full((3, 7, 9, 3), 200, np.uint8)
    path = EpisodeViewer(frames).save_video(tmp_path / "odd.mp4", progress=False, **BARE)
    decoded = mp4_frames(path)
    assert decoded.shape == (3, 8, 10, 3)
    assert np.abs(decoded[:, 1:6, 1:8].astype(int) - 200).max() < 8
    assert decoded[:, 7, :].mean() > 240  # white, as the cards' background
    assert decoded[:, :, 9].mean() > 240


def test_a_missing_frame_films_as_black_the_size_of_the_first_frame_there_is(tmp_path):
    frames = [None, *FRAMES[1:4]]  # render() gave nothing at step 0
    path = film_diagonal(frames, tmp_path / "missing.gif", fps=10)
    decoded = gif_frames(path)
    assert [frame.shape for frame in decoded] == [(HEIGHT, WIDTH, 3)] * 4
    assert decoded[0].max() == 0  # black, and no overlay drawn over nothing
    assert np.abs(decoded[1].astype(int) - FRAMES[1]).max() > 0  # the overlay is on the others
    with pytest.raises(ValueError, match=r"positions 0 to 0 have no frame to film"):
        EpisodeViewer([None, *FRAMES[1:3]]).save_video(tmp_path / "none.gif", 0, 1)


# Overlays and cards


def test_an_overlay_map_changes_exactly_the_pixels_where_the_map_is_high(tmp_path):
    frames = np.full((2, 16, 16, 3), 100, np.uint8)
    frames[1] = 50
    decoded = gif_frames(film_diagonal(frames, tmp_path / "o.gif"))
    high = np.kron(np.eye(4), np.ones((4, 4))).astype(bool)  # each cell a 4x4 block
    for frame, original in zip(decoded, frames, strict=True):
        assert ((frame != original).any(axis=-1) == high).all()
        blend = np.floor(original[0, 0] * (1 - OVERLAY_OPACITY) + LUT[-1] * OVERLAY_OPACITY + 0.5)
        assert (frame[high] == blend).all()


def test_overlay_false_films_the_bare_frames(tmp_path):
    frames = np.full((2, 16, 16, 3), 100, np.uint8)
    decoded = gif_frames(film_diagonal(frames, tmp_path / "o.gif", overlay=False))
    assert (np.array(decoded) == frames).all()


def test_panels_true_puts_the_cards_right_of_the_frame_and_an_error_does_not_stop_it(
    viewer, tmp_path
):
    viewer.add_panel("Q", lambda step: np.array([1.0, 2.0, -3.0]))
    viewer.add_panel("broken", lambda step: 1 / 0)
    path = viewer.save_video(tmp_path / "cards.mp4", 0, 6, panels=True, progress=False, **BARE)
    decoded = mp4_frames(path)
    assert decoded.shape == (6, 2 * MIN_CARD_HEIGHT, WIDTH + CARD_WIDTH, 3)
    assert_films(decoded, 0, 6, tolerance=4)
    bars = decoded[:, :MIN_CARD_HEIGHT, WIDTH:]
    broken = decoded[:, MIN_CARD_HEIGHT:, WIDTH:]
    for t in range(6):
        assert near(bars[t], BAR) > 300
        # Thin red text keeps its hue but loses some saturation to yuv420p at CRF 24.
        assert near(broken[t], ERROR, within=60) > 30
        assert near(bars[t], ERROR, within=40) == 0
        assert near(broken[t], BAR, within=10) == 0


def test_a_stuck_panel_films_as_an_error_card_and_the_video_is_written(viewer, tmp_path, stuck):
    viewer.add_panel("stuck", stuck, timeout=0.2)  # deliberate: the limit passing is under test
    viewer.add_panel("Q", lambda step: np.array([1.0, 2.0, -3.0]))
    decoded = mp4_frames(
        viewer.save_video(tmp_path / "s.mp4", 0, 4, panels=True, progress=False, **BARE)
    )
    assert_films(decoded, 0, 4, tolerance=4)
    for t in range(4):
        assert near(decoded[t, :MIN_CARD_HEIGHT, WIDTH:], ERROR, within=40) > 30
        assert near(decoded[t, MIN_CARD_HEIGHT:, WIDTH:], BAR) > 300
    assert stuck.calls == [0]


def test_panels_can_be_named_and_overlay_panels_are_not_repeated_beside(viewer, tmp_path):
    viewer.add_panel("Q", lambda step: np.array([1.0, 2.0]))
    viewer.add_panel("notes", lambda step: f"t = {step.t}")
    viewer.add_panel("map", lambda step: np.eye(4), overlay=True)
    every = gif_frames(
        viewer.save_video(tmp_path / "all.gif", 0, 1, panels=True, progress=False, **BARE)
    )
    named = gif_frames(
        viewer.save_video(tmp_path / "q.gif", 0, 1, panels="Q", progress=False, **BARE)
    )
    assert every[0].shape == (2 * MIN_CARD_HEIGHT, WIDTH + CARD_WIDTH, 3)  # Q and notes
    assert named[0].shape == (MIN_CARD_HEIGHT, WIDTH + CARD_WIDTH, 3)
    with pytest.raises(KeyError, match=r"no panel 'nope'.*'Q', 'notes', 'map'"):
        viewer.save_video(tmp_path / "x.gif", panels=["Q", "nope"], progress=False, **BARE)
    assert not (tmp_path / "x.gif").exists()


def test_an_overlay_is_drawn_in_blocks_on_a_multiple_of_its_size_and_smoothly_otherwise():
    step = Step(Rollout.from_arrays(frames=np.zeros((1, 8, 8, 3), np.uint8)), 0)
    card = compute(lambda step: np.eye(2), step, overlay=True)
    blocks = overlay_on(np.zeros((8, 8, 3), np.uint8), card)
    assert len(np.unique(blocks.reshape(-1, 3), axis=0)) == 2
    assert (blocks[:4, :4] == blocks[0, 0]).all()
    assert (blocks[4:, :4] == 0).all()
    smooth = overlay_on(np.zeros((7, 7, 3), np.uint8), card)
    assert len(np.unique(smooth.reshape(-1, 3), axis=0)) > 2


def test_cards_that_are_not_pictures_leave_the_frame_alone():
    frame = np.full((4, 4, 3), 9, np.uint8)
    assert overlay_on(frame, Card("empty")) is frame
    assert overlay_on(frame, error_card(ValueError("no"), "")) is frame


@pytest.mark.parametrize("size", [(CARD_WIDTH, MIN_CARD_HEIGHT), (40, 30), (12, 8)])
def test_a_card_of_every_kind_fills_exactly_its_box(size):
    step = Step(Rollout.from_arrays(frames=np.zeros((2, 8, 8, 3), np.uint8), actions=[1]), 0)
    results = [
        np.linspace(-1, 1, 100),
        {"a": 1.5, "b": float("nan")},
        np.arange(12.0).reshape(3, 4),
        np.full((5, 60, 3), 200, np.uint8),
        "line\n" * 50,
        None,
    ]
    cards = [compute(lambda step, r=result: r, step) for result in results]
    cards.append(error_card(ValueError("x " * 500), "  File 'a.py', line 1\n" * 30))
    for card in cards:
        image = np.asarray(card_image("a long title " * 5, card, *size))
        assert image.shape == (size[1], size[0], 3)
        assert near(image, BACKGROUND, within=0) < image.shape[0] * image.shape[1]


def test_a_bars_card_highlights_the_taken_action():
    step = Step(Rollout.from_arrays(frames=np.zeros((2, 8, 8, 3), np.uint8), actions=[1]), 0)
    card = compute(lambda step: np.array([1.0, 2.0, 3.0]), step)
    image = np.asarray(card_image("Q", card, CARD_WIDTH, MIN_CARD_HEIGHT))
    assert near(image, HIGHLIGHT, within=0) > 100
    assert near(image, BAR, within=0) > 100


# Bad input: a clear error, and no file


@pytest.mark.parametrize("name", ["clip.avi", "clip", "clip.mp4.tmp"])
def test_only_mp4_and_gif_are_written(viewer, tmp_path, name):
    with pytest.raises(ValueError, match=r"\.mp4 or \.gif"):
        viewer.save_video(tmp_path / name, progress=False)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(("start", "stop"), [(5, 5), (6, 5), (-1, 5), (0, 41), (40, None)])
def test_a_range_outside_the_episode_or_empty_is_refused(viewer, tmp_path, start, stop):
    with pytest.raises(ValueError, match="the episode has 40 positions"):
        viewer.save_video(tmp_path / "clip.gif", start, stop, progress=False)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("fps", [0, -1, float("nan"), float("inf")])
def test_a_speed_that_is_not_positive_is_refused(viewer, tmp_path, fps):
    with pytest.raises(ValueError, match="fps"):
        viewer.save_video(tmp_path / "clip.gif", fps=fps, progress=False)


def test_a_missing_folder_or_a_folder_as_path_is_a_clear_error(viewer, tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        viewer.save_video(tmp_path / "missing" / "clip.mp4", progress=False)
    (tmp_path / "clip.mp4").mkdir()
    with pytest.raises(IsADirectoryError, match="folder"):
        viewer.save_video(tmp_path / "clip.mp4", progress=False)
    assert [p.name for p in tmp_path.iterdir()] == ["clip.mp4"]


@pytest.mark.parametrize("name", ["clip.mp4", "clip.gif"])
def test_a_failure_midway_leaves_no_file_and_keeps_the_old_one(viewer, tmp_path, name):
    path = tmp_path / name
    path.write_bytes(b"old")
    frames = viewer._episode.frames

    class Failing:
        def __len__(self):
            return len(frames)

        def __getitem__(self, t):
            if t == 10:
                raise OSError("disk on fire")
            return frames[t]

    viewer._episode.frames = Failing()
    with pytest.raises(OSError, match="disk on fire"):
        viewer.save_video(path, progress=False)
    assert [p.name for p in tmp_path.iterdir()] == [name]
    assert path.read_bytes() == b"old"


def test_an_episode_without_frames_cannot_be_filmed(tmp_path):
    rollout = Rollout.from_arrays(observations=np.zeros((5, 2)), actions=[0] * 4)
    with pytest.raises(ValueError, match="no frames to film"):
        EpisodeViewer(rollout).save_video(tmp_path / "clip.mp4", progress=False)


def test_mp4_without_imageio_names_the_extra_and_gif_still_works(viewer, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "imageio.v2", None)
    with pytest.raises(ImportError, match=r"agent-widget\[video\]"):
        viewer.save_video(tmp_path / "clip.mp4", progress=False)
    assert list(tmp_path.iterdir()) == []
    assert len(gif_frames(viewer.save_video(tmp_path / "clip.gif", 0, 3, progress=False))) == 3


FULL_DISK = """
import resource, sys
import numpy as np
from agent_widget import EpisodeViewer
path, limit = sys.argv[1], int(sys.argv[2])
rng = np.random.default_rng(0)  # noise: H.264 cannot make it small
frames = rng.integers(0, 256, (60, 64, 64, 3), dtype=np.uint8)
EpisodeViewer(frames[:2]).save_video(path, progress=False)
resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))  # writes past it: EFBIG
try:
    EpisodeViewer(frames).save_video(path, progress=False)
except OSError as error:
    print(error.filename, error.errno, error.strerror, flush=True)
"""


def test_a_clip_cut_short_by_a_full_disk_is_an_error_and_the_old_clip_stays(tmp_path):
    path = tmp_path / "clip.mp4"
    done = subprocess.run(
        [sys.executable, "-c", FULL_DISK, str(path), str(200_000)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    filename, number, message = done.stdout.strip().split(" ", 2)
    assert (filename, int(number)) == (str(path), errno.EIO)
    assert "ffmpeg left the MP4 incomplete" in message
    assert len(mp4_frames(path)) == 2  # the clip written before, whole
    assert [p.name for p in tmp_path.iterdir()] == ["clip.mp4"]
