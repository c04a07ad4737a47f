"""TensorBoard's own WSGI app serving a logdir with the Agent plugin (and, where a test
needs it, the scalars dashboard), and its routes asked as the tab asks them."""

from __future__ import annotations

import argparse
from pathlib import Path

from tensorboard.backend.application import TensorBoardWSGIApp
from tensorboard.backend.event_processing.data_ingester import LocalDataIngester
from tensorboard.plugins.scalar.scalars_plugin import ScalarsPlugin
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


def tensorboard_with_scalars(logdir: Path, agent_panels: str = "") -> Client:
    """The app with TensorBoard's scalars dashboard beside the Agent plugin, reading the
    logdir's event files as ``tensorboard --logdir`` does (loaded once, at start)."""
    flags = argparse.Namespace(
        logdir=str(logdir),
        logdir_spec="",
        path_prefix="",
        samples_per_plugin={},
        window_title="",
        agent_panels=agent_panels,
        reload_interval=0,
        reload_task="blocking",
        reload_multifile=False,
        reload_multifile_inactive_secs=0,
        max_reload_threads=1,
        generic_data="auto",
        detect_file_replacement=False,
        purge_orphaned_data=True,
    )
    ingester = LocalDataIngester(flags)
    ingester.start()
    return Client(TensorBoardWSGIApp(flags, [AgentLoader, ScalarsPlugin], ingester.data_provider))


def get(client: Client, route: str, **params: str) -> TestResponse:
    return client.get(f"{ROUTES}/{route}", query_string=params)
