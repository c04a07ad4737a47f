"""Driving a real JupyterLab or Notebook 7 in Debian's Chromium: server, notebook page,
widget view.

One server of each front end per test session (server, kernels and browser share
two cores). Notebook 7 is built from JupyterLab's components and, like JupyterLab
with ``--expose-app-in-browser``, exposes its application as ``window.jupyterapp``
with the same shell, notebook panel and commands; so one harness drives both and
only the page that opens a notebook differs. Each test module writes its notebook
afresh (JupyterLab would otherwise restore stale outputs that satisfy waits), opens
it (in JupyterLab in its own workspace), runs all cells with the command
``notebook:run-all-cells`` and then talks to the same kernel directly for later
code (``viewer.step = 40``, reading ``viewer.step`` back).
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import json
import os
import secrets
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import nbformat
from playwright.sync_api import Locator, Page

from harness.process import ServerProcess, free_port
from harness.views import View, WatchedPage

__all__ = ["NOTEBOOK7", "Notebook", "Server", "View", "opened"]

# User settings for the isolated server: keep every cell in the DOM, no news
# pop-ups, no autosave (the notebooks are throwaway).
SETTINGS = {
    "@jupyterlab/notebook-extension/tracker": {"windowingMode": "none"},
    "@jupyterlab/apputils-extension/notification": {"fetchNews": "false", "checkForUpdates": False},
    "@jupyterlab/docmanager-extension/plugin": {"autosave": False},
}


class FrontEnd(NamedTuple):
    """A Jupyter front end: its name, the module that serves it (``python -m``) and the
    page that opens notebook ``{name}`` (``{stem}``: the name without its suffix),
    logged in with ``{token}``."""

    name: str
    module: str
    page: str


# JupyterLab opens each notebook in a workspace of its own, reset so no stale layout
# is restored.
LAB = FrontEnd("JupyterLab", "jupyterlab", "lab/workspaces/{stem}/tree/{name}?token={token}&reset")
NOTEBOOK7 = FrontEnd("Notebook 7", "notebook", "notebooks/{name}?token={token}")


class Server(ServerProcess):
    """A JupyterLab or Notebook 7 server on 127.0.0.1 whose config, settings and runtime
    live in ``root``; with ``stock``, without agent-widget's server extension
    (agent_widget_server), as a server where agent-widget is only in the kernel's
    environment runs."""

    def __init__(self, root: Path, front_end: FrontEnd = LAB, stock: bool = False) -> None:
        self.front_end = front_end
        self.notebooks = root / "notebooks"
        self.notebooks.mkdir(parents=True)
        self.token = secrets.token_hex(16)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        for name, values in SETTINGS.items():
            path = root / "settings" / f"{name}.jupyterlab-settings"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(values))
        if stock:
            config = root / "config" / "jupyter_server_config.json"
            config.parent.mkdir(parents=True)
            extensions = {"jpserver_extensions": {"agent_widget_server": False}}
            config.write_text(json.dumps({"ServerApp": extensions}))
        env = dict(os.environ)
        for var, sub in [
            ("JUPYTER_CONFIG_DIR", "config"),
            ("JUPYTERLAB_SETTINGS_DIR", "settings"),
            ("JUPYTERLAB_WORKSPACES_DIR", "workspaces"),
            ("JUPYTER_RUNTIME_DIR", "runtime"),
            ("IPYTHONDIR", "ipython"),
            ("XDG_RUNTIME_DIR", "xdg"),  # else SDL (pygame's renders) prints an error in cells
        ]:
            env[var] = str(root / sub)
        (root / "xdg").mkdir(mode=0o700, exist_ok=True)
        self.log = root / "server.log"
        command = [
            sys.executable, "-m", front_end.module, "--no-browser", "--allow-root",
            "--ip=127.0.0.1", f"--port={self.port}", "--ServerApp.port_retries=0",
            f"--IdentityProvider.token={self.token}", f"--ServerApp.root_dir={self.notebooks}",
            "--expose-app-in-browser",
        ]  # fmt: skip
        with self.log.open("wb") as log:
            self.process = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)
        self._wait_ready()

    def api(self, method: str, path: str) -> Any:
        request = urllib.request.Request(
            f"{self.url}/api/{path}",
            method=method,
            headers={"Authorization": f"token {self.token}"},
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            body = response.read()
        return json.loads(body) if body else None

    def page_url(self, name: str) -> str:
        """The page of the front end that opens notebook ``name``, logged in."""
        page = self.front_end.page.format(name=name, stem=Path(name).stem, token=self.token)
        return f"{self.url}/{page}"

    def shut_down_kernels(self) -> None:
        for session in self.api("GET", "sessions"):
            self.api("DELETE", f"sessions/{session['id']}")

    def _wait_ready(self, timeout: float = 90) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.front_end.name} exited early:\n{self.log_tail()}")
            with contextlib.suppress(OSError):
                self.api("GET", "status")
                return
            time.sleep(0.25)  # deliberate: the pause between two looks
        raise RuntimeError(
            f"{self.front_end.name} did not answer within {timeout} s:\n{self.log_tail()}"
        )


def through(server: Server, port: int) -> Server:
    """``server`` as the browser reaches it through the far-link proxy on ``port``."""
    far = copy.copy(server)
    far.url = f"http://127.0.0.1:{port}"
    return far


class Notebook(WatchedPage):
    """A notebook written afresh, opened in the server's front end, with all its cells run
    (unless ``run`` is False: a notebook saved with its outputs, opened as it is)."""

    def __init__(
        self,
        server: Server,
        page: Page,
        name: str,
        cells: Sequence[str] | nbformat.NotebookNode,
        run: bool = True,
    ) -> None:
        super().__init__(page)
        self.server, self.name = server, name
        notebook = cells if isinstance(cells, nbformat.NotebookNode) else new_notebook(cells)
        nbformat.write(notebook, server.notebooks / name)
        page.goto(server.page_url(name))
        self.wait_for(
            """(name) => {
                const panel = window.jupyterapp?.shell?.currentWidget;
                const kernel = panel?.sessionContext?.session?.kernel;
                return panel?.context?.path === name && kernel?.status === "idle";
            }""",
            name,
            timeout=90,
            what="the notebook to open with an idle kernel",
        )
        if not run:
            return
        ok = page.evaluate(
            "async () => await window.jupyterapp.commands.execute('notebook:run-all-cells')"
        )
        errors = self.cell_errors()
        assert not errors, f"running {name} failed:\n" + "\n".join(errors)
        assert ok, f"running {name} stopped early\n{self.console_tail()}"

    def cell_errors(self) -> list[str]:
        """The error outputs of all cells, as text."""
        cells = self.page.evaluate(
            "() => window.jupyterapp.shell.currentWidget.content.model.toJSON().cells"
        )
        return [
            f"cell {i}: {out['ename']}: {out['evalue']}"
            for i, cell in enumerate(cells)
            for out in cell.get("outputs", [])
            if out["output_type"] == "error"
        ]

    def execute(self, code: str) -> str:
        """Run ``code`` in the notebook's kernel (not as a cell); return its stdout."""
        run = self.start(code)
        return run.wait()

    def start(self, code: str) -> Execution:
        """Start running ``code`` in the notebook's kernel without waiting for it."""
        return Execution(self, code)

    @contextlib.contextmanager
    def held(self, code: str) -> Iterator[Execution]:
        """Run ``code`` in the kernel, which then stays busy until the block ends: what the
        block sees reached the browser while the kernel could answer nothing. The cell
        waits on a connection the block never accepts, and goes on when it is closed."""
        with socket.create_server(("127.0.0.1", 0)) as release:
            port = release.getsockname()[1]
            run = self.start(
                f"""{code}
import contextlib as _contextlib, socket as _socket
with _contextlib.suppress(OSError):
    _socket.create_connection(("127.0.0.1", {port})).recv(1)"""
            )
            yield run
        run.wait()

    def python(self, expression: str) -> Any:
        """The value of a Python expression in the kernel, through JSON."""
        return json.loads(self.execute(f"import json as _j; print(_j.dumps({expression}))"))

    def widgets(self, cell: int) -> Locator:
        """The widget views in the output of cell ``cell`` (0-based)."""
        return self.page.locator(".jp-Notebook .jp-Cell").nth(cell).locator(".agent-widget")

    def view(self, cell: int, nth: int = 0) -> View:
        root = self.widgets(cell).nth(nth)
        root.wait_for(timeout=30_000)
        return View(self, root)

    def close(self) -> None:
        self.server.shut_down_kernels()
        self.page.close()


class Execution:
    """Code running in the kernel, started from the page so widget messages flow as usual."""

    _START = """([id, code]) => {
        const kernel = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
        const run = (window.__awRuns ??= {})[id] = {done: false, out: "", error: null};
        const future = kernel.requestExecute({code, stop_on_error: true});
        future.onIOPub = (msg) => {
            const c = msg.content;
            if (msg.header.msg_type === "stream") run.out += c.text;
            if (msg.header.msg_type === "error") run.error = c.traceback.join("\\n");
        };
        const finish = (error) => { run.error ??= error; run.done = true; };
        future.done.then(() => finish(null), (e) => finish(String(e)));
    }"""

    def __init__(self, notebook: Notebook, code: str) -> None:
        self.notebook, self.id = notebook, secrets.token_hex(4)
        notebook.page.evaluate(self._START, [self.id, code])

    @property
    def done(self) -> bool:
        return bool(self.notebook.page.evaluate("(id) => window.__awRuns[id].done", self.id))

    def wait(self, timeout: float = 60) -> str:
        self.notebook.wait_for(
            "(id) => window.__awRuns[id].done", self.id, timeout=timeout, what="code to run"
        )
        run = self.notebook.page.evaluate("(id) => window.__awRuns[id]", self.id)
        assert run["error"] is None, f"kernel error:\n{run['error']}"
        return str(run["out"])


def new_notebook(cells: Sequence[str]) -> nbformat.NotebookNode:
    """A Python notebook of code cells."""
    return nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_code_cell(source) for source in cells],
        metadata={
            "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}
        },
    )


def rgb_sha256(frame: Any) -> str:
    return hashlib.sha256(frame.tobytes()).hexdigest()


@contextlib.contextmanager
def opened(
    server: Server,
    page: Page,
    name: str,
    cells: Sequence[str] | nbformat.NotebookNode,
    run: bool = True,
) -> Iterator[Notebook]:
    notebook = Notebook(server, page, name, cells, run)
    try:
        yield notebook
    finally:
        notebook.close()
