"""The package's structure as the tests see it: the tests' folders mirror its layers,
and the layers above the viewer use none of a viewer's private members (the docs'
checks are tests/test_docs.py)."""

from __future__ import annotations

import ast
from pathlib import Path

import anywidget
import numpy as np

from agent_widget.viewer import EpisodeViewer

ROOT = Path(__file__).parent.parent
PACKAGE = ROOT / "agent_widget"


def test_the_tests_mirror_the_package():
    """Each folder of tests/ is named for a layer of the package, or is one of the two
    that cross them (the browser tests, the harness' own), or holds the server
    extension's (agent_widget_server, beside the package); at the root, only the tests
    of the package as a whole."""
    layers = {path.parent.name for path in PACKAGE.glob("*/__init__.py")}
    folders = {path.parent.name for path in (ROOT / "tests").glob("*/__init__.py")}
    assert len(layers) >= 8  # the package was read
    assert folders - layers == {"e2e", "harness", "server"}
    at_root = {path.stem for path in (ROOT / "tests").glob("test_*.py")}
    whole = {"test_agents", "test_architecture", "test_docs", "test_notebooks", "test_public_api"}
    assert at_root == whole | {"test_makefile", "test_wheel_install"}, (
        "a layer's tests go in its folder"
    )


def viewer_private_names() -> set[str]:
    """The ``_`` names an EpisodeViewer has beyond any anywidget's: its own state and
    methods (``_episode``, ``_panels``, ``_lock``, ...), dunders aside."""
    viewer = EpisodeViewer(np.zeros((2, 4, 4, 3), np.uint8))
    plain = anywidget.AnyWidget()
    try:
        own = set(dir(viewer)) - set(dir(plain))
    finally:
        viewer.close()
        plain.close()
    return {name for name in own if name.startswith("_") and not name.startswith("__")}


def test_widgets_built_of_viewers_use_none_of_a_viewers_private_members():
    """The layers above the viewer use what viewer.ViewerParts names: no ``x._name`` where
    ``_name`` is an EpisodeViewer's own and ``x`` is not ``self`` (a widget's own
    ``self._lock`` is its business)."""
    private = viewer_private_names()
    assert {"_episode", "_panels", "_lock"} <= private  # the viewer was read
    found = []
    for layer in ("compare", "gridworld", "library", "checkpoints", "sb3"):
        for path in sorted((PACKAGE / layer).glob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                if not isinstance(node, ast.Attribute) or node.attr not in private:
                    continue
                if isinstance(node.value, ast.Name) and node.value.id == "self":
                    continue
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} .{node.attr}")
    assert not found, "a viewer's private members used outside it:\n" + "\n".join(found)


def test_no_module_is_over_450_lines():
    """A module holds one job; one that grows past this is split along its jobs."""
    lengths = {path: len(path.read_text().splitlines()) for path in PACKAGE.rglob("*.py")}
    assert len(lengths) > 100  # the package was read
    assert {str(p.relative_to(ROOT)): n for p, n in lengths.items() if n > 450} == {}
