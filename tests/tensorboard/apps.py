"""TensorBoard's own WSGI app serving a logdir with the Agent plugin alone, and its
routes asked as the tab asks them, for the route tests."""

from __future__ import annotations

import argparse
from pathlib import Path

from tensorboard.backend.application import TensorBoardWSGIApp
from werkzeug.test import Client, TestResponse

from agent_widget.tensorboard import AgentLoader

ROUTES = "/data/plugin/agent"


def tensorboard(logdir: Path, agent_panels: str = "") -> Client:
    """The app TensorBoard would serve ``logdir`` with (``--agent_panels`` as given)."""
    flags = argparse.Namespace(
        logdir=str(logdir),
        path_prefix="",
        samples_per_plugin={},
        window_title="",
        agent_panels=agent_panels,
    )
    return Client(TensorBoardWSGIApp(flags, [AgentLoader]))


def get(client: Client, route: str, **params: str) -> TestResponse:
    return client.get(f"{ROUTES}/{route}", query_string=params)
