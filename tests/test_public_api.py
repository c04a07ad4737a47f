"""The public API: what the README and the notebooks import."""

from __future__ import annotations

import importlib
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
IMPORT = re.compile(r"^\s*from (agent_widget[\w.]*) import \(?([\w, ]+)\)?", re.MULTILINE)

PUBLIC = {
    "agent_widget": [
        "Arena",
        "CheckpointViewer",
        "CompareViewer",
        "EpisodeViewer",
        "Ladder",
        "RecordRollout",
        "Rollout",
        "RolloutFileError",
        "RunLibrary",
        "Step",
        "first_divergence",
        "load",
        "ratings",
        "record",
        "record_many",
        "record_vector",
        "save",
        "what_if",
    ],
    "agent_widget.episodes": ["Rollout", "RolloutFileError", "load", "save"],
    "agent_widget.recording": [
        "RecordRollout",
        "ReplayDivergenceError",
        "record",
        "record_vector",
        "render_frames",
    ],
    "agent_widget.panels": [
        "EpisodeData",
        "Panel",
        "PanelDecorator",
        "Step",
        "register",
        "registered",
        "unregister",
    ],
    "agent_widget.viewer": ["EpisodeViewer"],
    "agent_widget.compare": ["CompareViewer", "first_divergence", "what_if"],
    "agent_widget.arena": [
        "Arena",
        "ArenaBoard",
        "Ladder",
        "ratings",
        "wilson_interval",
        "win_rates",
    ],
    "agent_widget.library": ["Leaderboard", "Moments", "Recorded", "RunLibrary", "record_many"],
    "agent_widget.gridworld": ["Layout", "TrainingViewer", "ValueMap", "layout_of"],
    "agent_widget.torch": ["ActionBars", "Policy", "QValues", "Saliency", "mark_policy"],
    "agent_widget.checkpoints": [
        "CheckpointRecorder",
        "CheckpointViewer",
        "Checkpoints",
        "NetworkPanels",
        "Networks",
        "WeightsFileError",
        "load_weights",
        "read_weights",
        "render_frames",
        "save_weights",
    ],
    "agent_widget.sb3": ["RecordCheckpoints"],
}


def shown_imports() -> list[tuple[str, str, str]]:
    """(source, module, name) for every ``from agent_widget... import`` in the docs and demos."""
    texts = {"README.md": (ROOT / "README.md").read_text()}
    for page in sorted((ROOT / "docs").rglob("*.md")):
        texts[str(page.relative_to(ROOT))] = page.read_text()
    for notebook in sorted((ROOT / "notebooks").glob("*.ipynb")):
        cells = json.loads(notebook.read_text())["cells"]
        code = ["".join(cell["source"]) for cell in cells if cell["cell_type"] == "code"]
        texts[notebook.name] = "\n".join(code)
    found = []
    for source, text in texts.items():
        for module, names in IMPORT.findall(text):
            found += [(source, module, name.strip()) for name in names.split(",") if name.strip()]
    return found


@pytest.mark.parametrize("module", sorted(PUBLIC))
def test_each_package_exports_exactly_its_public_names(module):
    package = importlib.import_module(module)
    assert sorted(package.__all__) == sorted(PUBLIC[module])
    for name in PUBLIC[module]:
        assert getattr(package, name).__module__.startswith("agent_widget")


def test_the_readme_docs_and_notebooks_import_public_names_only():
    imports = shown_imports()
    assert len(imports) > 15  # the scan found the examples
    for source, module, name in imports:
        assert not any(part.startswith("_") for part in module.split(".")), (source, module)
        assert hasattr(importlib.import_module(module), name), (source, module, name)


def test_internal_modules_are_private():
    package = ROOT / "agent_widget"
    public_modules = {
        path.relative_to(package).as_posix()
        for path in package.rglob("*.py")
        if not path.name.startswith("_") and "static" not in path.parts
    }
    assert public_modules == {"agents.py"}
