"""Fixtures the library's test modules share."""

from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    """moto's S3 server with an empty bucket ``runs``, for a module's tests."""
    pytest.importorskip("s3fs")
    from harness.s3_server import S3Server

    server = S3Server(tmp_path_factory.mktemp("s3"))
    server.fs.mkdir("runs")
    yield server
    server.stop()
