"""A real ``tensorboard`` process on loopback serving a logdir, with the Agent plugin.

TensorBoard finds the plugin through the ``tensorboard_plugins`` entry point of the
installed package's metadata. A checkout whose editable install predates the entry
point (or points at another worktree) has none: then the process gets the entry point
as pyproject.toml declares it, in a metadata folder of its own on its ``PYTHONPATH``,
so TensorBoard finds it the way it finds an installed one.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.request
from importlib import metadata
from pathlib import Path
from typing import Any

import tomllib

from harness.process import ServerProcess, free_port

ROOT = Path(__file__).resolve().parent.parent
GROUP = "tensorboard_plugins"


class TensorBoard(ServerProcess):
    """``tensorboard --logdir <logdir> <args>`` on a free port, its log in ``folder``,
    ready (its plugins listed) when made."""

    def __init__(self, logdir: Path, folder: Path, *args: str, timeout: float = 120) -> None:
        self.logdir, self.port = logdir, free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        self.log = folder / f"tensorboard-{self.port}.log"
        paths = [str(ROOT), *_entry_point_folder(folder), os.environ.get("PYTHONPATH", "")]
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in paths if p)}
        command = [
            str(Path(sys.executable).with_name("tensorboard")),
            *("--logdir", str(logdir), "--port", str(self.port), "--host", "127.0.0.1"),
            *args,
        ]
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(command, stdout=log, stderr=log, env=env)
        deadline = time.monotonic() + timeout
        while (listing := self._listing()) is None:
            assert self.process.poll() is None, self.log_tail()
            assert time.monotonic() < deadline, self.log_tail()
            time.sleep(0.2)  # deliberate: the pause between two looks
        self.plugins = listing

    def _listing(self) -> dict[str, Any] | None:
        try:
            with urllib.request.urlopen(f"{self.url}data/plugins_listing", timeout=5) as reply:
                return dict(json.load(reply))
        except OSError:
            return None


def _entry_point_folder(folder: Path) -> list[str]:
    """A folder holding the plugin's entry point as package metadata, unless the
    installed package declares it already (then none)."""
    if metadata.entry_points(group=GROUP, name="agent"):
        return []
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())
    entries = declared["project"]["entry-points"][GROUP]
    info = folder / "entry-points" / "agent_widget_tensorboard_tests-0.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: agent-widget-tensorboard-tests\nVersion: 0\n"
    )
    lines = [f"[{GROUP}]", *(f"{name} = {value}" for name, value in entries.items())]
    (info / "entry_points.txt").write_text("\n".join(lines) + "\n")
    return [str(info.parent)]
