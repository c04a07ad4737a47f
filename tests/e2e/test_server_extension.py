"""agent_widget_server in a real JupyterLab: the server's end of a kernel websocket
sends each message at once (Nagle's algorithm off), where a stock server's holds a
reply asked for soon after another for the client's delayed ACK (~40 ms).

The test opens a kernel websocket as JupyterLab does, on the session's server (the
extension on, as the wheel installs it) and on a stock one, and reads ``TCP_NODELAY``
on the server's own socket, through a copy of its descriptor (``pidfd_getfd``, Linux
5.6+): a verdict the machine's speed cannot change. What the held replies cost is
measured by benchmarks/server_extension.py (RESULTS.md, "Inputs in quick succession").
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import json
import os
import socket
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest
from jupyter_client.jsonutil import json_default
from jupyter_client.session import Session
from tornado.websocket import WebSocketClientConnection, websocket_connect

from harness.lab import Server

pytestmark = pytest.mark.e2e
SESSION = Session()  # as JupyterLab, one client session for its messages
PIDFD_GETFD = 438  # the system call's number, the same on every Linux architecture
LIBC = ctypes.CDLL(None, use_errno=True)


@pytest.fixture(scope="module")
def stock_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    server = Server(tmp_path_factory.mktemp("stock"), stock=True)
    yield server
    server.stop()


def test_a_kernel_websocket_has_nagles_algorithm_off_where_a_stock_servers_has_it_on(
    server, stock_server
):
    # In a thread of its own: Playwright's sync API leaves an event loop running in this one.
    with ThreadPoolExecutor(1) as thread:
        nodelay = {
            key: thread.submit(asyncio.run, kernel_nodelay(s)).result()
            for key, s in {"ours": server, "stock": stock_server}.items()
        }
    assert nodelay == {"ours": True, "stock": False}


async def kernel_nodelay(server: Server) -> bool:
    """Whether the server's end of a new kernel's websocket has ``TCP_NODELAY`` set."""
    kernel = server.api("POST", "kernels")["id"]
    try:
        websocket = await kernel_socket(server, kernel)
        try:
            ours = websocket.protocol.stream.socket.getsockname()
            with server_end(server.process.pid, ours) as theirs:
                return bool(theirs.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
        finally:
            websocket.close()
    finally:
        server.api("DELETE", f"kernels/{kernel}")


async def kernel_socket(server: Server, kernel: str) -> WebSocketClientConnection:
    """A new kernel's websocket, once the kernel answers (the server has connected it
    then; a request sent while the kernel starts may go unanswered: asked again)."""
    url = server.url.replace("http", "ws") + f"/api/kernels/{kernel}/channels"
    websocket = await websocket_connect(f"{url}?token={server.token}&session_id={SESSION.session}")
    for _ in range(12):
        with contextlib.suppress(TimeoutError):
            await kernel_info(websocket, timeout=5)
            return websocket
    raise AssertionError(f"the kernel did not answer:\n{server.log_tail()}")


async def kernel_info(websocket: WebSocketClientConnection, timeout: float) -> None:
    """Ask for kernel info and wait for the reply."""
    message = SESSION.msg("kernel_info_request")
    message["channel"] = "shell"
    await websocket.write_message(json.dumps(message, default=json_default))
    while True:
        text = await asyncio.wait_for(websocket.read_message(), timeout)
        assert isinstance(text, str), "the kernel websocket closed"
        answer = json.loads(text)
        ours = answer["parent_header"].get("msg_id") == message["header"]["msg_id"]
        if ours and answer["msg_type"] == "kernel_info_reply":
            return


def server_end(pid: int, peer: tuple[str, int]) -> socket.socket:
    """A copy of the socket of process ``pid`` that is connected to ``peer``."""
    pidfd = os.pidfd_open(pid)
    try:
        for fd in socket_fds(pid):
            try:
                copy = socket.socket(fileno=copied_fd(pidfd, fd))
            except OSError:  # closed since it was listed
                continue
            with contextlib.suppress(OSError):  # not connected: a listener, a datagram socket
                if copy.getpeername() == peer:
                    return copy
            copy.close()
    finally:
        os.close(pidfd)
    raise AssertionError(f"no socket of process {pid} is connected to {peer}")


def socket_fds(pid: int) -> list[int]:
    """The descriptors of process ``pid`` that are sockets."""
    found = []
    for fd in os.listdir(f"/proc/{pid}/fd"):
        with contextlib.suppress(FileNotFoundError):  # closed since it was listed
            if os.readlink(f"/proc/{pid}/fd/{fd}").startswith("socket:"):
                found.append(int(fd))
    return found


def copied_fd(pidfd: int, fd: int) -> int:
    """A copy in this process of descriptor ``fd`` of the process ``pidfd`` refers to."""
    copy = LIBC.syscall(PIDFD_GETFD, pidfd, fd, 0)
    if copy < 0:
        raise OSError(ctypes.get_errno(), f"pidfd_getfd of descriptor {fd}")
    return copy
