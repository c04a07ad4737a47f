"""``AgentLoader``: how TensorBoard makes the Agent plugin, with the ``--agent_panels`` flag.

``tensorboard --logdir runs/ --agent_panels my_panels.py`` runs ``my_panels.py`` once,
as TensorBoard starts, in TensorBoard's process: a module registering panels as a
notebook does (``agent_widget.panels.register``), which every episode the tab opens
then shows as cards. The file is the operator's own, named on the command line, never
one found in the logdir. One that fails to run does not stop TensorBoard: the tab says
what went wrong, and shows the episodes without those cards. A ``model`` the file
defines gives checkpoints' episodes the cards of their own networks
(:mod:`agent_widget.tensorboard._network_cards`).
"""

from __future__ import annotations

import argparse
import logging
import runpy
from typing import Any

from tensorboard.plugins import base_plugin

from agent_widget.tensorboard._plugin import AgentPlugin

_log = logging.getLogger(__name__)


class AgentLoader(base_plugin.TBLoader):
    """Adds ``--agent_panels`` to TensorBoard's flags and makes the plugin."""

    def define_flags(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "--agent_panels",
            metavar="FILE",
            default="",
            help="Agent tab: a Python file registering panels (agent_widget.panels.register) "
            "whose cards show beside each episode's frame",
        )

    def load(self, context: base_plugin.TBContext) -> AgentPlugin:
        path = getattr(context.flags, "agent_panels", "") if context.flags is not None else ""
        problem, model = run_panels_file(path) if path else (None, None)
        return AgentPlugin(context, problem, model)


def run_panels_file(path: str) -> tuple[str | None, Any]:
    """Run the panels file ``path``: what went wrong (None, or a sentence for the tab
    to say), and the ``model`` it defines (None if none), whose checkpoints' weights
    give a checkpoint's episode its network's cards."""
    try:
        names = runpy.run_path(path, run_name="agent_panels")
    except BaseException as error:  # the user's file, a SystemExit included: TB still starts
        _log.exception("agent plugin: the panels file %s failed", path)
        return f"the panels file {path} failed: {type(error).__name__}: {error}"[:1000], None
    return None, names.get("model")
