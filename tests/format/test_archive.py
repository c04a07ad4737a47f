"""Reading a .rollout's zip structure: any byte of its directory changed gives the data or
a RolloutFileError naming the file, never another exception."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from agent_widget.episodes import Rollout, RolloutFileError, load
from tests.sample_frames import moving_frames

TAIL = 200  # the zip directory and its end record, and the last member's end


@pytest.mark.parametrize("bit", [0x01, 0x80])
def test_a_changed_byte_in_the_directory_is_the_data_or_a_rollout_file_error(tmp_path, bit):
    frames = moving_frames(20)
    path = Rollout.from_arrays(frames=frames, actions=np.zeros(19, int)).save(
        tmp_path / "a.rollout"
    )
    whole = path.read_bytes()
    damaged = tmp_path / "damaged.rollout"
    odd = {}
    for offset in range(len(whole) - TAIL, len(whole)):
        data = bytearray(whole)
        data[offset] ^= bit
        damaged.write_bytes(bytes(data))
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # "recovered members": a damaged directory
                rollout = load(damaged)
                np.testing.assert_array_equal(rollout.frames[19], frames[19])
        except Exception as error:  # any other kind, or one not naming the file, is odd
            if not (isinstance(error, RolloutFileError) and str(damaged) in str(error)):
                odd[offset - len(whole)] = f"{type(error).__name__}: {error}"
    assert odd == {}
