"""The zip container of a ``.rollout`` file: its members read defensively, even from a cut file.

Every member is found from the zip central directory or, when that is lost (a file
cut short), by scanning the local headers from the start. Every size read from the
file is checked before it is used and every member against its CRC, so a damaged
or hostile file raises :class:`RolloutFileError` naming the file and the problem.
"""

from __future__ import annotations

import io
import math
import os
import stat
import struct
import threading
import warnings
import weakref
import zipfile
import zlib
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

_LOCAL_HEADER = struct.Struct("<4s5H3L2H")
_LOCAL_SIGNATURE = b"PK\x03\x04"


class RolloutFileError(ValueError):
    """A file that is not a readable ``.rollout`` file, or a damaged part of one."""


class _Source:
    """An open file read by absolute offsets; closed when nothing refers to it any more.

    Holding the descriptor (rather than reopening the path) keeps a loaded rollout
    valid even after the file is overwritten by a new save.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        # Checked before opening: opening a FIFO to read waits for a writer, forever.
        mode = os.stat(path).st_mode
        if not stat.S_ISREG(mode):
            kind = "a folder" if stat.S_ISDIR(mode) else "not a regular file"
            raise RolloutFileError(f"{path}: {kind}, not a .rollout file")
        self._fd = os.open(path, os.O_RDONLY | getattr(os, "O_BINARY", 0))
        weakref.finalize(self, os.close, self._fd)
        self.size = os.fstat(self._fd).st_size
        self._lock = threading.Lock()

    def read(self, offset: int, length: int) -> bytes:
        if hasattr(os, "pread"):
            data = os.pread(self._fd, length, offset)
        else:  # Windows: no pread
            with self._lock:
                os.lseek(self._fd, offset, os.SEEK_SET)
                data = os.read(self._fd, length)
        if len(data) != length:
            raise RolloutFileError(f"{self.path}: unexpected end of file at byte {offset}")
        return data

    def central_directory(self) -> list[zipfile.ZipInfo]:
        with open(self._fd, "rb", closefd=False) as file:
            return zipfile.ZipFile(file).infolist()


class Member(NamedTuple):
    """Where a zip member lies and what its header promises about it."""

    name: str
    header_offset: int
    method: int
    compressed_size: int
    size: int
    crc: int


class Archive:
    """A zip file's members, from its central directory or, when that is lost, its local headers.

    ``recovered`` says which: a recovered archive has lost whatever followed the cut.
    """

    def __init__(self, path: Path) -> None:
        try:
            self.source = _Source(path)
        except OSError as error:
            raise RolloutFileError(f"{path}: cannot open ({error.strerror})") from None
        self.path = path
        head = self.source.read(0, min(4, self.source.size))
        if head != _LOCAL_SIGNATURE:
            raise self.error(
                f"not a .rollout file: it does not start with a zip header (starts with {head!r})"
            )
        self.recovered = False
        try:
            infos = self.source.central_directory()
            members = [
                Member(
                    i.filename,
                    i.header_offset,
                    i.compress_type,
                    i.compress_size,
                    i.file_size,
                    i.CRC,
                )
                for i in infos
            ]
        except (zipfile.BadZipFile, ValueError, EOFError, OSError, struct.error):
            members = self._scan_local_headers()
            self.recovered = True
        self.members = {m.name: m for m in members}

    def warn_if_recovered(self) -> None:
        """Warn the caller's caller that members were recovered from a cut file."""
        if self.recovered:
            warnings.warn(
                f"{self.path}: the zip directory is missing or damaged (is the file "
                f"truncated?); recovered {len(self.members)} members from their local headers",
                stacklevel=3,
            )

    def error(self, problem: str) -> RolloutFileError:
        """An error naming this file."""
        return RolloutFileError(f"{self.path}: {problem}")

    def _scan_local_headers(self) -> list[Member]:
        members = []
        offset = 0
        while offset + _LOCAL_HEADER.size <= self.source.size:
            fields = _LOCAL_HEADER.unpack(self.source.read(offset, _LOCAL_HEADER.size))
            signature, _, flags, method, _, _, crc, csize, size, name_length, extra_length = fields
            variable_end = offset + _LOCAL_HEADER.size + name_length + extra_length
            # 0x08: sizes only after the data, which a header scan cannot skip.
            if signature != _LOCAL_SIGNATURE or flags & 0x08 or variable_end > self.source.size:
                break
            variable = self.source.read(offset + _LOCAL_HEADER.size, name_length + extra_length)
            if 0xFFFFFFFF in (csize, size):
                size, csize = _zip64_sizes(variable[name_length:], size, csize)
            name = variable[:name_length].decode("utf-8", "replace")
            members.append(Member(name, offset, method, csize, size, crc))
            offset += _LOCAL_HEADER.size + name_length + extra_length + csize
        return members

    def data_start(self, member: Member) -> int:
        """The file offset of ``member``'s first data byte (past its local header)."""
        header = self.source.read(member.header_offset, _LOCAL_HEADER.size)
        fields = _LOCAL_HEADER.unpack(header)
        if fields[0] != _LOCAL_SIGNATURE:
            raise self.error(f"{member.name}: its zip header is damaged")
        return member.header_offset + _LOCAL_HEADER.size + fields[-2] + fields[-1]

    def read(self, name: str, limit: int) -> bytes:
        """Member ``name``, checked against its CRC and against ``limit`` bytes."""
        member = self.members.get(name)
        if member is None:
            lost = " (lost: the file is truncated)" if self.recovered else ""
            raise self.error(f"member {name} is missing{lost}")
        if member.size > limit or member.compressed_size > limit:
            raise self.error(f"{name} is implausibly large ({member.size} bytes)")
        start = self.data_start(member)
        if start + member.compressed_size > self.source.size:
            raise self.error(f"{name} is cut off: the file is truncated")
        data = self.source.read(start, member.compressed_size)
        if member.method == zipfile.ZIP_DEFLATED:  # a zip tool may have recompressed it
            data = zlib.decompressobj(-15).decompress(data, member.size + 1)
        elif member.method != zipfile.ZIP_STORED:
            raise self.error(f"{name} uses unsupported zip compression method {member.method}")
        if len(data) != member.size or zlib.crc32(data) != member.crc:
            raise self.error(f"{name} is corrupted (CRC mismatch)")
        return data

    def npy(self, spec: Any, what: str, length: int | None, kinds: str = "biufc") -> np.ndarray:
        """The .npy member described by ``spec``, refusing any dtype but plain numbers (of
        ``kinds``: actions may be text too)."""
        if not isinstance(spec, dict) or not isinstance(spec.get("member"), str):
            raise self.error(f"meta.json: the entry for {what} is malformed")
        name = spec["member"]
        data = self.read(name, self.source.size)
        stream = io.BytesIO(data)
        try:
            major, _ = np.lib.format.read_magic(stream)
            read_header = (
                np.lib.format.read_array_header_1_0
                if major == 1
                else np.lib.format.read_array_header_2_0
            )
            shape, _, dtype = read_header(stream)
        except ValueError as error:
            raise self.error(f"{name} is not a valid .npy array ({error})") from None
        if dtype.hasobject or dtype.kind not in kinds:
            raise self.error(
                f"{name} holds dtype {dtype}; only plain numbers (and text actions) are "
                "loaded (no pickles)"
            )
        if length is not None and (not shape or shape[0] != length):
            raise self.error(f"{name} has shape {shape}, expected {length} entries for {what}")
        if len(data) - stream.tell() != dtype.itemsize * math.prod(shape):
            raise self.error(f"{name}: shape {shape} does not match its size ({len(data)} bytes)")
        stream.seek(0)
        return np.load(stream, allow_pickle=False)


def _zip64_sizes(extra: bytes, size: int, csize: int) -> tuple[int, int]:
    """Sizes from the zip64 extra field (id 1) of a local header."""
    while len(extra) >= 4:
        tag, length = struct.unpack_from("<2H", extra)
        if tag == 1:
            values = iter(struct.unpack_from(f"<{length // 8}Q", extra, 4))
            size = next(values) if size == 0xFFFFFFFF else size
            csize = next(values) if csize == 0xFFFFFFFF else csize
            break
        extra = extra[4 + length :]
    return size, csize
