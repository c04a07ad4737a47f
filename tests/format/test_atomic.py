"""Atomic writes and the errors they raise (agent_widget.format._atomic)."""

from __future__ import annotations

import errno
import subprocess
import sys

import pytest

from agent_widget.format._atomic import MAX_NAME_BYTES, atomic_write, checked_name, named


def test_a_name_of_the_most_bytes_a_file_system_takes_is_taken_and_one_more_is_not(tmp_path):
    longest = "é" * ((MAX_NAME_BYTES - 1) // 2) + "x"  # 255 bytes in UTF-8
    assert len(longest.encode()) == MAX_NAME_BYTES
    with atomic_write(tmp_path / checked_name(longest)) as file:
        file.write(b"kept")
    assert (tmp_path / longest).read_bytes() == b"kept"
    with pytest.raises(ValueError, match=r"is 256 bytes in UTF-8; file systems take at most 255"):
        checked_name(longest + "x")


@pytest.mark.parametrize(
    ("raised", "kind"),
    [
        (OSError(errno.ENOSPC, "No space left on device"), OSError),
        (OSError(errno.EFBIG, "File too large"), OSError),
        (PermissionError(errno.EACCES, "Permission denied"), PermissionError),
    ],
)
def test_an_error_that_names_no_file_is_given_the_one_written(tmp_path, raised, kind):
    with pytest.raises(kind) as caught, named(tmp_path / "run.json"):
        raise raised
    assert caught.value.filename == str(tmp_path / "run.json")
    assert caught.value.errno == raised.errno
    assert str(tmp_path / "run.json") in str(caught.value)


def test_an_error_that_names_its_file_keeps_it(tmp_path):
    with pytest.raises(FileNotFoundError) as caught, named(tmp_path / "other"):
        open(tmp_path / "missing")  # noqa: SIM115
    assert caught.value.filename == str(tmp_path / "missing")


def test_a_failed_atomic_write_leaves_the_file_there_and_no_temporary(tmp_path):
    path = tmp_path / "run.json"
    path.write_bytes(b"before")

    def fill() -> None:
        with atomic_write(path) as file:
            file.write(b"half")
            raise OSError(errno.ENOSPC, "No space left on device")

    with pytest.raises(OSError, match="No space left") as caught:
        fill()
    assert caught.value.filename == str(path)
    assert path.read_bytes() == b"before"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.json"]


READ_ONLY = """
import sys
import gymnasium as gym
import numpy as np
from agent_widget import EpisodeViewer, Rollout, RunLibrary, record
from agent_widget.gridworld._snapshots import Snapshots
folder = sys.argv[1]
episode = Rollout.from_arrays(frames=np.zeros((3, 8, 8, 3), np.uint8), actions=[0, 1])
snapshots = Snapshots()
snapshots.append(np.zeros((4, 2)))
for write in (
    lambda: episode.save(f"{folder}/saved.rollout"),
    lambda: record(gym.make("CartPole-v1"), lambda obs: 0, 0, path=f"{folder}/recorded.rollout"),
    lambda: RunLibrary(f"{folder}/library").add(episode, run="r", env_id="e", algorithm="a"),
    lambda: EpisodeViewer(episode).to_html(f"{folder}/page.html"),
    lambda: EpisodeViewer(episode).save_video(f"{folder}/clip.mp4"),
    lambda: snapshots.save(f"{folder}/training.snapshots"),
):
    try:
        write()
    except PermissionError as error:
        print(error.filename, flush=True)
"""


def test_a_read_only_folder_names_the_file_asked_for_not_a_temporary_one(tmp_path):
    folder = tmp_path / "read-only"
    folder.mkdir(mode=0o555)
    done = subprocess.run(  # root writes anywhere: without the capabilities that allow it
        [
            "setpriv",
            "--inh-caps=-all",
            "--bounding-set=-dac_override,-dac_read_search",
            sys.executable,
            "-c",
            READ_ONLY,
            str(folder),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    names = [
        "saved.rollout",
        "recorded.rollout",
        "library",
        "page.html",
        "clip.mp4",
        "training.snapshots",
    ]
    assert done.stdout.splitlines() == [str(folder / name) for name in names], done.stderr
    assert list(folder.iterdir()) == []
