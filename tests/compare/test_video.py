"""CompareViewer.save_video: the rollouts side by side in real GIF files, each column's
frame at the position the comparison's alignment gives it, decoded and compared."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from agent_widget.compare import CompareViewer
from agent_widget.episodes import Rollout
from tests.viewer.test_video import gif_frames

pytestmark = pytest.mark.usefixtures("empty_panel_registry")

HEIGHT, WIDTH = 20, 200  # wider than the header's text: a column is its frame's width
GAP = 6  # between columns at zoom 1


def coloured(n: int, offset: int, clock: list[int] | None = None) -> tuple[Rollout, np.ndarray]:
    """A rollout of ``n`` solid frames, each its own colour, and those frames."""
    colours = (np.arange(n)[:, None] * [40, 25, 10] + offset) % 256
    frames = np.broadcast_to(colours[:, None, None, :], (n, HEIGHT, WIDTH, 3)).astype(np.uint8)
    infos = None if clock is None else [{"clock": c} for c in clock]
    rollout = Rollout.from_arrays(frames=frames, actions=[0] * (n - 1), infos=infos)
    return rollout, frames


def columns(decoded: list[np.ndarray]) -> tuple[list[np.ndarray], list[np.ndarray], int]:
    """Each video frame's two frame boxes (the frames are at the bottom, below the
    headers) and the headers' height."""
    header = decoded[0].shape[0] - HEIGHT
    a = [frame[header:, :WIDTH] for frame in decoded]
    b = [frame[header:, WIDTH + GAP : 2 * WIDTH + GAP] for frame in decoded]
    return a, b, header


def differ(x: np.ndarray, y: np.ndarray) -> bool:
    """Whether two pictures of text say different things: many pixels far apart (each GIF
    frame's own palette moves the text's grey edges a little)."""
    return int((np.abs(x.astype(int) - y).max(axis=-1) > 100).sum()) > 10


def test_by_step_each_column_shows_its_step_and_an_ended_one_holds_its_last(tmp_path):
    (a, frames_a), (b, frames_b) = coloured(6, 0), coloured(4, 128)
    compare = CompareViewer({"long": a, "short": b})
    path = compare.save_video(tmp_path / "race.gif", scale=1, progress=False)
    decoded = gif_frames(path)
    assert len(decoded) == 6
    assert decoded[0].shape[1] == 2 * WIDTH + GAP
    shown_a, shown_b, header = columns(decoded)
    for p in range(6):
        assert (shown_a[p] == frames_a[p]).all()
        assert (shown_b[p] == frames_b[min(p, 3)]).all()
    headers = [frame[:header, WIDTH + GAP :] for frame in decoded]
    assert differ(headers[2], headers[3])  # t = 2, then t = 3
    assert differ(headers[3], headers[4])  # t = 3, then t = 3 · ended
    assert not differ(headers[4], headers[5])  # ended, still t = 3
    long_headers = [frame[:header, :WIDTH] for frame in decoded]
    assert all(differ(h1, h2) for h1, h2 in itertools.pairwise(long_headers))
    compare.close()


def test_by_a_key_the_columns_meet_where_their_keys_do(tmp_path):
    (a, frames_a), (b, frames_b) = (
        coloured(6, 0, [0, 1, 2, 3, 4, 5]),
        coloured(4, 128, [0, 2, 4, 6]),
    )
    compare = CompareViewer({"fast": a, "slow": b}, align="clock")
    decoded = gif_frames(compare.save_video(tmp_path / "k.gif", scale=1, progress=False))
    shown_a, shown_b, _ = columns(decoded)
    # Shared keys 0..6: each shows its last position whose key is at most the shared one.
    for p, (t_a, t_b) in enumerate(zip([0, 1, 2, 3, 4, 5, 5], [0, 0, 1, 1, 2, 2, 3], strict=True)):
        assert (shown_a[p] == frames_a[t_a]).all()
        assert (shown_b[p] == frames_b[t_b]).all()
    compare.close()


def test_a_range_of_shared_steps_and_one_scale_for_every_column(tmp_path):
    (a, frames_a), (b, _) = coloured(6, 0), coloured(4, 128)
    compare = CompareViewer({"a": a, "b": b})
    decoded = gif_frames(compare.save_video(tmp_path / "r.gif", 2, 5, scale=2, progress=False))
    assert len(decoded) == 3
    header = decoded[0].shape[0] - 2 * HEIGHT
    for p, frame in zip(range(2, 5), decoded, strict=True):
        assert (frame[header:, : 2 * WIDTH] == frames_a[p].repeat(2, 0).repeat(2, 1)).all()
    compare.close()


def test_the_default_scale_grows_the_tallest_frame_to_400_px(tmp_path):
    small = Rollout.from_arrays(frames=np.full((2, 20, 10, 3), 90, np.uint8), actions=[0])
    tall = Rollout.from_arrays(frames=np.full((2, 40, 10, 3), 200, np.uint8), actions=[0])
    compare = CompareViewer({"small": small, "tall": tall})
    decoded = gif_frames(compare.save_video(tmp_path / "d.gif", step_counter=False, progress=False))
    tall_column = decoded[0][:, -320:]  # the text's width: the frames are narrower
    assert (np.abs(tall_column[-400:, :100].astype(int) - 200) <= 2).all()  # 40 px x 10
    compare.close()


def test_panels_are_those_of_any_rollout_and_bad_input_writes_nothing(tmp_path):
    (a, _), (b, _) = coloured(3, 0), coloured(3, 128)
    compare = CompareViewer({"a": a, "b": b})
    compare.add_panel("Q", lambda step: np.array([1.0, 2.0]))
    with_cards = gif_frames(
        compare.save_video(tmp_path / "q.gif", scale=1, panels="Q", progress=False)
    )
    assert with_cards[0].shape[1] == 2 * (WIDTH + 320) + GAP
    with pytest.raises(KeyError, match=r"no rollout has a panel 'nope'.*'Q'"):
        compare.save_video(tmp_path / "x.gif", panels=["nope"], progress=False)
    with pytest.raises(ValueError, match=r"\.mp4 or \.gif"):
        compare.save_video(tmp_path / "x.avi", progress=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["q.gif"]
    compare.close()
