"""Makes docs/screenshot.png, the README's picture: the Pong saliency notebook's viewer.

Runs notebooks/atari_saliency.ipynb (its code cells up to the viewer) in a JupyterLab
started for the purpose (harness/lab.py), moves the viewer to a step in mid-rally,
waits for the policy card and the perturbation-saliency overlay, hides the gradient
overlay so that one map shows, and screenshots the viewer's cell. ``make screenshot``
runs it; it takes a few minutes, since the notebook trains its network first.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # harness

from harness.chromium import chromium  # noqa: E402
from harness.lab import Server, opened  # noqa: E402

NOTEBOOK = ROOT / "notebooks" / "atari_saliency.ipynb"
TARGET = ROOT / "docs" / "screenshot.png"


def viewer_cells() -> list[str]:
    """The notebook's code cells, up to the one that displays the viewer."""
    cells = [c.source for c in nbformat.read(NOTEBOOK, as_version=4).cells if c.cell_type == "code"]
    last = next(i for i, source in enumerate(cells) if source.strip().endswith("\nviewer"))
    return [f"import os; os.chdir({str(NOTEBOOK.parent)!r})", *cells[: last + 1]]


def main() -> None:
    cells = viewer_cells()
    with tempfile.TemporaryDirectory() as folder, chromium() as browser:
        server = Server(Path(folder))
        try:
            page = browser.new_context(viewport={"width": 1500, "height": 1400}).new_page()
            page.set_default_timeout(600_000)  # the notebook trains for minutes under load
            with opened(server, page, "pong.ipynb", cells) as notebook:
                view = notebook.view(len(cells) - 1)
                t = int(notebook.python("rollout.num_steps // 2"))
                view.slide_to(t)
                view.wait_painted(t)
                view.card("gradient saliency").locator("button.aw-hide").click()
                view.wait_card("policy", t, "bars")
                view.wait_card("perturbation saliency", t, "heatmap")
                page.evaluate(
                    "() => { window.jupyterapp.shell.currentWidget.content.activeCellIndex = 0; }"
                )
                page.mouse.move(0, 0)
                cell = page.locator(".jp-Notebook .jp-Cell").nth(len(cells) - 1)
                cell.scroll_into_view_if_needed()
                cell.locator(".jp-OutputArea").screenshot(path=str(TARGET))
        finally:
            server.stop()
    print(f"wrote {TARGET.relative_to(ROOT)} ({TARGET.stat().st_size / 1024:.0f} KB)")


if __name__ == "__main__":
    main()
