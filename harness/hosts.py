"""Voila and marimo, the anywidget hosts that are not JupyterLab, served headless on
127.0.0.1 for the browser tests (one server of each per test session).

Voila runs a notebook and shows its outputs, with a live kernel behind them, at
``/``; ``marimo run`` serves an app, each browser tab running it in a session of
its own. Their config and runtime folders live in the server's temporary root.
"""

from __future__ import annotations

import ast
import contextlib
import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import nbformat
from playwright.sync_api import Page

from harness.lab import new_notebook
from harness.process import ServerProcess, free_port


class HostServer(ServerProcess):
    """A server process on 127.0.0.1 whose log is kept in ``root``, answering at ``url``."""

    name = "server"

    def __init__(self, root: Path, command: list[str]) -> None:
        self.root = root
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        env = dict(os.environ, SDL_VIDEODRIVER="dummy")
        for var, sub in [
            ("JUPYTER_CONFIG_DIR", "config"),
            ("JUPYTER_RUNTIME_DIR", "runtime"),
            ("IPYTHONDIR", "ipython"),
            ("MARIMO_CONFIG_DIR", "marimo"),
            ("XDG_CONFIG_HOME", "xdg-config"),
            ("XDG_CACHE_HOME", "xdg-cache"),
        ]:
            env[var] = str(root / sub)
        self.log = root / "server.log"
        with self.log.open("wb") as log:
            self.process = subprocess.Popen(
                [arg.format(port=self.port) for arg in command],
                cwd=root,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        self._wait_listening()

    def open(self, page: Page) -> None:
        """Opens the app in ``page``, its widgets shown once they are drawn."""
        page.goto(self.url, timeout=90_000)

    def _wait_listening(self, timeout: float = 90) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.name} exited early:\n{self.log_tail()}")
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port)):
                return
            time.sleep(0.25)  # deliberate: the pause between two looks
        raise RuntimeError(f"{self.name} did not listen within {timeout} s:\n{self.log_tail()}")


class VoilaServer(HostServer):
    """``voila notebook.ipynb``: the notebook of ``cells``, run when the page opens; with
    the kernel websocket connection the docs tell standalone Voila users to name
    (agent_widget_server: no Nagle's algorithm), as it loads no server extensions."""

    name = "Voila"

    def __init__(self, root: Path, cells: Sequence[str]) -> None:
        nbformat.write(new_notebook(cells), root / "app.ipynb")
        command = [
            sys.executable, "-m", "voila", "app.ipynb", "--no-browser", "--port={port}",
            "--Voila.ip=127.0.0.1", "--Voila.port_retries=0", "--show_tracebacks=True",
            "--Voila.kernel_websocket_connection_class=agent_widget_server.Connection",
        ]  # fmt: skip
        super().__init__(root, command)


class MarimoServer(HostServer):
    """``marimo run app.py`` (or ``marimo edit``, the editor, which runs the cells when
    the page opens): an app of ``cells`` (each a marimo cell function's body)."""

    name = "marimo"

    def __init__(self, root: Path, cells: Sequence[str], mode: str = "run") -> None:
        (root / "app.py").write_text(marimo_app(cells))
        self.name = f"marimo {mode}"
        # The editor leaves the cells unrun when it opens unless told (marimo 0.25).
        config = root / "xdg-config" / "marimo" / "marimo.toml"
        config.parent.mkdir(parents=True)
        config.write_text("[runtime]\nauto_instantiate = true\n")
        command = [
            sys.executable, "-m", "marimo", mode, "app.py", "--headless",
            "--port={port}", "--host=127.0.0.1", "--no-token",
        ]  # fmt: skip
        super().__init__(root, command)


def marimo_app(cells: Sequence[str]) -> str:
    """A marimo app file whose cells are ``cells``, in order.

    Each cell is a function body; marimo wires cells by the names they define and
    use, so a cell's parameters are the names the earlier cells defined that it
    reads, and it returns the names it defines (for the later ones).
    """
    lines = ["import marimo", "", "app = marimo.App()", ""]
    for i, body in enumerate(cells):
        defined = _defined(cells[:i])
        used = sorted(name for name in defined if name in _words(body))
        mine = _defined([body])
        lines += ["", "@app.cell", f"def _({', '.join(used)}):"]
        lines += [f"    {line}" if line else "" for line in body.splitlines()]
        lines += [f"    return ({', '.join(mine)},)" if mine else "    return", ""]
    lines += ["", 'if __name__ == "__main__":', "    app.run()", ""]
    return "\n".join(lines)


def _defined(bodies: Sequence[str]) -> list[str]:
    """The names assigned or imported at the top level of ``bodies`` (no indentation)."""
    names: list[str] = []
    for body in bodies:
        for node in ast.parse(body).body:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names += [(alias.asname or alias.name).split(".")[0] for alias in node.names]
            elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                names.append(node.name)
            elif isinstance(node, ast.Assign):
                names += [t.id for t in node.targets if isinstance(t, ast.Name)]
    return [name for name in dict.fromkeys(names) if not name.startswith("_")]


def _words(text: str) -> set[str]:
    return set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text))
