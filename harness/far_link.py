"""A far link between the browser and JupyterLab: a TCP proxy that delays every byte and
limits the throughput, each direction on its own, as a distant kernel's link does.

Bytes that reach the proxy leave it, in order, ``rtt / 2`` after they arrived and at
no more than the link's rate (a token bucket as deep as the piece being sent): a
message takes the one-way delay plus its size over the rate, and one queued behind a
large reply waits for it, as on a real link. The proxy writes at once (``TCP_NODELAY``: it is the
wire, not an endpoint). What it does not model is TCP's own behaviour over a long
path (slow start, the sender's window over the round trip): each side's TCP talks to
a local peer, so these figures are the floor a link of that delay and rate imposes.

Run it by hand to try the viewer at a distance (then open JupyterLab's URL with the
proxy's port)::

    .venv/bin/python -m harness.far_link 150ms-10mbit --target 8888 --port 9999
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import re
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent  # where ``-m harness.far_link`` is found
PIECE = 4 * 1024  # bytes read, delayed and sent as one: at 10 Mbit, 3.3 ms of the link
# How late a sleep may wake without the link losing that time: the bucket's only depth
# beyond the piece (at 10 Mbit, 6 KB), there to absorb the event loop's timer overshoot.
SLACK = 0.005
QUEUED = 4 * 2**20  # bytes held per direction before the proxy stops reading (TCP pushes back)


@dataclass(frozen=True)
class Link:
    """A link's round trip (seconds) and rate (bits per second, each direction)."""

    name: str
    rtt: float
    rate: float

    @classmethod
    def parse(cls, name: str) -> Link:
        """``"150ms-10mbit"``: 150 ms round trip, 10 Mbit/s each way."""
        match = re.fullmatch(r"(\d+(?:\.\d+)?)ms-(\d+(?:\.\d+)?)mbit", name)
        if match is None:
            raise ValueError(f"a link is named like 150ms-10mbit, not {name!r}")
        return cls(name, float(match[1]) / 1e3, float(match[2]) * 1e6)


class TokenBucket:
    """Lets bytes through at ``rate`` bytes a second: each piece once the link would have
    sent it whole.

    Kept as the time the link will have sent everything let through so far (a virtual
    clock), so a sleep that overshoots (by up to :data:`SLACK`) delays one piece, not
    the rate of the rest.
    """

    def __init__(self, rate: float) -> None:
        self.rate = rate
        self.free = time.monotonic()

    async def take(self, n: int) -> None:
        now = time.monotonic()
        self.free = max(self.free, now - SLACK) + n / self.rate
        await asyncio.sleep(self.free - now)  # deliberate: the link's rate


async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, link: Link) -> None:
    """Copies one direction: each piece leaves ``rtt / 2`` after it arrived, at the rate."""
    queue: asyncio.Queue[tuple[float, bytes] | None] = asyncio.Queue(QUEUED // PIECE)

    async def receive() -> None:
        while data := await reader.read(PIECE):
            await queue.put((time.monotonic() + link.rtt / 2, data))
        await queue.put(None)

    async def send() -> None:
        bucket = TokenBucket(link.rate / 8)
        while (item := await queue.get()) is not None:
            due, data = item
            await asyncio.sleep(due - time.monotonic())  # deliberate: the link's delay
            await bucket.take(len(data))
            writer.write(data)
            await writer.drain()
        if writer.can_write_eof():
            writer.write_eof()

    # A reset on either side ends both halves (a failed send must not leave the
    # receiving half blocked on a full queue).
    tasks = [asyncio.ensure_future(receive()), asyncio.ensure_future(send())]
    done, pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
    for task in pending:
        task.cancel()
    for task in done:
        if isinstance(task.exception(), OSError):
            writer.close()


async def serve(link: Link, target: int, port: int, ready: asyncio.Future[int]) -> None:
    """Accepts connections on 127.0.0.1:``port`` (0: any free one) and carries each to
    127.0.0.1:``target`` over the link; ``ready`` gets the port."""

    async def carry(client_in: asyncio.StreamReader, client_out: asyncio.StreamWriter) -> None:
        try:
            server_in, server_out = await asyncio.open_connection("127.0.0.1", target)
        except OSError:
            client_out.close()
            return
        for stream in (client_out, server_out):
            stream.get_extra_info("socket").setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        await asyncio.gather(pipe(client_in, server_out, link), pipe(server_in, client_out, link))
        for stream in (client_out, server_out):
            stream.close()

    server = await asyncio.start_server(carry, "127.0.0.1", port)
    ready.set_result(server.sockets[0].getsockname()[1])
    async with server:
        await server.serve_forever()


@contextlib.contextmanager
def proxy(link: Link, target: int) -> Iterator[int]:
    """The proxy in a process of its own (the benchmark's process is busy driving the
    browser), in front of port ``target``; yields the port to connect to."""
    command = [sys.executable, "-m", "harness.far_link", link.name, f"--target={target}"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        if not line.startswith("port "):
            raise RuntimeError(f"the far-link proxy did not start (exit {process.poll()})")
        yield int(line.split()[1])
    finally:
        process.terminate()
        process.wait(timeout=10)


def check(link: Link, size: int = 2**20) -> dict[str, float]:
    """Measures the proxy against what the link promises, through a local server that
    echoes a byte, or takes ``size`` bytes and answers with one, or sends ``size`` bytes
    when asked: seconds for an echo (the round trip: ~rtt), an upload and a download of
    ``size`` bytes (~rtt + size over the rate, each way; medians of :data:`CHECKS`)."""
    with contextlib.ExitStack() as stack:
        listener = stack.enter_context(socket.create_server(("127.0.0.1", 0)))
        stack.enter_context(_answering(listener, size))
        port = stack.enter_context(proxy(link, listener.getsockname()[1]))
        conn = stack.enter_context(socket.create_connection(("127.0.0.1", port)))
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        times = {kind: [_exchange(conn, kind, size) for _ in range(CHECKS)]
                 for kind in ("echo", "upload", "download")}  # fmt: skip
    return {kind: statistics.median(values) for kind, values in times.items()}


CHECKS = 3


def _exchange(conn: socket.socket, kind: str, size: int) -> float:
    """One request and its whole answer through ``conn``; seconds."""
    start = time.monotonic()
    request = {"echo": b"e", "upload": b"u" + bytes(size), "download": b"d"}[kind]
    conn.sendall(request)
    wanted = size if kind == "download" else 1
    while wanted:
        wanted -= len(conn.recv(min(wanted, 2**16)))
    return time.monotonic() - start


@contextlib.contextmanager
def _answering(listener: socket.socket, size: int) -> Iterator[None]:
    """Serves :func:`check`'s one connection on a thread."""

    def answer() -> None:
        conn, _ = listener.accept()
        with conn:
            while kind := conn.recv(1):
                if kind == b"u":
                    wanted = size
                    while wanted:
                        wanted -= len(conn.recv(min(wanted, 2**16)))
                conn.sendall(bytes(size) if kind == b"d" else b"k")

    thread = threading.Thread(target=answer, daemon=True)
    thread.start()
    yield


def main() -> None:
    first_paragraph = " ".join(__doc__.split("\n\n")[0].split())
    parser = argparse.ArgumentParser(description=first_paragraph)
    parser.add_argument("link", type=Link.parse, help="e.g. 150ms-10mbit")
    parser.add_argument("--target", type=int, required=True, help="the port to carry to")
    parser.add_argument("--port", type=int, default=0, help="the port to listen on (0: free)")
    args = parser.parse_args()

    async def run() -> None:
        ready: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        task = asyncio.create_task(serve(args.link, args.target, args.port, ready))
        print(f"port {await ready}", flush=True)
        await task

    asyncio.run(run())


if __name__ == "__main__":
    main()
