"""``Snapshots``: a Q-table after every training episode, held in a few bytes each.

A training run of 100,000 episodes on FrozenLake 8x8 makes 100,000 tables of 256
values: 200 MB as float64. Consecutive tables differ in the few entries the last
episode visited, and by small amounts, so they are stored as follows:

1. **Quantized** to a grid of step ``2 * tolerance``: every value read back is within
   ``tolerance`` of the value appended (the stated error bound; 1e-4 by default,
   far below what a colour scale of 256 levels shows). Integers on the grid make
   the next step exact.
2. **Delta-coded** in blocks of 256 snapshots: the first row of a block holds the
   grid values, each later row the change from the row before (mostly zeros).
   Any snapshot is decoded from its own block alone.
3. **Packed** per block: deltas zigzag-mapped to unsigned integers of the smallest
   width that holds the block (1, 2 or 4 bytes), laid out entry by entry over time
   and split into byte planes, then deflated (zlib). A real run of 100,000 Q-learning
   episodes on 8x8 slippery FrozenLake takes 4.2 MiB saved, 5.8 MiB in memory (see
   benchmarks/RESULTS.md), where float64 tables would take 195 MiB.

Appending costs about 10 microseconds (quantize one table, subtract the previous
one); every 256th append also deflates the finished block (a few milliseconds).

Files (:meth:`Snapshots.save` / :meth:`Snapshots.load`) follow the ``.rollout`` style: a
zip of ``.npy`` members described by a JSON table of contents, nothing pickled, read
with :class:`agent_widget.format._archive.Archive`, which checks every member against its CRC
and every size before use. Blocks are read on demand, so loading is quick.
"""

from __future__ import annotations

import io
import json
import math
import os
import zipfile
import zlib
from array import array
from pathlib import Path
from typing import Any

import numpy as np

from agent_widget.format import Archive, atomic_write

FORMAT = "agent-widget.snapshots"
VERSION = 1
BLOCK = 256  # snapshots per delta-coded block
DEFAULT_TOLERANCE = 1e-4
_LIMIT = 2**30  # grid values stay within +-2**30 so that a delta fits 32 bits zigzagged
_WIDTHS = {1: np.uint8, 2: np.uint16, 4: np.uint32}
_TOC = "snapshots.json"
_DATE = (1980, 1, 1, 0, 0, 0)  # fixed, so equal snapshots give equal files
_MAX_TOC_BYTES = 2**20


class Snapshots:
    """Tables (e.g. Q-tables) recorded over training, each with its episode and return.

    Args:
        tolerance: the error bound: a table read back differs from the one appended
            by at most this much in every entry.
        metadata: JSON-able facts kept with the snapshots (env id, algorithm, ...).

    Examples:
        >>> snapshots = Snapshots()
        >>> for episode in range(3):
        ...     snapshots.append(np.full((4, 2), episode / 3), episode=episode, ret=1.0)
        >>> len(snapshots), snapshots.shape, snapshots.episodes.tolist()
        (3, (4, 2), [0, 1, 2])
        >>> bool(np.abs(snapshots[-1] - 2 / 3).max() <= snapshots.tolerance)
        True
    """

    def __init__(
        self, tolerance: float = DEFAULT_TOLERANCE, metadata: dict[str, Any] | None = None
    ) -> None:
        if not 0 < tolerance < math.inf:
            raise ValueError(f"tolerance must be a positive number, got {tolerance}")
        self.tolerance = float(tolerance)
        self.metadata = dict(metadata or {})
        self.shape: tuple[int, ...] | None = None
        self._quantum = 2 * self.tolerance
        self._blocks: list[tuple[int, bytes]] = []  # (width, deflated planes) of full blocks
        self._open = np.zeros((0, 0), np.int32)  # deltas of the block being filled
        self._filled = 0  # rows of the open block
        self._last = np.zeros(0, np.int64)  # grid values of the newest snapshot
        self._episodes = array("q")
        self._returns = array("d")
        self._cached: tuple[int, np.ndarray] | None = None  # (block, its grid values)
        self._origin = "snapshots"  # or the file they were loaded from, for errors

    def append(
        self,
        table: Any,
        episode: int | None = None,
        ret: float | None = None,
        steps: int | None = None,
    ) -> None:
        """Add a snapshot of ``table`` (copied), taken after ``episode`` which returned ``ret``
        (``steps``, the env steps so far, is not kept: it is the ``train()`` callback's).

        ``episode`` defaults to the snapshot's index, ``ret`` to NaN (unknown). Every
        table must have the first one's shape and finite values within about
        ``2**31 * tolerance`` of zero.
        """
        k = len(self)
        values = np.asarray(table, dtype=np.float64)
        if self.shape is None:
            self._start(values.shape)
        if values.shape != self.shape:
            raise ValueError(f"snapshot {k}: table of shape {values.shape}, expected {self.shape}")
        scaled = values.ravel() / self._quantum
        if not np.isfinite(scaled).all() or np.abs(scaled).max(initial=0) >= _LIMIT:
            raise ValueError(
                f"snapshot {k}: values must be finite and within +-{_LIMIT * self._quantum:g} "
                f"at tolerance {self.tolerance:g}; raise the tolerance for larger values"
            )
        grid = np.rint(scaled).astype(np.int64)
        row = self._filled
        self._open[row] = grid if row == 0 else grid - self._last
        self._last = grid
        self._filled += 1
        self._episodes.append(k if episode is None else int(episode))
        self._returns.append(math.nan if ret is None else float(ret))
        if self._filled == BLOCK:
            self._blocks.append(_pack(self._open))
            self._filled = 0

    def __len__(self) -> int:
        return len(self._episodes)

    def __getitem__(self, k: int) -> np.ndarray:
        """Snapshot ``k`` (negative counts from the end) as a float64 array of ``shape``."""
        n = len(self)
        if not -n <= k < n:
            raise IndexError(f"snapshot {k} out of range: there are {n}")
        k %= n
        assert self.shape is not None
        if k == n - 1:
            grid = self._last
        else:
            block, row = divmod(k, BLOCK)
            grid = self._block_grid(block)[row]
        return (grid * self._quantum).reshape(self.shape)

    @property
    def episodes(self) -> np.ndarray:
        """int64 (n,): the episode after which each snapshot was taken."""
        return np.array(self._episodes, dtype=np.int64)

    @property
    def returns(self) -> np.ndarray:
        """float64 (n,): each snapshot's episode return (NaN where not given)."""
        return np.array(self._returns, dtype=np.float64)

    @property
    def nbytes(self) -> int:
        """Bytes held: packed blocks, the block being filled, and the per-snapshot scalars."""
        packed = sum(len(data) for _, data in self._blocks)
        return packed + self._open.nbytes + self._last.nbytes + 16 * len(self)

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the snapshots to ``path`` (a zip of .npy members), replacing it atomically.

        Examples:
            >>> snapshots.save("training.snapshots")  # doctest: +SKIP
            >>> Snapshots.load("training.snapshots")[-1]  # doctest: +SKIP
        """
        blocks = self._blocks + ([_pack(self._open[: self._filled])] if self._filled else [])
        lengths = [len(data) for _, data in blocks]
        members = {
            "episodes": self.episodes,
            "returns": self.returns,
            "widths": np.array([width for width, _ in blocks], np.int64),
            "offsets": np.cumsum([0, *lengths], dtype=np.int64),
            "blocks": np.frombuffer(b"".join(data for _, data in blocks), np.uint8),
        }
        toc = {
            "format": FORMAT,
            "version": VERSION,
            "count": len(self),
            "shape": list(self.shape or ()),
            "tolerance": self.tolerance,
            "block": BLOCK,
            "metadata": self.metadata,
            "arrays": {name: _npy_spec(name, value) for name, value in members.items()},
        }
        try:
            text = json.dumps(toc, indent=1, allow_nan=False)
        except (TypeError, ValueError) as error:
            raise ValueError(f"cannot save the snapshots' metadata: {error}") from None
        files = [(_TOC, text.encode()), *((f"{n}.npy", _npy(v)) for n, v in members.items())]
        return _write_zip(Path(path), files)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Snapshots:
        """Read snapshots written by :meth:`save`; every block is checked as it is read.

        Raises :class:`~agent_widget.episodes.RolloutFileError` (a ValueError) naming
        the file and the problem when it is not a readable snapshots file.

        Examples:
            >>> snapshots = Snapshots.load("training.snapshots")  # doctest: +SKIP
        """
        archive = Archive(Path(path))
        archive.warn_if_recovered()
        toc = _read_toc(archive)
        count, shape = toc["count"], tuple(toc["shape"])
        specs = toc["arrays"]
        nblocks = -(-count // BLOCK)
        episodes = archive.npy(specs.get("episodes"), "episodes", count)
        returns = archive.npy(specs.get("returns"), "returns", count)
        widths = archive.npy(specs.get("widths"), "widths", nblocks)
        offsets = archive.npy(specs.get("offsets"), "offsets", nblocks + 1)
        blob = archive.npy(specs.get("blocks"), "blocks", None)
        if episodes.dtype.kind not in "iu" or returns.dtype.kind != "f" or blob.dtype != np.uint8:
            raise archive.error("episodes, returns or blocks have the wrong dtype")
        if np.any(np.diff(offsets) < 0) or offsets[0] != 0 or offsets[-1] != blob.size:
            raise archive.error("the block offsets do not tile blocks.npy")
        if not set(widths.tolist()) <= set(_WIDTHS):
            raise archive.error(f"block widths must be 1, 2 or 4, not {set(widths.tolist())}")
        snapshots = cls(toc["tolerance"], toc["metadata"])
        if count == 0:
            return snapshots
        snapshots._start(shape)
        snapshots._origin = str(path)
        data = blob.tobytes()
        packed = [(int(widths[i]), data[offsets[i] : offsets[i + 1]]) for i in range(nblocks)]
        rows = count - (nblocks - 1) * BLOCK
        try:  # the newest block, needed to append; the others are read on demand
            deltas = _unpack(*packed[-1], rows, snapshots._last.size)
        except ValueError as error:
            raise archive.error(f"block {nblocks - 1}: {error}") from None
        snapshots._blocks = packed if rows == BLOCK else packed[:-1]
        snapshots._filled = rows % BLOCK
        snapshots._open[: snapshots._filled] = deltas[: snapshots._filled]
        snapshots._last = deltas.sum(axis=0)
        snapshots._episodes = array("q", episodes.astype(np.int64).tobytes())
        snapshots._returns = array("d", returns.astype(np.float64).tobytes())
        return snapshots

    def _start(self, shape: tuple[int, ...]) -> None:
        size = math.prod(shape)
        if size == 0:
            raise ValueError(f"snapshot 0: the table of shape {shape} is empty")
        self.shape = shape
        self._open = np.zeros((BLOCK, size), np.int32)
        self._last = np.zeros(size, np.int64)

    def _block_grid(self, block: int) -> np.ndarray:
        """Grid values of every snapshot of ``block``; the last block decoded is kept."""
        if self._cached is not None and self._cached[0] == block:
            return self._cached[1]
        if block == len(self._blocks):  # the open block, still growing: not cached
            return np.cumsum(self._open[: self._filled], axis=0, dtype=np.int64)
        try:
            deltas = _unpack(*self._blocks[block], BLOCK, len(self._last))
        except ValueError as error:
            raise ValueError(f"{self._origin}: snapshot block {block} {error}") from None
        grid = np.cumsum(deltas, axis=0)
        self._cached = (block, grid)
        return grid


def _pack(deltas: np.ndarray) -> tuple[int, bytes]:
    """A block's deltas as (width, deflated byte planes of the zigzagged values)."""
    deltas = deltas.astype(np.int64)
    zigzag = ((deltas << 1) ^ (deltas >> 63)).astype(np.uint64)  # 0, -1, 1, -2 -> 0, 1, 2, 3
    top = int(zigzag.max(initial=0))
    width = next(w for w in _WIDTHS if top < 1 << (8 * w))
    # Entry by entry over time, then low bytes before high bytes: long runs of zeros.
    series = np.ascontiguousarray(zigzag.T.astype(_WIDTHS[width]))
    planes = series.view(np.uint8).reshape(*series.shape, width).transpose(2, 0, 1)
    return width, zlib.compress(np.ascontiguousarray(planes).tobytes(), 6)


def _unpack(width: int, data: bytes, rows: int, size: int) -> np.ndarray:
    """Deltas (rows, size) int64 of a block packed by :func:`_pack`; ValueError if damaged."""
    expected = width * size * rows
    try:
        raw = zlib.decompressobj().decompress(data, expected + 1)
    except zlib.error as error:
        raise ValueError(f"not a deflate stream ({error})") from None
    if len(raw) != expected:
        raise ValueError(f"holds {len(raw)} bytes, expected {expected}")
    planes = np.frombuffer(raw, np.uint8).reshape(width, size, rows)
    series = np.ascontiguousarray(planes.transpose(1, 2, 0)).view(_WIDTHS[width])[..., 0]
    zigzag = series.T.astype(np.int64)
    return (zigzag >> 1) ^ -(zigzag & 1)


def _read_toc(archive: Archive) -> dict[str, Any]:
    if _TOC not in archive.members:
        raise archive.error(f"not a snapshots file: no {_TOC}")
    try:
        toc = json.loads(archive.read(_TOC, _MAX_TOC_BYTES))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise archive.error(f"{_TOC} is not valid JSON ({error})") from None
    if not isinstance(toc, dict) or toc.get("format") != FORMAT:
        raise archive.error(f"{_TOC} does not describe an {FORMAT} file")
    if not isinstance(toc.get("version"), int) or toc["version"] > VERSION:
        raise archive.error(
            f"format version {toc.get('version')!r} is newer than this agent-widget reads "
            f"({VERSION}); upgrade agent-widget"
        )
    count, shape, tolerance = toc.get("count"), toc.get("shape"), toc.get("tolerance")
    good = (
        isinstance(count, int)
        and count >= 0
        and isinstance(shape, list)
        and all(isinstance(d, int) and d > 0 for d in shape)
        and (count == 0 or math.prod(shape) > 0)
        and isinstance(tolerance, (int, float))
        and 0 < tolerance < math.inf
        and toc.get("block") == BLOCK
        and isinstance(toc.get("metadata"), dict)
        and isinstance(toc.get("arrays"), dict)
    )
    if not good:
        raise archive.error(f"{_TOC}: count, shape, tolerance, block or arrays are malformed")
    return toc


def _npy(value: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, value, allow_pickle=False)
    return buffer.getvalue()


def _npy_spec(name: str, value: np.ndarray) -> dict[str, Any]:
    return {"member": f"{name}.npy", "dtype": value.dtype.str, "shape": list(value.shape)}


def _write_zip(path: Path, members: list[tuple[str, bytes]]) -> Path:
    """Write the zip to a temporary file, then rename it over ``path``.

    Members are deflated (the episode numbers and returns shrink several times)
    except blocks.npy, deflated already.
    """
    with atomic_write(path) as file, zipfile.ZipFile(file, "w", zipfile.ZIP_STORED) as archive:
        for name, data in members:
            method = zipfile.ZIP_STORED if name == "blocks.npy" else zipfile.ZIP_DEFLATED
            archive.writestr(zipfile.ZipInfo(name, _DATE), data, method)
    return path
