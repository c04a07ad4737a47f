"""Observations compared with their frames byte for byte, whatever their size and
layout: in place by memcmp, and by NumPy where it is not at hand or the arrays are
strided views."""

from __future__ import annotations

import numpy as np
import pytest

from agent_widget.recording import _recorded_observations
from agent_widget.recording._recorded_observations import _is_frame, _same_bytes


@pytest.fixture(params=["memcmp", "numpy"])
def compared_by(request, monkeypatch):
    if request.param == "numpy":
        monkeypatch.setattr(_recorded_observations, "_memcmp", None)
    return request.param


@pytest.mark.parametrize("shape", [(210, 160, 3), (480, 480, 3), (5, 7, 3)])
def test_a_screen_is_the_same_only_when_every_byte_is(shape, compared_by):
    frame = np.random.default_rng(0).integers(0, 256, shape, dtype=np.uint8)
    assert _same_bytes(frame, frame.copy())
    last = frame.copy()
    last[-1, -1, -1] ^= 1
    assert not _same_bytes(frame, last)
    first = frame.copy()
    first[0, 0, 0] ^= 0x80
    assert not _same_bytes(first, frame)


def test_read_only_and_empty_screens_are_compared_all_the_same(compared_by):
    frame = np.random.default_rng(1).integers(0, 256, (210, 160, 3), dtype=np.uint8)
    read_only = frame.copy()
    read_only.flags.writeable = False
    assert _same_bytes(read_only, frame)
    changed = frame.copy()
    changed[105, 80, 1] ^= 4
    assert not _same_bytes(read_only, changed)
    assert _same_bytes(np.zeros((0, 0, 3), np.uint8), np.zeros((0, 0, 3), np.uint8))


def test_strided_views_go_by_their_values(compared_by):
    flipped = np.ascontiguousarray(np.arange(300, dtype=np.uint8).reshape(10, 10, 3)[::-1])
    view = np.arange(300, dtype=np.uint8).reshape(10, 10, 3)[::-1]  # not contiguous
    assert _same_bytes(view, flipped)
    assert not _same_bytes(view, flipped[::-1].copy())


def test_a_float_frame_is_not_the_screen_whose_values_it_holds(compared_by):
    screen = np.ones((4, 4, 3), np.uint8)
    assert _is_frame(screen, screen.copy())
    assert not _is_frame(screen, screen.astype(np.float32))  # stored scaled: 255
