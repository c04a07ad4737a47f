"""The saved leaderboard writes its table as the live one does: the cases the front
end's table is tested against (js/leaderboard/table.cases.json), read from the HTML
a notebook saved without widget state shows."""

import json
from html.parser import HTMLParser
from pathlib import Path

import pytest

from agent_widget.library import Leaderboard, RunLibrary
from agent_widget.library._board_text import table_text

CASES = json.loads(
    (Path(__file__).parents[2] / "js" / "leaderboard" / "table.cases.json").read_text("utf-8")
)


class _Cells(HTMLParser):
    """The saved table's header texts, and its body rows' cell texts."""

    def __init__(self) -> None:
        super().__init__()
        self.head: list[str] = []
        self.rows: list[list[str]] = []
        self._cell: list[str] | None = None
        self._in_body = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "tbody":
            self._in_body = True
        elif tag == "tr" and self._in_body:
            self.rows.append([])
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None:
            text = "".join(self._cell)
            (self.rows[-1] if tag == "td" else self.head).append(text)
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_the_saved_table_reads_as_the_live_one(tmp_path, case):
    board = Leaderboard(RunLibrary(tmp_path), group_by=case["group_by"])
    board.set_trait("rows", case["rows"])
    cells = _Cells()
    cells.feed(board._saved_html())
    assert cells.head == case["head"]
    expected = [[line["group"]] if isinstance(line, dict) else line for line in case["lines"]]
    assert cells.rows == expected


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_the_lines_are_the_live_tables(case):
    head, lines = table_text(case["rows"], case["group_by"])
    assert head == case["head"]
    assert [cells if kind == "run" else {"group": cells[0]} for kind, cells in lines] == case[
        "lines"
    ]
