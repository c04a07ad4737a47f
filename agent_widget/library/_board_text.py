"""The leaderboard's table as text, by the rules the live table follows.

The live table is drawn by the front end (js/leaderboard/table.ts); a notebook saved
without widget state shows this module's copy of it instead. Both write the same
columns, in the same order, rows grouped by env (by default) and ranked within each
group by mean return, each env's returns to the decimals they need, rates as
percentages, steps with thousands separators, dates as days. js/leaderboard/table.cases.json
holds the cases both are tested against, so the two cannot drift apart.

Numbers are written by the front end's one formatter (agent_widget/panels/_numbers.py,
js/shared/numbers.ts).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

from agent_widget.episodes import OUTCOMES
from agent_widget.panels import common_decimals, format_number, js_number, to_fixed

_BASE = (
    ("run", "run"),
    ("env", "env_id"),
    ("algorithm", "algorithm"),
    ("episodes", "episodes"),
    ("return (mean ± std)", "return_mean"),
    ("success", "success_rate"),
    ("steps", "steps"),
    ("date", "created"),
    ("params", "params"),
)
_AGENT = "agent:"
_OUTCOME = "outcome:"
SORTED_BY = "return_mean"  # the live table's first order: best mean return first

Row = Mapping[str, Any]
# A line of the table: ("run", its cells) or ("group", its header).
Line = tuple[str, list[str]]


def table_text(rows: Sequence[Row], group_by: str | None) -> tuple[list[str], list[Line]]:
    """The headers and lines of the table of ``rows`` as it first shows: sorted by
    mean return, best first (ties by run), grouped by ``group_by`` (None, "env" or
    "algorithm"), groups named in text order.

    Examples:
        >>> rows = [{"id": "E/a/r", "env_id": "E", "algorithm": "a", "run": "r", "episodes": 2,
        ...          "return_mean": 0.65, "return_std": 0.5, "success_rate": 0.5, "steps": 1234,
        ...          "created": "2026-12-07T20:00:00+00:00", "params": {"lr": 0.001}}]
        >>> table_text(rows, "env")[1]
        [('group', ['E (1 run)']), ('run', ['r', 'E', 'a', '2', '0.65 ± 0.50', '50%', '1,234', \
'2026-12-07', 'lr=0.001'])]
    """
    columns = _columns(rows)
    decimals = return_decimals(rows)
    lines: list[Line] = []
    for name, members in _groups(rows, group_by):
        if name is not None:
            runs = f"{len(members)} run{'' if len(members) == 1 else 's'}"
            lines.append(("group", [f"{name} ({runs})"]))
        for row in members:
            lines.append(("run", cell_texts(row, decimals.get(str(row["env_id"])), columns)))
    head = [f"{title} ▼" if key == SORTED_BY else title for title, key in columns]
    return head, lines


def _columns(rows: Sequence[Row]) -> list[tuple[str, str]]:
    """The base columns, and after the return one per agent of the multi-agent runs,
    then one per agent of games with a winner (its wins–draws–losses)."""
    agents = sorted({agent for row in rows for agent in _agent_returns(row)})
    players = sorted({agent for row in rows for agent in _agent_outcomes(row)})
    after = [key for _, key in _BASE].index("return_mean") + 1
    per_agent = [(f"return · {agent}", f"{_AGENT}{agent}") for agent in agents]
    outcomes = [(f"W–D–L · {agent}", f"{_OUTCOME}{agent}") for agent in players]
    return [*_BASE[:after], *per_agent, *outcomes, *_BASE[after:]]


def _groups(rows: Sequence[Row], group_by: str | None) -> list[tuple[str | None, list[Row]]]:
    ranked = sorted(rows, key=lambda row: _text_key(str(row["run"])))
    ranked.sort(key=lambda row: (row["return_mean"] is None, -(row["return_mean"] or 0.0)))
    if group_by is None:
        return [(None, ranked)] if ranked else []
    field = "env_id" if group_by == "env" else "algorithm"
    groups: dict[str, list[Row]] = {}
    for row in ranked:
        groups.setdefault(str(row[field]), []).append(row)
    return [(name, groups[name]) for name in sorted(groups, key=_text_key)]


def _text_key(text: str) -> tuple[bytes, bytes]:
    """textOrder of table.ts: ignoring case, then by UTF-16 code units."""
    return text.lower().encode("utf-16-be"), text.encode("utf-16-be")


def _agent_returns(row: Row) -> dict[str, float]:
    given = row.get("agent_returns") or {}
    return {k: v for k, v in given.items() if _finite(v)}


def _agent_outcomes(row: Row) -> dict[str, str]:
    """Each agent's ``wins–draws–losses``, of those whose counts are whole numbers >= 0."""
    given = row.get("agent_outcomes") or {}
    texts = {}
    for agent, counts in given.items():
        found = [counts.get(k) if isinstance(counts, Mapping) else None for k in OUTCOMES]
        if all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in found):
            texts[agent] = "–".join(map(str, found))
    return texts


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _finite(value: object) -> bool:
    return _is_number(value) and math.isfinite(value)  # type: ignore[arg-type]


def return_decimals(rows: Sequence[Row]) -> dict[str, int]:
    """The decimals each env's returns are printed with: from its mean returns (and
    agents' means), enough for three significant digits of the smallest, no more than
    any needs, at most 4 (commonDecimals of js/shared/numbers.ts)."""
    means: dict[str, list[float]] = {}
    for row in rows:
        values = [row["return_mean"], *_agent_returns(row).values()]
        found = means.setdefault(str(row["env_id"]), [])
        found.extend(v for v in values if _finite(v))
    return {env: common_decimals(values) for env, values in means.items()}


def params_text(params: Mapping[str, Any]) -> str:
    """``alpha=0.1, layers=[64,64]``: numbers as formatNumber writes them, the rest as JSON."""
    return ", ".join(
        f"{key}={format_number(value) if _is_number(value) else _json(value)}"
        for key, value in params.items()
    )


def _json(value: object) -> str:
    """JSON.stringify's text: no spaces, numbers as JavaScript writes them."""
    if isinstance(value, float):
        return js_number(value) if math.isfinite(value) else "null"
    if isinstance(value, Mapping):
        return "{" + ",".join(f"{_json(str(k))}:{_json(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        return "[" + ",".join(_json(v) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False, default=str)


def percent_text(rate: float | None) -> str:
    """A rate as a whole percentage (0.745 -> ``75%``, as Math.round rounds); one that is
    neither 0 nor 1 never reads 0% or 100% (0.999 -> ``99.9%``, 0.0001 -> ``<0.1%``)."""
    if rate is None:
        return "-"
    whole = math.floor(rate * 100 + 0.5)
    if whole not in (0, 100) or rate in (0, 1):
        return f"{whole}%"
    tenth = to_fixed(rate * 100, 1)
    return {"0.0": "<0.1%", "100.0": ">99.9%"}.get(tenth, f"{tenth}%")


def cell_texts(row: Row, decimals: int | None, columns: Sequence[tuple[str, str]]) -> list[str]:
    """The text of each of ``columns`` of ``row``, its returns to ``decimals``."""

    def number(value: float | None) -> str:
        if value is None:
            return "-"
        return format_number(value) if decimals is None else to_fixed(value, decimals)

    mean, std = row["return_mean"], row["return_std"]
    spread = "" if std is None else f" ± {number(std)}"
    base = {
        "run": str(row["run"]),
        "env_id": str(row["env_id"]),
        "algorithm": str(row["algorithm"]),
        "episodes": str(row["episodes"]),
        "return_mean": "-" if mean is None else number(mean) + spread,
        "success_rate": percent_text(row["success_rate"]),
        "steps": f"{row['steps']:,}",
        "created": str(row["created"] or "")[:10],
        "params": params_text(row["params"] or {}),
    }
    agents, outcomes = _agent_returns(row), _agent_outcomes(row)
    texts = {f"{_AGENT}{agent}": number(total) for agent, total in agents.items()}
    texts |= {f"{_OUTCOME}{agent}": text for agent, text in outcomes.items()}
    return [base[key] if key in base else texts.get(key, "-") for _, key in columns]
