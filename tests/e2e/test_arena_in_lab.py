"""The arena's leaderboard (``Arena.leaderboard()``) in a real JupyterLab, for a small
real Connect Four arena (the win/block heuristic against a random player, 8 games):
the ratings as text with their interval bars, the head-to-head heatmap readable in
the dark theme too, a cell's games listed on a click, and a game opened on a click in
the viewer at its last move (its frame painted, the readout of that move)."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Locator

from agent_widget.library._board_text import percent_text
from harness.appearance import DARK, LIGHT, axe_violations, set_theme
from harness.lab import Notebook
from harness.views import View

pytest.importorskip("pettingzoo")

ROOT = Path(__file__).parents[2]
RANDOM = "<i>random</i>"  # a name that is markup: shown as text, never parsed
BOARD = 1
CELLS = [
    f"""import sys, tempfile
sys.path.insert(0, {str(ROOT)!r})
import numpy as np
from agent_widget import Arena
from agent_widget.arena._board import row_texts
from tests.games import connect_four, win_or_block

def randomly(observation):
    return int(np.random.default_rng().choice(np.flatnonzero(observation["action_mask"])))

arena = Arena(connect_four, {{"heuristic": win_or_block, {RANDOM!r}: randomly}}, tempfile.mkdtemp())
arena.play(games=8, workers=1, engine="processes", progress=False)
board = arena.leaderboard()""",
    "board",
]

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.notebook("arena.ipynb", CELLS, viewport={"width": 1200, "height": 1400}),
]


def board(notebook: Notebook) -> Locator:
    root = notebook.page.locator(".jp-Notebook .jp-Cell").nth(BOARD).locator(".aw-arena")
    root.wait_for(timeout=30_000)
    return root


def texts(rows: Locator) -> list[list[str]]:
    return rows.evaluate_all("(rows) => rows.map((r) => [...r.cells].map((c) => c.textContent))")


def cell(root: Locator, row: str, column: str) -> Locator:
    return root.locator(f'button.aw-cell[data-row="{row}"][data-column="{column}"]')


def test_the_ratings_are_the_kernels_each_interval_a_bar_on_one_axis(notebook):
    root = board(notebook)
    expected = notebook.python("[row_texts(r) for r in board.players]")
    rows = root.locator(".aw-ratings tbody tr")
    # player, rating, (the bar), 95% interval, games, W–D–L
    assert [[*line[:2], *line[3:]] for line in texts(rows)] == expected
    assert [line[0] for line in expected] == [
        p for p in notebook.python("list(arena.ratings().player)")
    ]
    assert root.locator(".aw-ratings i").count() == 0  # the name as text
    # The bars: inside their track, the rating's mark inside its bar, best rated rightmost.
    boxes = rows.evaluate_all(
        """(rows) => rows.map((r) => {
            const box = (s) => r.querySelector(s).getBoundingClientRect();
            const [track, bar, mark] = [box(".aw-track"), box(".aw-bar"), box(".aw-mark")];
            return {track: [track.left, track.right], bar: [bar.left, bar.right],
                    mark: (mark.left + mark.right) / 2,
                    paint: getComputedStyle(r.querySelector(".aw-bar")).backgroundColor};
        })"""
    )
    players = notebook.python("board.players")
    best, worst = boxes
    for box in boxes:
        assert box["track"][0] - 0.5 <= box["bar"][0] < box["mark"] < box["bar"][1]
        assert box["bar"][1] <= box["track"][1] + 0.5
        assert box["paint"] not in ("rgba(0, 0, 0, 0)", "transparent")
    # One axis for both: pixels in proportion to rating points from one bar to the other.
    pixels = (best["mark"] - worst["mark"]) / (best["bar"][1] - worst["bar"][0])
    points = (players[0]["rating"] - players[1]["rating"]) / (
        players[0]["upper"] - players[1]["lower"]
    )
    assert pixels == pytest.approx(points, abs=0.02)


def test_the_matrix_cells_show_each_pairs_win_rate_and_counts(notebook):
    root = board(notebook)
    cells = notebook.python("board.cells")
    assert len(cells) == 2
    for c in cells:
        button = cell(root, c["row"], c["column"])
        # As the front end rounds (12.5% -> 13%): the leaderboard's shared rules.
        assert button.locator(".aw-rate").text_content() == percent_text(c["rate"])
        assert button.locator(".aw-counts").text_content() == (
            f"{c['wins']}–{c['draws']}–{c['losses']}"
        )
    rows = [r[0] for r in texts(root.locator(".aw-matrix tbody tr"))]
    assert rows == [p["player"] for p in notebook.python("board.players")]


CONTRAST = """(root) => [...root.querySelectorAll("td.aw-heat")].filter((td) => td.firstChild)
    .map((td) => {
        const rgba = (css) => css.match(/[\\d.]+/g).map(Number);
        let under = td.parentElement, base;
        while (under) {  // the first opaque background under the cell
            const c = rgba(getComputedStyle(under).backgroundColor);
            if ((c[3] ?? 1) === 1) { base = c; break; }
            under = under.parentElement;
        }
        const [r, g, b, a] = rgba(getComputedStyle(td).backgroundColor);
        const seen = [r, g, b].map((v, i) => v * (a ?? 1) + base[i] * (1 - (a ?? 1)));
        const ink = rgba(getComputedStyle(td.querySelector(".aw-rate")).color);
        const text = seen.map((v, i) => ink[i] * (ink[3] ?? 1) + v * (1 - (ink[3] ?? 1)));
        const lum = (c) => {
            const l = c.map((v) => v / 255)
                .map((s) => (s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4));
            return 0.2126 * l[0] + 0.7152 * l[1] + 0.0722 * l[2];
        };
        const [hi, lo] = [lum(seen), lum(text)].sort((x, y) => y - x);
        return {contrast: (hi + 0.05) / (lo + 0.05), alpha: a ?? 1};
    })"""


@pytest.mark.parametrize("theme", [LIGHT, DARK])
def test_the_heatmap_keeps_its_text_readable_in_light_and_dark(notebook, theme):
    """Each cell's text against its colour over the page, and axe-core's checks."""
    root = board(notebook)
    try:
        set_theme(notebook, theme)
        notebook.animation_frames(2)  # the cells recoloured for the theme
        cells = root.evaluate(CONTRAST)
        assert len(cells) == 2
        assert any(c["alpha"] > 0 for c in cells) or all(
            r == 0.5 for r in notebook.python("[c['rate'] for c in board.cells]")
        )
        assert all(c["contrast"] >= 4.5 for c in cells), cells
        violations = axe_violations(root)
        assert not violations, "\n".join(violations)
    finally:
        set_theme(notebook, LIGHT)


def test_a_cell_lists_its_games_and_a_game_opens_at_its_last_move(notebook):
    root = board(notebook)
    cell(root, "heuristic", RANDOM).click()
    notebook.wait_until(
        lambda: notebook.python("board.pairing") == ["heuristic", RANDOM], what="the pairing"
    )
    games = notebook.python("board.games")
    assert len(games) == 8
    listed = root.locator(".aw-games tr.aw-game")
    notebook.wait_for(
        "(el) => el.querySelectorAll('tr.aw-game').length === 8",
        root.locator(".aw-games").element_handle(),
        what="the pairing's 8 games listed",
    )
    won = {"win": "heuristic won", "draw": "draw", "loss": f"{RANDOM} won"}
    assert texts(listed) == [
        [
            f"game {g['seed']}",
            g["first"],
            g["second"],
            won[g["outcome"]],
            str(g["steps"]),
        ]
        for g in games
    ]
    assert cell(root, "heuristic", RANDOM).get_attribute("aria-pressed") == "true"

    game = games[-1]
    notebook.execute(
        f"game = arena.library.open({game['run']!r})[{game['episode']}]\n"
        "last = int(np.flatnonzero(game.actions >= 0)[-1])"
    )
    last = notebook.python(
        """{"t": last, "mover": str(game.acting_agent[last]), "column": int(game.actions[last]),
        "length": game.num_positions,
        "sha": __import__("hashlib").sha256(np.asarray(game.frames[last]).tobytes()).hexdigest()}"""
    )
    listed.nth(7).locator("button.aw-open-game").click()
    opened = root.locator(".aw-opened .agent-widget")
    opened.wait_for(timeout=30_000)
    view = View(notebook, opened)
    view.wait_painted(last["t"])
    assert view.canvas()["sha256"] == last["sha"]  # the board before the last move
    slider = view.slider()
    assert slider.get_attribute("aria-valuetext") == f"step {last['t']} of {last['length'] - 1}"
    notebook.wait_for(
        "(root) => root.querySelector('.aw-readout').textContent.includes('acted')",
        opened.element_handle(),
        what="the readout of the last move's players",
    )
    readout = view.readout().splitlines()
    assert f"acted: {last['mover']}" in readout
    assert any(line.startswith(f"{last['mover']}: action {last['column']} ") for line in readout), (
        readout
    )
    assert notebook.python("board.opened.step") == last["t"]
    assert notebook.page.locator(".aw-arena i").count() == 0
