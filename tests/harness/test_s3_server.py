"""The S3 test server's request log counts every request, whatever its status."""

from __future__ import annotations

import pytest

pytest.importorskip("s3fs")
from harness.s3_server import requests_in  # needs s3fs


def test_the_request_log_reads_the_lines_werkzeug_colours():
    # werkzeug wraps the request of any answer but a 200 in ANSI colour codes.
    log = (
        '127.0.0.1 - - [04/Dec/2026 10:00:00] "HEAD /runs/a HTTP/1.1" 200 -\n'
        '127.0.0.1 - - [04/Dec/2026 10:00:00] "\x1b[35m\x1b[1mGET /runs/a HTTP/1.1\x1b[0m" 206 -\n'
        '127.0.0.1 - - [04/Dec/2026 10:00:00] "\x1b[33mGET /runs/b HTTP/1.1\x1b[0m" 404 -\n'
    )
    assert requests_in(log) == [
        "HEAD /runs/a 200",
        "GET /runs/a 206",
        "GET /runs/b 404",
    ]
