"""Hostile files: what the worst small files of each kind cost a reader, and how each ends.

Each case writes a file of at most 1 MB built the way an attacker (or a bug) would,
then, in a fresh Python process, opens it and reads everything as the fuzz suite does
(``harness.reading.read_everything``: every frame, chunk, info, observation and array,
and a page of it), and reports its peak memory (the process's
maximum RSS minus that of a process that only imported the package) and the time to
its outcome: the data, or a clear error. Targets (issue #14): under 512 MB, under 5 s.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from agent_widget.episodes import Rollout
from agent_widget.format import CHUNK_SIZE, Frames, Part
from benchmarks.results import arguments, code_version, command, machine, publish, today

MEMORY_TARGET = 512 * 2**20
TIME_TARGET = 5.0

READER = """
import json, sys, time, warnings
from pathlib import Path
from agent_widget import RolloutFileError
from harness.reading import read_everything
path = sys.argv[1]
started = time.perf_counter()
outcome = "data"
try:
    if path != "-":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            read_everything(Path(path))
except (RolloutFileError, ValueError) as error:
    outcome = f"{type(error).__name__}: {str(error)[:90]}"
seconds = time.perf_counter() - started
# VmHWM: this process's own peak (ru_maxrss keeps the forking parent's across exec).
status = open("/proc/self/status").read()
rss = int(next(line for line in status.splitlines() if line.startswith("VmHWM")).split()[1]) * 1024
print(json.dumps({"outcome": outcome, "seconds": seconds, "rss": rss}))
"""


class Crafted(Frames):
    """Frames whose chunks are given parts, as a hostile writer would store them."""

    def __init__(self, length: int, parts: dict[int, list[Part]]) -> None:
        self._length, self._parts = length, parts

    def __len__(self) -> int:
        return self._length

    def _frame(self, t: int) -> np.ndarray:
        part = next(p for p in self._parts[t // CHUNK_SIZE] if t < p.start + p.count)
        return self._decode(part, t - part.start + 1, last_only=True)[0]

    def _encode_chunk(self, k: int) -> list[Part]:
        return self._parts[k]


def zlib_stream(*pieces: bytes) -> bytes:
    import zlib

    compressor = zlib.compressobj(9)
    return b"".join(compressor.compress(piece) for piece in pieces) + compressor.flush()


def huge_frames(folder: Path) -> Path:
    """16 black frames of 4600x4600 (63 MB each) in one part."""
    size = 4600 * 4600 * 3
    payload = zlib_stream(bytes(size), *[bytes(4)] * 15)
    frames = Crafted(16, {0: [Part(0, 16, 4600, 4600, "zlib-runs", payload)]})
    return Rollout.from_arrays(frames=frames).save(folder / "huge-frames.rollout")


def run_headers(folder: Path) -> Path:
    """Frame 1 claims twice a frame's share of runs (within the part's whole bound)."""
    height = width = 1448  # 6.3 MB frames
    size = height * width * 3
    runs = 4 * size // 9
    pairs = np.ones((runs, 2), "<u4").tobytes()
    payload = zlib_stream(bytes(size), np.uint32(runs).tobytes(), pairs, bytes(runs))
    frames = Crafted(16, {0: [Part(0, 16, height, width, "zlib-runs", payload)]})
    return Rollout.from_arrays(frames=frames).save(folder / "run-headers.rollout")


def claimed_frames(folder: Path) -> Path:
    """A tiny payload whose header claims 16 frames of 4600x4600."""
    frames = Crafted(16, {0: [Part(0, 16, 4600, 4600, "zlib-runs", zlib_stream(bytes(64)))]})
    return Rollout.from_arrays(frames=frames).save(folder / "claimed-frames.rollout")


def infos_bomb(folder: Path) -> Path:
    """Infos of 16 positions that inflate to a JSON list of 32M zeros."""
    path = Rollout.from_arrays(observations=np.zeros((16, 1))).save(folder / "infos.rollout")
    bomb = zlib_stream(b"[" + b"0," * (32 * 2**20 - 1) + b"0]")
    return _replace_payload(path, stream=1, payload=bomb)


def image_observations(folder: Path) -> Path:
    """2,000 image observations of 160x160 (154 MB raw), a dot moving on black."""
    n = 2000
    observations = np.zeros((n, 160, 160, 3), np.uint8)
    observations[np.arange(n), np.arange(n) % 160, np.arange(n) // 160 % 160] = 255
    rollout = Rollout.from_arrays(observations=observations, actions=np.zeros(n - 1, int))
    return rollout.save(folder / "observations.rollout")


def deep_json(folder: Path) -> Path:
    """meta.json nested 100,000 deep."""
    path = Rollout.from_arrays(observations=np.zeros((4, 1))).save(folder / "deep.rollout")
    return _rewrite(path, "meta.json", b"[" * 100_000 + b"]" * 100_000)


def fifo(folder: Path) -> Path:
    path = folder / "pipe.rollout"
    os.mkfifo(path)
    return path


def _rewrite(path: Path, member: str, data: bytes) -> Path:
    with zipfile.ZipFile(path) as archive:
        entries = [(i.filename, archive.read(i)) for i in archive.infolist()]
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as archive:
        for name, content in entries:
            archive.writestr(name, data if name == member else content)
    return path


def _replace_payload(path: Path, stream: int, payload: bytes) -> Path:
    """Put ``payload`` in place of the first payload of ``stream``, index and CRC updated."""
    import io
    import zlib

    with zipfile.ZipFile(path) as archive:
        blob = archive.read("chunks.bin")
        index = np.load(io.BytesIO(archive.read("chunks.index.npy")))
    columns = _index_columns()
    row = next(r for r in index if r[columns["stream"]] == stream)
    offset, length = int(row[columns["offset"]]), int(row[columns["length"]])
    blob = blob[:offset] + payload + blob[offset + length :]
    grown = len(payload) - length
    for r in index:
        if r[columns["offset"]] > offset:
            r[columns["offset"]] += grown
    row[columns["length"]] = len(payload)
    row[columns["crc32"]] = zlib.crc32(payload)
    buffer = io.BytesIO()
    np.save(buffer, index)
    _rewrite(path, "chunks.bin", blob)
    return _rewrite(path, "chunks.index.npy", buffer.getvalue())


def _index_columns() -> dict[str, int]:
    from agent_widget.format import _chunk_index

    return {
        "stream": _chunk_index.STREAM,
        "offset": _chunk_index.OFFSET,
        "length": _chunk_index.LENGTH,
        "crc32": _chunk_index.CRC,
    }


CASES = [
    ("16 black 4600x4600 frames in one part", huge_frames),
    ("a frame claiming twice its share of runs", run_headers),
    ("a header claiming frames its payload cannot hold", claimed_frames),
    ("infos inflating to a JSON list of 32M zeros", infos_bomb),
    ("2,000 image observations (154 MB raw)", image_observations),
    ("meta.json nested 100,000 deep", deep_json),
    ("a FIFO", fifo),
]


def read(path: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-c", READER, path],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=Path(__file__).parent.parent,  # where harness.reading is found
    )
    if done.returncode != 0:
        return {"outcome": f"CRASH: {done.stderr.strip().splitlines()[-1]}", "seconds": 0, "rss": 0}
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> None:
    args = arguments(__doc__.splitlines()[0]).parse_args(argv)
    load_start = os.getloadavg()[0]
    baseline = read("-")["rss"]
    rows, worst_memory, slowest = [], 0, 0.0
    with tempfile.TemporaryDirectory(prefix="aw-hostile-") as folder:
        for name, make in CASES:
            path = make(Path(folder))
            size = path.stat().st_size if path.is_file() else 0
            result = read(str(path))
            result["outcome"] = result["outcome"].replace(f"{folder}/", "")
            held = max(0, result["rss"] - baseline)
            worst_memory = max(worst_memory, held if size <= 2**20 else 0)
            slowest = max(slowest, result["seconds"])
            rows.append(
                f"| {name} | {size / 1024:,.0f} KB | {held / 2**20:,.0f} MB | "
                f"{result['seconds']:.2f} s | {result['outcome']} |"
            )
    table = "\n".join(
        [
            "| file | size | peak memory held | time | outcome |",
            "|---|---:|---:|---:|---|",
            *rows,
        ]
    )
    verdict = (
        f"- the worst file of at most 1 MB held {worst_memory / 2**20:,.0f} MB (target under "
        f"{MEMORY_TARGET / 2**20:.0f} MB): {'meets' if worst_memory < MEMORY_TARGET else 'MISSES'}"
        f"\n- the slowest outcome took {slowest:.2f} s (target under {TIME_TARGET:.0f} s): "
        f"{'meets' if slowest < TIME_TARGET else 'MISSES'}"
    )
    body = (
        f"`{command('benchmarks.hostile', argv)}` ({today()}, code {code_version()}, "
        f"{machine(load_start)}). Each file "
        "is read whole in a fresh process, as tests/format/test_fuzz.py reads files (every frame, "
        "chunk, info, observation and array, and a page of it); "
        "memory is that process's peak RSS above one that only imported the package "
        f"({baseline / 2**20:.0f} MB). The fuzz suite (tests/format/test_fuzz.py) covers random "
        "flips, cuts and messages; these are the worst cases found by hand.\n\n"
        f"{table}\n\n{verdict}"
    )
    publish("Hostile files", body, write=not args.no_write)


if __name__ == "__main__":
    main()
