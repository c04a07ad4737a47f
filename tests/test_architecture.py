"""docs/architecture.md's table names every module of the package, in its layer; the
layers above the viewer use none of a viewer's private members."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import anywidget
import numpy as np

from agent_widget.viewer import EpisodeViewer

ROOT = Path(__file__).parent.parent
PACKAGE = ROOT / "agent_widget"


def documented_modules() -> set[str]:
    """``layer/module`` for each module the table names (``agents`` for the bottom row)."""
    found, layer = set(), ""
    for line in (ROOT / "docs" / "architecture.md").read_text().splitlines():
        cells = [cell.strip() for cell in line.split("|")[1:-1]]
        if len(cells) != 3 or cells[0] == "layer" or re.fullmatch(r"-+", cells[0]):
            continue
        if cells[0].startswith("**"):
            layer = cells[0].strip("*")
        elif cells[0] == "(bottom)":
            layer = ""
        for module in re.findall(r"`(\w+)`", cells[1]):
            found.add(f"{layer}/{module}" if layer else module)
    return found


def package_modules() -> set[str]:
    """``layer/module`` for each module of a layer, and the top-level modules but ``__init__``."""
    modules = {path.stem for path in PACKAGE.glob("*.py") if path.stem != "__init__"}
    for path in PACKAGE.glob("*/_*.py"):
        if path.stem != "__init__":
            modules.add(f"{path.parent.name}/{path.stem}")
    return modules


def test_the_architecture_table_names_every_module_and_no_other():
    documented, actual = documented_modules(), package_modules()
    assert len(documented) > 60  # the table was read
    assert actual - documented == set(), "modules missing from docs/architecture.md"
    assert documented - actual == set(), "docs/architecture.md names modules that are gone"


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
    whole = {"test_agents", "test_architecture", "test_notebooks", "test_public_api"}
    assert at_root == whole | {"test_wheel_install"}, "a layer's tests go in its folder"


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
