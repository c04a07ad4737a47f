"""agent_widget_server in a real JupyterLab: a kernel's reply asked for soon after
another leaves the server at once, where a stock server holds it for the client's
delayed ACK (~40 ms: Nagle's algorithm, on by default in jupyter_server).

A kernel answers every request with a "busy" status, the reply and an "idle"
status. The test talks to each server's kernel websocket as JupyterLab does, asks
for kernel info twice in a row (the second 20 ms after the first's reply) and times
the second, on the session's server (the extension on, as the wheel installs it)
and on a stock one, taking turns; and counts the replies that waited 40 ms or more.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest
from jupyter_client.jsonutil import json_default
from jupyter_client.session import Session
from tornado.websocket import WebSocketClientConnection, websocket_connect

from harness.lab import Server

pytestmark = pytest.mark.e2e
PAIRS = 15
WARM_UP = 3  # untimed pairs first, while the kernels settle
GAP_S = 0.02
# Linux delays an ACK by 40 ms at least: a reply that waited for one took this long. A
# stock server holds some of the replies and not others (3 to 7 of 9 in probes here).
HELD_MS = 40
SESSION = Session()  # as JupyterLab, one client session for its messages


@pytest.fixture(scope="module")
def stock_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    server = Server(tmp_path_factory.mktemp("stock"), stock=True)
    yield server
    server.stop()


def test_a_reply_asked_for_right_after_another_is_not_held_for_the_clients_ack(
    server, stock_server
):
    # In a thread of its own: Playwright's sync API leaves an event loop running in this one.
    with ThreadPoolExecutor(1) as thread:
        servers = {"ours": server, "stock": stock_server}
        times = thread.submit(asyncio.run, interleaved(servers)).result()
    ours, stock = (sum(ms >= HELD_MS for ms in times[key]) for key in ("ours", "stock"))
    said = f"round trips (ms): { {key: [round(ms) for ms in v] for key, v in times.items()} }"
    assert stock >= 1, f"a stock server held no reply: this test cannot tell; {said}"
    assert ours <= 2, f"{ours} of {PAIRS} replies held, {stock} on a stock server; {said}"


async def interleaved(servers: dict[str, Server]) -> dict[str, list[float]]:
    kernels, sockets = {}, {}
    for key, server in servers.items():
        kernels[key] = server.api("POST", "kernels")["id"]
        sockets[key] = await kernel_socket(server, kernels[key])
    times: dict[str, list[float]] = {key: [] for key in servers}
    try:
        for i in range(WARM_UP + PAIRS):
            for key, socket in sockets.items():
                await kernel_info(socket)
                await asyncio.sleep(GAP_S)
                took = await kernel_info(socket)
                if i >= WARM_UP:
                    times[key].append(took)
    finally:
        for key, socket in sockets.items():
            socket.close()
            servers[key].api("DELETE", f"kernels/{kernels[key]}")
    return times


async def kernel_socket(server: Server, kernel: str) -> WebSocketClientConnection:
    """A new kernel's websocket, once the kernel answers (a request sent while it
    starts may go unanswered: asked again)."""
    url = server.url.replace("http", "ws") + f"/api/kernels/{kernel}/channels"
    socket = await websocket_connect(f"{url}?token={server.token}&session_id={SESSION.session}")
    for _ in range(12):
        with contextlib.suppress(TimeoutError):
            await kernel_info(socket, timeout=5)
            return socket
    raise AssertionError(f"the kernel did not answer:\n{server.log_tail()}")


async def kernel_info(socket: WebSocketClientConnection, timeout: float = 60) -> float:
    """Milliseconds from a kernel_info_request to its reply, once the kernel is idle
    again (its "idle" status may come before or after the reply)."""
    message = SESSION.msg("kernel_info_request")
    message["channel"] = "shell"
    start = time.perf_counter()
    await socket.write_message(json.dumps(message, default=json_default))
    replied, idle = None, False
    while replied is None or not idle:
        text = await asyncio.wait_for(socket.read_message(), timeout)
        assert isinstance(text, str), "the kernel websocket closed"
        answer = json.loads(text)
        if answer["parent_header"].get("msg_id") != message["header"]["msg_id"]:
            continue
        if answer["msg_type"] == "kernel_info_reply":
            replied = (time.perf_counter() - start) * 1000
        idle |= answer["msg_type"] == "status" and answer["content"]["execution_state"] == "idle"
    return replied
