"""A pip user's first five minutes: the built wheel, installed alone into a fresh venv
(no system site-packages, dependencies from PyPI), runs the README's first snippet
and records a CartPole episode with frames. And the version a build gets: the git tag's.

Slow (a wheel build and a fresh install; mostly waiting on the network), so it is
marked ``wheel`` and ``make test`` runs it beside the rest of the suite.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import venv
from pathlib import Path

import pytest

pytestmark = pytest.mark.wheel

ROOT = Path(__file__).parent.parent
CHECK = """
# The test's own lines, after the README's snippet:
import numpy as np
from agent_widget import load
assert rollout.num_positions > 10, rollout.num_positions
frame = np.asarray(rollout.frames[rollout.num_positions - 1])
assert frame.shape == (400, 600, 3) and frame.dtype == np.uint8, (frame.shape, frame.dtype)
assert frame.min() < frame.max()  # drawn, not blank
saved = load("cartpole.rollout")
assert np.array_equal(np.asarray(saved.frames[3]), np.asarray(rollout.frames[3]))
print("positions:", rollout.num_positions)
"""


def first_snippet(readme: str) -> str:
    """The README's first Python code block."""
    match = re.search(r"```python\n(.*?)```", readme, re.DOTALL)
    assert match, "the README has no python code block"
    return match.group(1)


def run(*command: str | Path, cwd: Path, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        [str(c) for c in command], cwd=cwd, env=env, capture_output=True, text=True, timeout=900
    )
    assert done.returncode == 0, f"{command} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


def build_wheel(source: Path, out: Path) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    run(sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", out, source, cwd=out)
    (built,) = out.glob("agent_widget-*.whl")
    return built


def version_of(wheel: Path) -> str:
    import zipfile

    archive = zipfile.ZipFile(wheel)
    (metadata,) = [name for name in archive.namelist() if name.endswith(".dist-info/METADATA")]
    found = re.search(r"^Version: (\S+)$", archive.read(metadata).decode(), re.MULTILINE)
    assert found, metadata
    return found.group(1)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel ``make release`` built (AGENT_WIDGET_WHEEL), or one built here from the tree."""
    given = os.environ.get("AGENT_WIDGET_WHEEL")
    if given:
        return Path(given).resolve()
    return build_wheel(ROOT, tmp_path_factory.mktemp("dist"))


def test_a_tag_sets_the_version_and_a_commit_after_it_builds_a_dev_version_naming_it(tmp_path):
    """In a clone of HEAD (what is committed) without its tags, sharing this tree's
    node_modules."""
    clone = tmp_path / "clone"
    run("git", "clone", "-q", "--no-tags", ROOT, clone, cwd=tmp_path)
    if (ROOT / "node_modules").is_dir():
        (clone / "node_modules").symlink_to((ROOT / "node_modules").resolve())
    run("git", "tag", "v9.8.7", cwd=clone)
    assert version_of(build_wheel(clone, tmp_path / "tagged")) == "9.8.7"

    who = ("-c", "user.name=test", "-c", "user.email=test@example.invalid")
    run("git", *who, "commit", "-q", "--allow-empty", "-m", "after the tag", cwd=clone)
    head = run("git", "rev-parse", "HEAD", cwd=clone).strip()
    version = version_of(build_wheel(clone, tmp_path / "after"))
    named = re.fullmatch(r"9\.8\.8\.dev1\+g([0-9a-f]{7,})", version)
    assert named, version
    assert head.startswith(named.group(1)), (version, head)


def test_the_wheel_carries_the_front_end_bundles(wheel):
    import zipfile

    names = set(zipfile.ZipFile(wheel).namelist())
    for bundle in (
        "widget.js",
        "widget.css",
        "compare.js",
        "leaderboard.js",
        "arena.js",
        "moments.js",
        "training.js",
        "checkpoints.js",
        "tensorboard.js",
        "page.js",
    ):
        assert f"agent_widget/static/{bundle}" in names


def test_the_wheel_ships_the_two_packages_and_no_harness_tests_or_benchmarks(wheel):
    import zipfile

    tops = {name.split("/")[0] for name in zipfile.ZipFile(wheel).namelist()}
    packages = {top for top in tops if not top.endswith((".dist-info", ".data"))}
    assert packages == {"agent_widget", "agent_widget_server"}


def test_the_wheel_enables_the_server_extension_in_the_environment_it_installs_into(wheel):
    import json
    import zipfile

    archive = zipfile.ZipFile(wheel)
    config = "etc/jupyter/jupyter_server_config.d/agent_widget_server.json"
    (path,) = [name for name in archive.namelist() if name.endswith(f".data/data/{config}")]
    extensions = json.loads(archive.read(path))["ServerApp"]["jpserver_extensions"]
    assert extensions == {"agent_widget_server": True}
    assert "agent_widget_server/__init__.py" in archive.namelist()


def test_the_wheel_installs_the_nbconvert_template_where_nbconvert_finds_it(wheel):
    import zipfile

    names = zipfile.ZipFile(wheel).namelist()
    template = ".data/data/share/jupyter/nbconvert/templates/agent-widget/"
    assert {name.split(template)[1] for name in names if template in name} == {
        "conf.json",
        "index.html.j2",
    }


def test_the_readme_snippet_runs_after_pip_install_of_the_wheel_alone(wheel, tmp_path):
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True, system_site_packages=False)
    python = env_dir / "bin" / "python"
    run(python, "-m", "pip", "install", "-q", wheel, cwd=tmp_path)
    script = tmp_path / "snippet.py"
    script.write_text(first_snippet((ROOT / "README.md").read_text()) + CHECK)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["SDL_VIDEODRIVER"] = "dummy"  # no display here; pygame renders off screen
    out = run(python, script, cwd=tmp_path, env=env)
    assert re.search(r"positions: \d+", out), out
