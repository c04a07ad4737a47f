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

from agent_widget.format._filesystems import is_url, url_to_fs

_LOCAL_HEADER = struct.Struct("<4s5H3L2H")
_LOCAL_SIGNATURE = b"PK\x03\x04"
_MAX_HELD = 64 * 2**20  # the end of a remote file fetched whole on opening, at most
_BLOCK = 256 * 2**10  # a remote file is fetched in blocks of this size, each once


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


class _RemoteSource:
    """A file on an fsspec filesystem (``s3://``, ``gs://``, ``https://`` ...), read by
    ranged requests: opening reads the zip directory at the end, and a payload not yet
    read is one request for the 256 KiB blocks that hold it, kept in a sparse temporary
    file (fsspec's mmap cache). So a view of a long episode fetches what it shows and
    what lies next to it once: a viewer's first chunks of a 100,000-step Pong episode
    take 1 request, not 500, and scrubbing back reads nothing again.

    Unlike a local file's descriptor, nothing pins the object: if it is replaced while
    a rollout reads it, the next chunk read fails its CRC check.
    """

    def __init__(self, url: str, storage_options: dict[str, Any] | None) -> None:
        self.path = url
        try:
            self._fs, self._key = url_to_fs(url, storage_options)
        except ImportError as error:
            raise RolloutFileError(str(error)) from None
        try:
            info = self._fs.info(self._key)
        except Exception as error:  # any client's own errors: botocore's are not OSErrors
            problem = f"{type(error).__name__}: {error}"
            raise RolloutFileError(f"{url}: cannot open ({problem})") from None
        if info.get("type") != "file":
            raise RolloutFileError(f"{url}: {info.get('type', 'not a file')}, not a .rollout file")
        self.size = int(info["size"])
        self._held, self._held_from = b"", self.size  # the file's end, once fetched
        from fsspec.caching import MMapCache  # fsspec is there: url_to_fs imported it

        self._blocks = MMapCache(_BLOCK, self._fetch, self.size)
        self._lock = threading.Lock()  # one reader fills the cache's blocks at a time

    def hold_from(self, offset: int) -> None:
        """Fetch the file from ``offset`` to its end in one request and serve reads there
        from it: the small members and the directory, read on opening (up to 64 MiB)."""
        if offset < self._held_from and self.size - offset <= _MAX_HELD:
            self._held, self._held_from = self._fetch(offset, self.size), offset

    def read(self, offset: int, length: int) -> bytes:
        if length == 0:
            return b""
        if offset >= self._held_from and offset + length <= self.size:
            return self._held[offset - self._held_from : offset - self._held_from + length]
        with self._lock:
            data = self._blocks._fetch(offset, offset + length)
        if len(data) != length:
            raise RolloutFileError(f"{self.path}: unexpected end of file at byte {offset}")
        return data

    def _fetch(self, start: int, end: int) -> bytes:
        try:
            return bytes(self._fs.cat_file(self._key, start=start, end=end))
        except Exception as error:  # a dropped connection, expired credentials
            raise RolloutFileError(f"{self.path}: cannot read bytes {start}.. ({error})") from None

    def central_directory(self) -> list[zipfile.ZipInfo]:
        # The directory is at the end: 64 KiB held covers it and the end record for any
        # file with a few thousand members, in one request.
        self.hold_from(max(0, self.size - 64 * 2**10))
        return zipfile.ZipFile(_Tail(self)).infolist()


class _Tail(io.RawIOBase):
    """A remote file as zipfile reads it, by seeks and reads of the source (whose held
    end answers them without a request)."""

    def __init__(self, source: _RemoteSource) -> None:
        self._source, self._size, self._at = source, source.size, 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._at, io.SEEK_END: self._size}[whence]
        self._at = base + offset
        return self._at

    def tell(self) -> int:
        return self._at

    def read(self, size: int = -1) -> bytes:
        stop = self._size if size < 0 else min(self._size, self._at + size)
        data = self._source.read(self._at, max(0, stop - self._at))
        self._at += len(data)
        return data


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

    def __init__(self, path: Path | str, storage_options: dict[str, Any] | None = None) -> None:
        """``path``: a local file, or a URL (``s3://bucket/key``) read through fsspec with
        ``storage_options`` (credentials, endpoint)."""
        self.source: _Source | _RemoteSource
        if is_url(path):
            self.source = _RemoteSource(path, storage_options)
        else:
            try:
                self.source = _Source(Path(path))
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
        # zipfile raises NotImplementedError when a damaged directory entry asks for a
        # zip version it does not read: recovered from the local headers as the others.
        except (
            zipfile.BadZipFile,
            ValueError,
            EOFError,
            OSError,
            struct.error,
            NotImplementedError,
        ):
            members = self._scan_local_headers()
            self.recovered = True
        self.members = {m.name: m for m in members}
        if isinstance(self.source, _RemoteSource):  # the small members, in one request
            small = [m.header_offset for m in members if m.name != "chunks.bin"]
            self.source.hold_from(min(small, default=self.source.size))

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
        if not 0 <= member.header_offset <= self.source.size - _LOCAL_HEADER.size:
            raise self.error(f"{member.name}: the zip directory points outside the file")
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
