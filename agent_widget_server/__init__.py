"""A Jupyter server extension: kernel websockets that send each message at once, and
notebooks saved without widget state that keep agent-widget's saved copies drawable
(:mod:`agent_widget_server._saved_views`).

jupyter_server leaves Nagle's algorithm on for its websockets (tornado's default). A
kernel answers a widget's message with a "busy" status, the reply and an "idle"
status; while the browser has not acknowledged "busy", the kernel's reply (any
message under one TCP segment, ~64 KB on loopback) waits in the server, and a
browser that exchanged messages in the last ~200 ms delays its acknowledgement by
~40 ms. So a chunk, a panel's card or an echo asked for soon after another took
~45 ms instead of ~8 on the same machine (benchmarks/RESULTS.md, "Inputs in quick
succession: the server extension"), and the stall is there on every link, near or far.

Loaded by JupyterLab, Notebook 7 and any jupyter_server application when agent-widget
is installed in the server's environment (the wheel enables it with
``etc/jupyter/jupyter_server_config.d/agent_widget_server.json``); it wraps whatever
kernel websocket connection class the server is configured with, so gateways and
other custom connections keep working. Turn it off with
``jupyter server extension disable agent_widget_server``. Voila run on its own
(``voila notebook.ipynb``) loads no server extensions; name the connection class
there: ``voila --Voila.kernel_websocket_connection_class=agent_widget_server.Connection``.

It lives outside ``agent_widget`` so that the server's process imports none of the
kernel-side package (numpy, gymnasium, anywidget).
"""

from __future__ import annotations

from typing import Any, TypeVar

from jupyter_server.services.kernels.connection.base import BaseKernelWebsocketConnection
from jupyter_server.services.kernels.connection.channels import ZMQChannelsWebsocketConnection

from agent_widget_server._saved_views import without_lost_views

__all__ = ["Connection", "without_nagle"]

Base = TypeVar("Base", bound=BaseKernelWebsocketConnection)


def _jupyter_server_extension_points() -> list[dict[str, str]]:
    return [{"module": "agent_widget_server"}]


def _load_jupyter_server_extension(serverapp: Any) -> None:
    serverapp.contents_manager.register_pre_save_hook(without_lost_views)
    settings = serverapp.web_app.settings
    connection = settings.get("kernel_websocket_connection_class")
    if connection is None:
        serverapp.log.warning("agent_widget_server: this server has no kernel websockets")
        return
    settings["kernel_websocket_connection_class"] = without_nagle(connection)
    serverapp.log.info("agent_widget_server: kernel websockets send each message at once")


def without_nagle(connection: type[Base]) -> type[Base]:
    """``connection`` (a jupyter_server kernel websocket connection class) whose
    websocket has Nagle's algorithm off (``TCP_NODELAY``) from the moment it connects.

    Examples:
        >>> quick = without_nagle(ZMQChannelsWebsocketConnection)
        >>> issubclass(quick, ZMQChannelsWebsocketConnection), quick.__name__
        (True, 'ZMQChannelsWebsocketConnectionWithoutNagle')
        >>> without_nagle(quick) is quick
        True
    """
    if getattr(connection, "_without_nagle", False):
        return connection

    class WithoutNagle(connection):  # type: ignore[valid-type,misc]
        _without_nagle = True

        def connect(self) -> Any:
            self.websocket_handler.set_nodelay(True)
            return super().connect()

    WithoutNagle.__name__ = WithoutNagle.__qualname__ = f"{connection.__name__}WithoutNagle"
    return WithoutNagle


Connection = without_nagle(ZMQChannelsWebsocketConnection)
"""jupyter_server's own kernel websocket connection, without Nagle's algorithm: for
applications configured by class name (standalone Voila)."""
