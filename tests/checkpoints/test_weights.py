"""Weights files: safetensors in and out, and every bad file a clear error, never code run."""

from __future__ import annotations

import io
import json
import os
import pickle
import tracemalloc
from pathlib import Path

import pytest
import torch
from torch import nn

from agent_widget.checkpoints import WeightsFileError, load_weights, read_weights, save_weights


class _Payload:
    """Unpickling this creates ``marker``: the file a pickle loader would leave behind."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (Path.touch, (self.marker,))


def net(outputs: int = 2) -> nn.Module:
    torch.manual_seed(outputs)
    return nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, outputs))


def test_weights_saved_and_loaded_give_the_same_outputs(tmp_path):
    source, target = net(), net()
    target[0].weight.data.zero_()
    path = save_weights(source.state_dict(), tmp_path / "w.safetensors")
    assert path.read_bytes()[8:9] == b"{"  # a safetensors header, not a pickle
    x = torch.randn(5, 4)
    assert torch.equal(load_weights(path, target)(x), source(x))


def test_tied_weights_are_saved_as_their_values(tmp_path):
    tied = nn.Sequential(nn.Linear(4, 4), nn.Linear(4, 4))
    tied[1].weight = tied[0].weight  # one parameter under two names
    path = save_weights(tied.state_dict(), tmp_path / "tied.safetensors")
    assert torch.equal(read_weights(path)["1.weight"], tied[0].weight.detach())


@pytest.mark.parametrize("writer", ["pickle", "torch.save"])
def test_a_pickle_is_refused_and_never_unpickled(tmp_path, writer):
    marker = tmp_path / "code-ran"
    path = tmp_path / "evil.safetensors"
    if writer == "pickle":
        path.write_bytes(pickle.dumps(_Payload(marker)))
    else:
        buffer = io.BytesIO()
        torch.save({"0.weight": _Payload(marker)}, buffer)
        path.write_bytes(buffer.getvalue())
    module = net()
    before = {k: v.clone() for k, v in module.state_dict().items()}
    with pytest.raises(WeightsFileError, match="is a pickle") as error:
        load_weights(path, module)
    assert str(path) in str(error.value)
    assert not marker.exists()
    assert all(torch.equal(before[k], v) for k, v in module.state_dict().items())


def test_a_truncated_file_says_so(tmp_path):
    whole = save_weights(net().state_dict(), tmp_path / "whole.safetensors").read_bytes()
    for cut in (len(whole) - 10, 20, 4, 0):
        path = tmp_path / f"cut-{cut}.safetensors"
        path.write_bytes(whole[:cut])
        with pytest.raises(WeightsFileError, match="not a whole safetensors file") as error:
            load_weights(path, net())
        assert str(path) in str(error.value)
        assert f"({cut} bytes;" in str(error.value)


def test_weights_of_another_architecture_name_the_keys(tmp_path):
    path = save_weights(net(2).state_dict(), tmp_path / "two.safetensors")
    with pytest.raises(WeightsFileError) as error:
        load_weights(path, net(3))
    assert str(error.value) == (
        f"weights file {path} does not fit Sequential (saved from another architecture?): "
        "shape: 2.bias (2,) for (3,), 2.weight (2, 8) for (3, 8)"
    )
    with pytest.raises(WeightsFileError) as error:
        load_weights(path, nn.Sequential(nn.Linear(4, 8), nn.Linear(8, 2)))
    assert "missing: 1.bias, 1.weight; unexpected: 2.bias, 2.weight" in str(error.value)


def test_a_missing_file_names_it(tmp_path):
    path = tmp_path / "gone.safetensors"
    with pytest.raises(WeightsFileError, match=f"weights file {path}: cannot be read"):
        load_weights(path, net())


def test_special_files_are_left_unopened(tmp_path):
    fifo = tmp_path / "fifo.safetensors"
    os.mkfifo(fifo)
    link = tmp_path / "zero.safetensors"
    link.symlink_to("/dev/zero")
    for path in (fifo, link, tmp_path):
        with pytest.raises(WeightsFileError, match=f"weights file {path}: not a regular file"):
            load_weights(path, net())


def test_only_tensors_are_saved(tmp_path):
    with pytest.raises(TypeError, match="'step' is a int"):
        save_weights({"step": 3}, tmp_path / "w.safetensors")  # type: ignore[dict-item]
    assert not (tmp_path / "w.safetensors").exists()


def _peak_bytes_of(call) -> int:
    """The most memory Python allocated during ``call()`` (which is to raise)."""
    tracemalloc.start()
    try:
        with pytest.raises(WeightsFileError) as error:
            call()
        return tracemalloc.get_traced_memory()[1], str(error.value)
    finally:
        tracemalloc.stop()


def _safetensors_file(path: Path, header: dict, declared: int, size: int) -> Path:
    """A file whose header (``declared`` bytes long, padded) says ``header``, sized
    ``size`` bytes, sparse past the header: gigabytes that take no disk."""
    text = json.dumps(header).encode()
    with path.open("wb") as file:
        file.write(declared.to_bytes(8, "little") + text.ljust(min(declared, len(text))))
        file.truncate(size)
    return path


def test_a_sparse_file_of_gigabytes_is_judged_by_its_first_bytes(tmp_path):
    sparse = tmp_path / "sparse.safetensors"
    with sparse.open("wb") as file:
        file.truncate(2 * 2**30)  # all zeros: a header of 0 bytes, then nothing adds up
    peak, message = _peak_bytes_of(lambda: read_weights(sparse))
    assert peak < 2**20
    assert f"({2 * 2**30} bytes; its header is no JSON" in message


def test_a_header_too_long_is_refused_before_it_is_read(tmp_path):
    long = _safetensors_file(tmp_path / "long.safetensors", {}, 80 * 2**20, 81 * 2**20)
    peak, message = _peak_bytes_of(lambda: read_weights(long))
    assert peak < 2**20
    assert "its header declares 83,886,080 bytes, more than the 16,777,216 it can have" in message


def test_tensors_are_checked_against_the_file_before_their_bytes_are_read(tmp_path):
    cases = {  # header -> what the error says; the data: 1 GiB of sparse zeros
        "beyond": ({"w": {"dtype": "F32", "shape": [2**29], "data_offsets": [0, 2**31]}},
                   "tensor 'w' lies at bytes 0..2,147,483,648 of 1,073,741,824 of data"),
        "misshapen": ({"w": {"dtype": "F32", "shape": [4], "data_offsets": [0, 2**30]}},
                      "tensor 'w' holds 1,073,741,824 bytes, not the 16 of F32 (4,)"),
        "overlapping": ({"a": {"dtype": "U8", "shape": [2**30], "data_offsets": [0, 2**30]},
                         "b": {"dtype": "U8", "shape": [8], "data_offsets": [8, 16]}},
                        "its tensors leave a gap or overlap at byte 1,073,741,824 of data"),
        "no offsets": ({"w": {"dtype": "F32", "shape": [4]}}, "tensor 'w' has no shape"),
    }  # fmt: skip
    for name, (header, expected) in cases.items():
        length = len(json.dumps(header))
        path = _safetensors_file(
            tmp_path / f"{name}.safetensors", header, length, 8 + length + 2**30
        )
        peak, message = _peak_bytes_of(lambda path=path: read_weights(path))
        assert peak < 2**20, name
        assert expected in message, name
        assert str(path) in message
