"""CHANGELOG.md stays a changelog for users: Keep a Changelog's sections, short entries
whose figures are a link away (benchmarks/RESULTS.md, a guide's "How fast")."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).parent.parent
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


def test_unreleased_has_only_keep_a_changelog_sections():
    kinds = [line[4:].strip() for line in unreleased() if line.startswith("### ")]
    assert kinds, "no ### section under [Unreleased]"
    assert set(kinds) <= KINDS, f"not a Keep a Changelog section: {set(kinds) - KINDS}"


def test_unreleased_has_an_entry():
    assert entries(unreleased())


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
