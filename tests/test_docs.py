"""The docs, checked: what no other test looks at drifts. The architecture page's
diagrams, tables and lists and the design page's layers against the code; the CHANGELOG
as a changelog for users (Keep a Changelog's sections, short entries whose figures are
a link away: benchmarks/RESULTS.md, a guide's "How fast"); the lists of extras, guides
and notebooks a newcomer reads first, against pyproject.toml and the folders."""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

ROOT = Path(__file__).parent.parent
PACKAGE = ROOT / "agent_widget"
ARCHITECTURE = (ROOT / "docs" / "architecture.md").read_text()


def section(text: str, heading: str) -> str:
    """The text under ``heading`` (a Markdown heading line), up to the next heading."""
    start = text.index(f"{heading}\n") + len(heading) + 1
    end = re.search(r"^#+ ", text[start:], re.MULTILINE)
    return text[start:] if end is None else text[start : start + end.start()]


def first_diagram(text: str) -> str:
    """The first fenced block of ``text``."""
    return text.split("```")[1]


def layers() -> set[str]:
    """The package's layers: its subpackages, and its top-level modules but ``__init__``."""
    folders = {path.parent.name for path in PACKAGE.glob("*/__init__.py")}
    modules = {path.stem for path in PACKAGE.glob("*.py") if path.stem != "__init__"}
    return folders | modules


def contract_layers() -> set[str]:
    """The layers of the import contract that checks them (pyproject.toml; read as text:
    tomllib is Python 3.11's)."""
    listed = re.search(r"^layers = \[(.*?)\]", (ROOT / "pyproject.toml").read_text(), re.M | re.S)
    assert listed is not None
    rows = re.findall(r'"([^"]+)"', listed.group(1))
    return {name.strip() for row in rows for name in re.split(r"[|:]", row)}


def documented_modules() -> set[str]:
    """``layer/module`` for each module the table names (``agents`` for the bottom row)."""
    found, layer = set(), ""
    for line in section(ARCHITECTURE, "## What each layer holds").splitlines():
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
    """``layer/module`` (``layer/sub/module`` in a layer's subpackage) for each module, and
    the top-level modules but ``__init__``."""
    modules = {path.stem for path in PACKAGE.glob("*.py") if path.stem != "__init__"}
    for path in PACKAGE.glob("*/**/_*.py"):
        if path.stem != "__init__":
            modules.add(str(path.relative_to(PACKAGE).with_suffix("")))
    return modules


def test_the_architecture_table_names_every_module_and_no_other():
    documented, actual = documented_modules(), package_modules()
    assert len(documented) > 60  # the table was read
    assert actual - documented == set(), "modules missing from docs/architecture.md"
    assert documented - actual == set(), "docs/architecture.md names modules that are gone"


def test_the_import_contract_has_every_layer_and_no_other():
    assert contract_layers() == layers()


def test_the_architecture_diagram_draws_every_layer_and_no_other():
    drawn = set(re.findall(r"(?:^|\s)([a-z]\w*)/", first_diagram(ARCHITECTURE), re.MULTILINE))
    drawn |= {name for name in layers() if re.search(rf"\s{name}\s", first_diagram(ARCHITECTURE))}
    assert drawn == layers()


def test_the_design_page_lists_every_layer_and_no_other():
    design = (ROOT / "docs" / "contributing" / "design.md").read_text()
    paragraph = re.search(
        r"The package is built in layers.*?\[The architecture page\]", design, re.DOTALL
    )
    assert paragraph is not None
    listed = set(re.findall(r"`(\w+)`", paragraph.group(0)))
    assert listed == layers()


def test_the_front_end_diagram_draws_every_js_folder_and_no_other():
    diagram = first_diagram(section(ARCHITECTURE, "## The front end (js/)"))
    folders = {path.name for path in (ROOT / "js").iterdir() if path.is_dir()}
    assert len(folders) >= 8  # js/ was read
    assert set(re.findall(r"(\w+)/", diagram)) == folders


def imports_when_called() -> set[tuple[str, str]]:
    """(module, imported) for each import of the package made inside a function, as the
    architecture page names them (``layer/_module``; the package's root ``agent_widget``);
    imports only for type checkers left out."""
    found = set()
    for path in PACKAGE.rglob("*.py"):
        tree = ast.parse(path.read_text())
        checking = {
            id(node)
            for block in ast.walk(tree)
            if isinstance(block, ast.If) and "TYPE_CHECKING" in ast.unparse(block.test)
            for node in ast.walk(block)
        }
        for function in ast.walk(tree):
            if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(function):
                if not isinstance(node, ast.ImportFrom) or id(node) in checking:
                    continue
                if node.module is None or not node.module.startswith("agent_widget."):
                    continue
                names = [f"{node.module}.{alias.name}" for alias in node.names]
                imported = [n for n in names if re.search(r"\._\w+$", n)] or [node.module]
                found |= {(_named(path), _named(name)) for name in imported}
    return found


def _named(module: Path | str) -> str:
    """A module as the architecture page names it."""
    if isinstance(module, Path):
        parts = module.relative_to(PACKAGE).with_suffix("").parts
        module = ".".join(("agent_widget", *parts)).removesuffix(".__init__")
    return "agent_widget" if module == "agent_widget" else module.split(".", 1)[1].replace(".", "/")


def test_the_architecture_page_lists_every_import_made_when_called():
    listed = set()
    for line in section(ARCHITECTURE, "### Imports made when called").splitlines():
        cells = [cell.strip() for cell in line.split("|")[1:-1]]
        if len(cells) == 3 and cells[0].startswith("`"):
            module = cells[0].strip("`")
            listed |= {(module, name) for name in re.findall(r"`([\w/]+)`", cells[1])}
    found = imports_when_called()
    assert len(found) >= 5  # the code was read
    assert found == listed


CHANGELOG = ROOT / "CHANGELOG.md"
KINDS = {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}


def unreleased() -> list[str]:
    """The lines of the ``## [Unreleased]`` section, up to the next ``## `` heading."""
    lines = CHANGELOG.read_text().splitlines()
    assert "## [Unreleased]" in lines, "no '## [Unreleased]' section"
    start = lines.index("## [Unreleased]") + 1
    end = next((i for i in range(start, len(lines)) if lines[i].startswith("## ")), len(lines))
    return lines[start:end]


def entries(lines: list[str]) -> list[str]:
    """Each ``- `` bullet with its indented continuation lines, joined by spaces."""
    found: list[list[str]] = []
    for line in lines:
        if line.startswith("- "):
            found.append([line[2:].strip()])
        elif found and line.startswith("  ") and line.strip():
            found[-1].append(line.strip())
    return [" ".join(entry) for entry in found]


RELEASE = re.compile(r"## \[\d+\.\d+\.\d+\] - \d{4}-\d{2}-\d{2}")


def just_released() -> bool:
    """Whether ``[Unreleased]`` is empty right above a version's section: the commit of
    a release, whose entries moved under its version (docs/contributing, Releasing)."""
    lines = CHANGELOG.read_text().splitlines()
    after = lines[lines.index("## [Unreleased]") + 1 :]
    following = next((line for line in after if line.strip()), "")
    return RELEASE.fullmatch(following) is not None


def test_unreleased_has_only_keep_a_changelog_sections():
    kinds = [line[4:].strip() for line in unreleased() if line.startswith("### ")]
    assert kinds or just_released(), "no ### section under [Unreleased]"
    assert set(kinds) <= KINDS, f"not a Keep a Changelog section: {set(kinds) - KINDS}"


def test_unreleased_has_an_entry_unless_a_release_was_just_made():
    assert entries(unreleased()) or just_released()


def test_a_release_commit_may_leave_unreleased_empty(tmp_path, monkeypatch):
    released = "# Changelog\n\n## [Unreleased]\n\n## [0.2.0] - 2027-01-04\n\n### Added\n\n- x\n"
    (tmp_path / "CHANGELOG.md").write_text(released)
    monkeypatch.setattr(sys.modules[__name__], "CHANGELOG", tmp_path / "CHANGELOG.md")
    assert just_released()
    (tmp_path / "CHANGELOG.md").write_text(released.replace("## [0.2.0] - 2027-01-04", "text"))
    assert not just_released()


def test_entries_average_under_200_characters():
    """Every entry of the file, released versions' too: a figure goes behind a link."""
    lengths = [len(entry) for entry in entries(CHANGELOG.read_text().splitlines())]
    assert lengths, "no entry"
    assert sum(lengths) / len(lengths) < 200, f"{sum(lengths) / len(lengths):.0f} on average"


LINK = re.compile(r"\]\((?!https?:)([^)#\s]+)#?([^)\s]*)\)")


def test_relative_links_reach_a_file_and_heading():
    """A link such as benchmarks/RESULTS.md#recording names a heading that exists."""
    for target, anchor in LINK.findall(CHANGELOG.read_text()):
        path = ROOT / target
        assert path.exists(), f"{target}: no such file"
        if anchor:
            headings = re.findall(r"^#+ (.+)$", path.read_text(), flags=re.MULTILINE)
            slugs = {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in headings}
            assert anchor in slugs, f"{target}#{anchor}: no such heading"


# The lists a newcomer reads first, each checked against what it lists: the extras
# (pyproject.toml), the guides (docs/guides/) and the notebooks (notebooks/).
PYPROJECT = (ROOT / "pyproject.toml").read_text()
README = (ROOT / "README.md").read_text()
INSTALL = (ROOT / "docs" / "install.md").read_text()
INDEX = (ROOT / "docs" / "index.md").read_text()


def extras() -> set[str]:
    """pyproject.toml's extras but ``dev`` (the developer's; read as text: tomllib is
    Python 3.11's)."""
    block = re.search(r"^\[project\.optional-dependencies\]\n(.*?)^\[", PYPROJECT, re.M | re.S)
    assert block is not None
    return set(re.findall(r"^([\w-]+) = \[", block.group(1), re.MULTILINE)) - {"dev"}


def test_the_all_extra_holds_every_other_extra():
    (listed,) = re.findall(r'^all = \["agent-widget\[([\w,-]+)\]"\]$', PYPROJECT, re.MULTILINE)
    assert len(extras()) > 8  # pyproject.toml was read
    assert set(listed.split(",")) == extras() - {"all"}


def test_the_readme_install_line_names_every_extra():
    (line,) = re.findall(r"^pip install agent-widget .*# extras: (.*)$", README, re.MULTILINE)
    assert set(re.findall(r"\[([\w-]+)\]", line)) == extras()


def test_the_install_page_has_a_row_for_every_extra():
    table = INSTALL.split("## Dependencies")[0]
    assert set(re.findall(r"^\| `([\w-]+)` \|", table, re.MULTILINE)) == extras()


def guides() -> set[str]:
    found = {path.stem for path in (ROOT / "docs" / "guides").glob("*.md")}
    assert len(found) > 10  # docs/guides was read
    return found


def test_the_readme_and_the_home_page_link_every_guide():
    assert set(re.findall(r"\(docs/guides/([\w-]+)\.md", README)) == guides()
    assert set(re.findall(r"\(guides/([\w-]+)\.md", INDEX)) == guides()


def notebooks() -> set[str]:
    found = {path.stem for path in (ROOT / "notebooks").glob("*.ipynb")}
    assert len(found) > 5  # notebooks/ was read
    return found


def test_the_readme_names_every_notebook():
    (listed,) = re.findall(r"^- Notebooks: (.*?)(?=^\S|\Z)", README, re.MULTILINE | re.DOTALL)
    named = {name for name in notebooks() if re.search(rf"\b{name}\b", listed)}
    assert named == notebooks()


def test_the_quickstart_names_every_other_notebook():
    import json

    cells = json.loads((ROOT / "notebooks" / "quickstart.ipynb").read_text())["cells"]
    (more,) = ["".join(c["source"]) for c in cells if "".join(c["source"]).startswith("More in")]
    assert set(re.findall(r"`(\w+)\.ipynb`", more)) == notebooks() - {"quickstart"}


def test_the_run_library_guide_lists_the_columns_of_table():
    from agent_widget.library._run_file import ROW_COLUMNS

    guide = (ROOT / "docs" / "guides" / "run-library.md").read_text()
    sentence = re.search(r"`table\(\)` has one\s+row per run.*?\.\n", guide, re.DOTALL)
    assert sentence is not None
    assert re.findall(r"`(\w+)`", sentence.group(0).split(":", 1)[1]) == list(ROW_COLUMNS)
