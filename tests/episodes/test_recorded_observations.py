"""Observations compared with their frames byte for byte, whatever their size: as bytes
below the heap's threshold, by NumPy above it, and strided views by their values."""

from __future__ import annotations

import numpy as np
import pytest

from agent_widget.episodes._recorded_observations import _AS_BYTES, _same_bytes


@pytest.mark.parametrize("shape", [(210, 160, 3), (480, 480, 3), (5, 7, 3)])
def test_a_screen_is_the_same_only_when_every_byte_is(shape):
    frame = np.random.default_rng(0).integers(0, 256, shape, dtype=np.uint8)
    assert _same_bytes(frame, frame.copy())
    last = frame.copy()
    last[-1, -1, -1] ^= 1
    assert not _same_bytes(frame, last)
    first = frame.copy()
    first[0, 0, 0] ^= 0x80
    assert not _same_bytes(first, frame)


def test_the_screens_above_fall_on_both_sides_and_strided_views_go_by_their_values():
    assert 210 * 160 * 3 <= _AS_BYTES < 480 * 480 * 3
    flipped = np.ascontiguousarray(np.arange(300, dtype=np.uint8).reshape(10, 10, 3)[::-1])
    view = np.arange(300, dtype=np.uint8).reshape(10, 10, 3)[::-1]  # not contiguous
    assert _same_bytes(view, flipped)
    assert not _same_bytes(view, flipped[::-1].copy())
