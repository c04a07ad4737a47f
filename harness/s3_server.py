"""A moto S3 server on loopback for the bucket tests and benchmark, its request log read
back to count what a client asked for; and an endpoint that never answers."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import s3fs

from harness.process import ServerProcess, free_port


class S3Server(ServerProcess):
    """A moto S3 server on loopback, its request log, and the options to reach it.

    ``authenticate``: refuse every request whose credentials IAM does not know (moto
    accepts any by default), as a real store refuses wrong keys.
    """

    def __init__(self, folder: Path, *, authenticate: bool = False) -> None:
        self.port = free_port()
        self.log = folder / f"moto-{self.port}.log"
        server = Path(sys.executable).parent / "moto_server"
        env = {**os.environ, **({"INITIAL_NO_AUTH_ACTION_COUNT": "0"} if authenticate else {})}
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(
                [str(server), "-H", "127.0.0.1", "-p", str(self.port)],
                stdout=log,
                stderr=log,
                env=env,
            )
        deadline = time.monotonic() + 30
        while "Running on" not in self.log.read_text():
            assert self.process.poll() is None, self.log.read_text()
            assert time.monotonic() < deadline, self.log.read_text()
            time.sleep(0.1)  # deliberate: the pause between two looks
        self.endpoint = f"http://127.0.0.1:{self.port}"
        self.options = {
            "key": "any",
            "secret": "any",
            "client_kwargs": {"endpoint_url": self.endpoint},
        }
        self.fs = s3fs.S3FileSystem(**self.options)

    def requests(self) -> list[str]:
        """Every request the server has answered so far, with its status:
        ``"GET /bucket/key?query 206"`` (206: a ranged read)."""
        return requests_in(self.log.read_text())

    def gets(self) -> int:
        """How many GET requests the server has answered so far."""
        return sum(r.startswith("GET ") for r in self.requests())


# werkzeug colours the request of every answer but a 200 (ANSI codes inside its quotes).
COLOUR = re.compile(r"\x1b\[[\d;]*m")


def requests_in(log: str) -> list[str]:
    """The requests a moto server's log records, each with its status."""
    found = re.findall(r'"([A-Z]+ \S+) HTTP/[\d.]+" (\d+)', COLOUR.sub("", log))
    return [f"{request} {status}" for request, status in found]


class SilentEndpoint:
    """An endpoint that accepts every connection and never answers: a bucket's host that
    is up but hung. ``connections`` counts the connections it has taken (each attempt
    of a client is one, as none can be reused without an answer)."""

    def __init__(self) -> None:
        self._socket = socket.create_server(("127.0.0.1", 0), backlog=64)
        self._held: list[socket.socket] = []
        self.url = f"http://127.0.0.1:{self._socket.getsockname()[1]}"
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def connections(self) -> int:
        return len(self._held)

    def _accept(self) -> None:
        while True:
            try:
                connection, _ = self._socket.accept()
            except OSError:  # closed
                return
            self._held.append(connection)  # kept open, never read nor answered

    def close(self) -> None:
        self._socket.shutdown(socket.SHUT_RDWR)  # wakes the accepting thread
        self._socket.close()
        for connection in self._held:
            connection.close()
