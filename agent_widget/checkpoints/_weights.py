"""A network's weights in a safetensors file, written and read without pickle.

``torch.save`` files are pickles: loading one runs whatever code it names, so a
checkpoint shared with a run, or swapped on disk, could run anything in the kernel
that opens it. A safetensors file is a JSON header and raw tensor bytes, parsed and
never executed. Reading one here takes the bytes through safetensors only, never
``torch.load``; a file that is no safetensors (a pickle, ``torch.save``'s zip, a file
cut short) or whose tensors do not fit the module is a :class:`WeightsFileError`
naming the file and what is wrong, before anything of the module changes.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from pathlib import Path

import torch
from safetensors import SafetensorError
from safetensors.torch import load as load_tensors
from safetensors.torch import save as save_tensors
from torch import nn

from agent_widget.checkpoints._weights_header import HeaderError, read_checked
from agent_widget.format import atomic_write

_SHOWN_KEYS = 5
# What a file that is no safetensors starts with, for the error to say what it is.
_PICKLE = b"\x80"  # a pickle's PROTO opcode (protocol 2 and later)
_ZIP = b"PK\x03\x04"  # torch.save's zip archive, which holds a pickle


class WeightsFileError(ValueError):
    """A weights file that cannot be loaded into the module it was given; the message
    names the file and the problem."""


def save_weights(state: Mapping[str, torch.Tensor], path: str | os.PathLike[str]) -> Path:
    """Write ``state`` (a ``state_dict()``) to ``path`` as safetensors, atomically: a
    reader sees the whole file or none. Its tensors are copied to the CPU first, so
    parameters sharing memory (tied weights) are stored as the values they hold."""
    tensors = {}
    for key, value in state.items():
        if not isinstance(value, torch.Tensor):
            raise TypeError(
                f"weights are saved as tensors; state_dict entry {key!r} is a "
                f"{type(value).__name__}"
            )
        tensors[key] = value.detach().to("cpu", copy=True).contiguous()
    path = Path(path)
    with atomic_write(path) as file:
        file.write(save_tensors(tensors))
    return path


def failed_note(path: Path) -> Path:
    """Where the recorder says why the weights file ``path`` could not be saved: a reader
    of the checkpoint then stops waiting for it."""
    return path.with_name(path.name + ".failed")


def read_weights(path: str | os.PathLike[str]) -> dict[str, torch.Tensor]:
    """The tensors of the safetensors file ``path``; a :class:`WeightsFileError` for a
    file that is not one (never unpickled), is cut short, or whose header does not add
    up against its size (checked before the tensors' bytes are read)."""
    path = Path(path)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        _check_regular(path.stat().st_mode, path)  # a FIFO would hang, /dev/zero fill memory
        with open(os.open(path, flags), "rb") as file:  # O_NONBLOCK: a FIFO swapped in
            info = os.fstat(file.fileno())
            _check_regular(info.st_mode, path)
            try:
                data = read_checked(file, info.st_size)
            except HeaderError as error:
                file.seek(0)
                start, problem = file.read(len(_ZIP)), f"{info.st_size} bytes; {error}"
                raise _not_safetensors(path, start, problem) from None
    except OSError as error:
        raise WeightsFileError(f"weights file {path}: cannot be read ({error})") from None
    try:
        return load_tensors(data)
    except SafetensorError as error:
        raise _not_safetensors(path, data, f"{len(data)} bytes; {error}") from None


def _check_regular(mode: int, path: Path) -> None:
    if not stat.S_ISREG(mode):
        raise WeightsFileError(f"weights file {path}: not a regular file (left unopened)")


def _not_safetensors(path: Path, start: bytes, problem: str) -> WeightsFileError:
    """The error for a file that is no whole safetensors file, saying whether it is a
    pickle (and so never loaded) from its first bytes."""
    if start.startswith(_PICKLE) or start.startswith(_ZIP):
        return WeightsFileError(
            f"weights file {path} is a pickle (torch.save's format), not safetensors: "
            "it is not loaded, since unpickling can run any code it names"
        )
    return WeightsFileError(
        f"weights file {path} is not a whole safetensors file ({problem}): cut short, "
        "still being written, or another format"
    )


def load_weights(path: str | os.PathLike[str], module: nn.Module) -> nn.Module:
    """Load the safetensors file ``path`` into ``module`` (in place) and return it.

    The file must hold exactly the module's ``state_dict()`` keys, each of the same
    shape; otherwise a :class:`WeightsFileError` lists the missing, unexpected and
    misshapen keys (weights saved from another architecture) and the module is left
    as it was.

    Examples:
        >>> net = torch.nn.Linear(4, 2)
        >>> path = save_weights(net.state_dict(), tmp / "net.safetensors")  # doctest: +SKIP
        >>> load_weights(path, torch.nn.Linear(4, 2))  # doctest: +SKIP
        Linear(in_features=4, out_features=2, bias=True)
    """
    tensors = read_weights(path)
    expected = module.state_dict()
    problems = []
    missing = sorted(expected.keys() - tensors.keys())
    unexpected = sorted(tensors.keys() - expected.keys())
    misshapen = [
        f"{key} {tuple(tensors[key].shape)} for {tuple(expected[key].shape)}"
        for key in sorted(expected.keys() & tensors.keys())
        if tensors[key].shape != expected[key].shape
    ]
    for what, keys in (("missing", missing), ("unexpected", unexpected), ("shape", misshapen)):
        if keys:
            more = f" and {len(keys) - _SHOWN_KEYS} more" if len(keys) > _SHOWN_KEYS else ""
            problems.append(f"{what}: {', '.join(keys[:_SHOWN_KEYS])}{more}")
    if problems:
        raise WeightsFileError(
            f"weights file {path} does not fit {type(module).__name__} (saved from another "
            f"architecture?): {'; '.join(problems)}"
        )
    module.load_state_dict(tensors)
    return module
