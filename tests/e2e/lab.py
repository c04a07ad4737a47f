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
from playwright.sync_api import ElementHandle, Locator, Page

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
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


class Server:
    """A JupyterLab or Notebook 7 server on 127.0.0.1 whose config, settings and runtime
    live in ``root``."""

    def __init__(self, root: Path, front_end: FrontEnd = LAB) -> None:
        self.front_end = front_end
        self.notebooks = root / "notebooks"
        self.notebooks.mkdir(parents=True)
        self.token = secrets.token_hex(16)
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        for name, values in SETTINGS.items():
            path = root / "settings" / f"{name}.jupyterlab-settings"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(values))
        env = dict(os.environ)
        for var, sub in [
            ("JUPYTER_CONFIG_DIR", "config"),
            ("JUPYTERLAB_SETTINGS_DIR", "settings"),
            ("JUPYTERLAB_WORKSPACES_DIR", "workspaces"),
            ("JUPYTER_RUNTIME_DIR", "runtime"),
            ("IPYTHONDIR", "ipython"),
        ]:
            env[var] = str(root / sub)
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

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def _wait_ready(self, timeout: float = 90) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.front_end.name} exited early:\n{self.log_tail()}")
            with contextlib.suppress(OSError):
                self.api("GET", "status")
                return
            time.sleep(0.25)
        raise RuntimeError(
            f"{self.front_end.name} did not answer within {timeout} s:\n{self.log_tail()}"
        )

    def log_tail(self, lines: int = 40) -> str:
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])


class Notebook:
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
        self.server, self.page, self.name = server, page, name
        self.console: list[str] = []
        page.on("console", lambda m: self.console.append(f"{m.type}: {m.text}"))
        page.on("pageerror", lambda e: self.console.append(f"pageerror: {e}"))
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

    def wait_for(
        self, script: str, arg: Any = None, *, timeout: float = 30, what: str = "a condition"
    ) -> Any:
        """Wait until ``script(arg)`` is truthy in the page; fail with the page's console."""
        try:
            return self.page.wait_for_function(script, arg=arg, timeout=timeout * 1000).json_value()
        except Exception as error:
            raise AssertionError(
                f"timed out waiting for {what}: {error}\n{self.console_tail()}"
            ) from None

    def wait_until(self, predicate: Any, *, timeout: float = 30, what: str = "a condition") -> Any:
        """Poll a Python-side ``predicate`` until it returns something truthy."""
        deadline = time.monotonic() + timeout
        while True:
            value = predicate()
            if value or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        assert value, f"timed out waiting for {what}\n{self.console_tail()}"
        return value

    def console_tail(self, lines: int = 30) -> str:
        return "browser console:\n" + "\n".join(self.console[-lines:])

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


class View:
    """One displayed EpisodeViewer, found by the DOM contract's class names."""

    def __init__(self, notebook: Notebook, root: Locator) -> None:
        self.notebook, self.root = notebook, root

    @property
    def handle(self) -> ElementHandle:
        handle = self.root.element_handle()
        assert handle is not None
        return handle

    def painted_step(self) -> int | None:
        value = self.root.get_attribute("data-painted-step")
        return None if value is None else int(value)

    def wait_painted(self, t: int, timeout: float = 30) -> None:
        self.notebook.wait_for(
            "([el, t]) => el.getAttribute('data-painted-step') === String(t)",
            [self.handle, t],
            timeout=timeout,
            what=f"step {t} to be painted (painted: {self.painted_step()})",
        )

    def canvas(self) -> dict[str, Any]:
        """The painted step and the canvas's size, opacity and SHA-256 of its RGB bytes,
        read in one go so playback cannot change the canvas in between."""
        return self.root.evaluate(
            """async (root) => {
                const step = root.getAttribute("data-painted-step");
                const canvas = root.querySelector("canvas.aw-frame");
                const {width, height} = canvas;
                const rgba = canvas.getContext("2d").getImageData(0, 0, width, height).data;
                const rgb = new Uint8Array(width * height * 3);
                let opaque = true;
                for (let i = 0, j = 0; i < rgba.length; i += 4, j += 3) {
                    rgb[j] = rgba[i]; rgb[j + 1] = rgba[i + 1]; rgb[j + 2] = rgba[i + 2];
                    opaque &&= rgba[i + 3] === 255;
                }
                const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", rgb));
                const sha256 = Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
                return {step: step === null ? null : Number(step), width, height, opaque, sha256};
            }"""
        )

    def card(self, name: str) -> Locator:
        """The card of panel ``name``."""
        return self.root.locator(f'div.aw-card[data-name="{name}"]')

    def wait_card(self, name: str, t: int, kind: str) -> dict[str, Any]:
        """Waits until card ``name`` shows the current step ``t`` as ``kind``; its data
        attributes."""
        self.notebook.wait_for(
            """([el, t, kind]) => el.dataset.step === String(t) && el.dataset.current === "true"
                && el.dataset.kind === kind""",
            [self.card(name).element_handle(), t, kind],
            what=f"card {name!r} to show step {t} as {kind}",
        )
        return dict(self.card(name).evaluate("(el) => ({...el.dataset})"))

    def slider(self) -> Locator:
        return self.root.locator("input.aw-slider[type=range]")

    def slide_to(self, t: int) -> None:
        """Move the slider as a user would: set its value and fire ``input``."""
        self.slider().evaluate(
            """(el, t) => {
                el.value = String(t);
                el.dispatchEvent(new Event("input", {bubbles: true}));
            }""",
            t,
        )

    def press(self, *keys: str) -> None:
        self.root.focus()
        for key in keys:
            self.root.press(key)

    def readout(self) -> str:
        return self.root.locator("pre.aw-readout").inner_text()


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


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


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
