"""agent_widget_server without a browser: the connection class it wraps turns Nagle's
algorithm off on the server's end of a real websocket, which a stock connection leaves
on. A tornado server in the test holds the websocket; the verdict reads ``TCP_NODELAY``
on its socket, so the machine's speed cannot change it (tests/e2e/test_server_extension.py
checks the same in a real JupyterLab)."""

from __future__ import annotations

import asyncio
import socket
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace
from typing import Any

import pytest
from jupyter_server.services.contents.filemanager import FileContentsManager
from jupyter_server.services.kernels.connection.base import BaseKernelWebsocketConnection
from jupyter_server.services.kernels.connection.channels import ZMQChannelsWebsocketConnection
from tornado.httpserver import HTTPServer
from tornado.netutil import bind_sockets
from tornado.web import Application
from tornado.websocket import WebSocketHandler, websocket_connect

import agent_widget_server
from agent_widget_server import without_nagle
from agent_widget_server._saved_views import without_lost_views


class Bare(BaseKernelWebsocketConnection):
    """A kernel websocket connection with no kernel behind it."""

    async def connect(self) -> None:
        pass


class Handler(WebSocketHandler):
    """Connects its connection class as jupyter_server's kernel handler does, on open,
    then answers with TCP_NODELAY as its own socket has it."""

    def initialize(self, connection: type[BaseKernelWebsocketConnection]) -> None:
        self.connection_class = connection

    async def open(self, *args: Any, **kwargs: Any) -> None:
        await self.connection_class(websocket_handler=self).connect()
        sock = self.ws_connection.stream.socket  # type: ignore[union-attr]
        self.write_message(str(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)))


async def server_nodelay(connection: type[BaseKernelWebsocketConnection]) -> int:
    [listening] = bind_sockets(0, "127.0.0.1", family=socket.AF_INET)
    server = HTTPServer(Application([("/ws", Handler, {"connection": connection})]))
    server.add_sockets([listening])
    try:
        client = await websocket_connect(f"ws://127.0.0.1:{listening.getsockname()[1]}/ws")
        reply = await client.read_message()
        client.close()
        return int(reply)  # type: ignore[arg-type]
    finally:
        server.stop()


def apart(coroutine: Any) -> Any:
    """``asyncio.run`` on a thread of its own: the browser tests leave an event loop
    running on this one (Playwright's), where ``asyncio.run`` refuses to start."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def test_a_wrapped_connection_turns_nagle_off_on_the_servers_socket():
    assert apart(server_nodelay(without_nagle(Bare))) == 1


def test_a_stock_connection_leaves_nagle_on():  # the control: tornado's default
    assert apart(server_nodelay(Bare)) == 0


def test_the_extension_wraps_the_configured_connection_class(tmp_path):
    settings: dict[str, Any] = {"kernel_websocket_connection_class": ZMQChannelsWebsocketConnection}
    log = SimpleNamespace(info=lambda *a: None, warning=pytest.fail)
    contents = FileContentsManager(root_dir=str(tmp_path))
    app = SimpleNamespace(
        web_app=SimpleNamespace(settings=settings), log=log, contents_manager=contents
    )
    agent_widget_server._load_jupyter_server_extension(app)
    wrapped = settings["kernel_websocket_connection_class"]
    assert issubclass(wrapped, ZMQChannelsWebsocketConnection)
    assert wrapped is without_nagle(wrapped)  # wrapped once, however often loaded
    assert without_lost_views in contents._pre_save_hooks  # and saved notebooks kept drawable
