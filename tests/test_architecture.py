"""The tests' folders mirror the package's layers (the docs' checks are tests/test_docs.py)."""

from __future__ import annotations

from pathlib import Path

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
    assert at_root == whole | {"test_wheel_install"}, "a layer's tests go in its folder"
