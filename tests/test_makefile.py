"""The Makefile's installs and release, read as make runs them (``make -n``: each command
printed, none run): torch's CPU build for the developer's venv, on every machine; the
demo's light install; the two venv states kept apart; the upload behind its flag."""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
from importlib.metadata import packages_distributions
from pathlib import Path

ROOT = Path(__file__).parent.parent
CPU_INDEX = "--index-url https://download.pytorch.org/whl/cpu"


def commands(*args: str, cwd: Path = ROOT) -> list[str]:
    """What ``make -n *args`` would run in ``cwd``, one command a line."""
    done = subprocess.run(
        ["make", "--no-print-directory", "-n", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.splitlines()


def installs(lines: list[str]) -> list[str]:
    """The ``pip install`` commands but pip's own upgrade."""
    return [line for line in lines if "pip install" in line and "--upgrade pip" not in line]


def test_the_dev_install_takes_torch_from_the_cpu_index_before_anything_else():
    """pip's torch for Linux is the CUDA build (several GB): installed first, alone, from
    PyTorch's CPU index, the dev extra then keeps it."""
    lines = installs(commands("-B", ".venv/.dev"))
    assert len(lines) == 2, lines
    torch, dev = lines
    assert re.search(r"\btorch==\d+\.\d+\.\d+ ", torch), torch
    assert CPU_INDEX in torch, torch
    assert "--no-deps" in torch, torch
    assert '-e ".[dev]"' in dev, dev
    assert "-c constraints.txt" in dev, dev
    assert "torch" not in dev, dev


def test_every_install_line_naming_torch_takes_it_from_the_cpu_index():
    makefile = (ROOT / "Makefile").read_text().replace("\\\n", " ")
    variables = dict(re.findall(r"^(\w+) :?= (.*)$", makefile, re.MULTILINE))
    lines = [
        re.sub(r"\$\((\w+)\)", lambda m: variables.get(m[1], m[0]), line)
        for line in makefile.splitlines()
        if "pip install" in line
    ]
    naming = [line for line in lines if "torch" in line]
    assert naming, "no install line names torch"
    assert all(CPU_INDEX in line for line in naming), naming


def test_the_demo_installs_the_package_and_jupyterlab_only_and_shows_progress():
    lines = commands("-B", ".venv/.demo")
    (install,) = installs(lines)
    assert install.split("pip install ", 1)[1].split() == [
        "-c",
        "constraints.txt",
        "-e",
        ".",
        "jupyterlab",
    ]
    assert not [line for line in lines if "pip" in line and re.search(r"\s-q\b", line)], lines
    assert "torch" not in "\n".join(lines)


def quickstart_imports() -> set[str]:
    notebook = json.loads((ROOT / "notebooks" / "quickstart.ipynb").read_text())
    found = set()
    for cell in notebook["cells"]:
        if cell["cell_type"] != "code":
            continue
        for node in ast.walk(ast.parse("".join(cell["source"]))):
            if isinstance(node, ast.Import):
                found |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module:
                found.add(node.module.split(".")[0])
    return found


def test_the_quickstart_imports_only_what_the_demo_installs():
    """The package and its own dependencies (pyproject.toml's), or the standard library."""
    pyproject = (ROOT / "pyproject.toml").read_text()
    listed = re.search(r"^dependencies = \[(.*?)^\]", pyproject, re.MULTILINE | re.DOTALL)
    assert listed is not None
    names = re.findall(r'^\s*"([A-Za-z0-9_.-]+)', listed.group(1), re.MULTILINE)
    required = {name.lower().replace("_", "-") for name in names}
    distributions = packages_distributions()
    imported = quickstart_imports() - set(sys.stdlib_module_names) - {"agent_widget"}
    assert {"gymnasium", "numpy"} <= imported  # the notebook was read
    for module in imported:
        from_ = {name.lower().replace("_", "-") for name in distributions.get(module, [])}
        assert from_ & required, (
            f"the quickstart imports {module}, which make demo does not install"
        )


def a_checkout(tmp_path: Path, *markers: str) -> Path:
    """The Makefile and what its installs depend on, older than the venv ``markers``."""
    for name in (
        "Makefile",
        "pyproject.toml",
        "hatch_build.py",
        "constraints.txt",
        "package.json",
        "package-lock.json",
    ):
        shutil.copy(ROOT / name, tmp_path / name)
    for name in ("node_modules/.installed", *markers):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).touch()
    for path in tmp_path.rglob("*"):
        newer = path.name.startswith(".")
        os.utime(path, (2_000_000_000 if newer else 1_000_000_000,) * 2)
    return tmp_path


def test_make_test_after_make_demo_installs_the_dev_extra(tmp_path):
    checkout = a_checkout(tmp_path, ".venv/.demo")
    assert installs(commands("demo-setup", cwd=checkout)) == []
    (torch, dev) = installs(commands("setup", cwd=checkout))
    assert CPU_INDEX in torch
    assert '".[dev]"' in dev


def test_make_demo_after_make_test_installs_nothing_more(tmp_path):
    checkout = a_checkout(tmp_path, ".venv/.dev")
    assert installs(commands("demo-setup", cwd=checkout)) == []
    assert installs(commands("setup", cwd=checkout)) == []


def test_make_demo_on_a_fresh_checkout_installs_the_demo_alone(tmp_path):
    checkout = a_checkout(tmp_path)
    (install,) = installs(commands("demo-setup", cwd=checkout))
    assert install.endswith("-e . jupyterlab")


def test_release_builds_and_checks_and_uploads_only_with_upload_1():
    checked = commands("release")
    built = checked.index(next(line for line in checked if "-m build --outdir dist" in line))
    after = "\n".join(checked[built:])
    assert "twine check --strict dist/*" in after
    assert "AGENT_WIDGET_WHEEL=" in after
    assert "tests/test_wheel_install.py" in after
    assert "twine upload" not in "\n".join(checked)
    uploaded = commands("release", "UPLOAD=1")
    assert uploaded[-1].endswith("-m twine upload dist/*")
    assert "no release" in "\n".join(uploaded)  # the guard before it
