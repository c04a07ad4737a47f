"""EpisodeViewer.to_html: the page's embedded data, its escaping, its limits and its file.

What the page does in a browser is tested in tests/e2e/test_page_in_browser.py.
"""

from __future__ import annotations

import base64
import itertools
import json
import re
import zlib

import numpy as np
import pytest

from agent_widget import CompareViewer, EpisodeViewer, Rollout, load
from agent_widget.format._codec import Part, decode_part
from agent_widget.viewer._page import PageTooLarge
from agent_widget.viewer._transport import unpack_series
from tests.viewer.front_end import unpacked

ELEMENT = re.compile(r'<script type="application/json" id="([\w-]+)">(.*?)</script>', re.S)


def page_data(page: str) -> dict:
    """The page's head, each viewer's blocks put back in it: ``{"chunks", "reply", "cards"}``."""
    elements = {name: json.loads(text) for name, text in ELEMENT.findall(page)}
    head = elements["agent-widget-data"]
    for viewer in [head] if head["widget"] == "episode" else head["children"]:
        viewer["blocks"] = [
            {"chunks": chunks, **elements[f"agent-widget-block-{viewer['id']}-{b}"]}
            for b, chunks in enumerate(viewer["blocks"])
        ]
    return head


def buffers(encoded: list[str]) -> list[bytes]:
    return [base64.b64decode(text) for text in encoded]


def index_of(block: dict) -> dict:
    return json.loads(zlib.decompress(buffers(block["reply"])[-1]))


def frames_of(viewer: dict) -> np.ndarray:
    """Every frame of a viewer's blocks, decoded from their part payloads."""
    decoded = []
    for block in viewer["blocks"]:
        payloads = buffers(block["reply"])[:-1]
        for h, payload in zip(index_of(block)["parts"], payloads, strict=True):
            part = Part(h["start"], h["count"], h["height"], h["width"], h["encoding"], payload)
            decoded.append(decode_part(part))
    return np.concatenate(decoded)


def cards_of(viewer: dict, name: str) -> list:
    """Panel ``name``'s ``[meta, buffers]`` at each position of the viewer."""
    return [card for block in viewer["blocks"] for card in block["cards"][name]]


def info_column(viewer: dict, key: str) -> list:
    return [
        v for block in viewer["blocks"] for v in unpacked(index_of(block)["infos"]["columns"][key])
    ]


def series_of(viewer: dict, name: str) -> np.ndarray:
    return unpack_series(zlib.decompress(base64.b64decode(viewer["state"]["series"][name]["zlib"])))


@pytest.fixture
def frames() -> np.ndarray:
    return np.random.default_rng(0).integers(0, 255, (40, 6, 8, 3), dtype=np.uint8)


@pytest.fixture
def viewer(frames) -> EpisodeViewer:
    rollout = Rollout.from_arrays(
        frames=frames,
        actions=np.arange(39) % 3,
        rewards=np.linspace(0, 1, 39),
        infos=[{"lives": 3 - t // 20} for t in range(40)],
        metadata={"env_id": "Toy-v0", "action_names": ["left", "stay", "right"]},
    )
    viewer = EpisodeViewer(rollout, fps=12, step=5)
    viewer.add_panel("notes", lambda step: f"t = {step.t}")
    viewer.add_panel("q", lambda step: np.array([0.0, 1.0, float(step.t)]))
    return viewer


def test_the_page_holds_every_chunk_and_every_card_of_every_step(viewer, frames):
    data = page_data(viewer.to_html(progress=False))
    assert data["format"] == "agent-widget.page"
    assert data["state"]["length"] == 40
    assert data["state"]["step"] == 5
    assert data["state"]["fps"] == 12
    assert data["state"]["title"] == "Toy-v0"
    assert [p["name"] for p in data["state"]["panels"]] == ["notes", "q"]
    assert [block["chunks"] for block in data["blocks"]] == [[0, 3]]  # small: one block
    np.testing.assert_array_equal(frames_of(data), frames)
    assert info_column(data, "lives") == [3] * 20 + [2] * 20
    notes = cards_of(data, "notes")
    assert [meta["text"] for meta, _ in notes] == [f"t = {t}" for t in range(40)]
    meta, q = cards_of(data, "q")[7]
    assert meta["kind"] == "bars"
    assert meta["highlight"] == 1
    assert np.frombuffer(buffers(q)[0], "<f8").tolist() == [0.0, 1.0, 7.0]
    np.testing.assert_array_equal(series_of(data, "rewards"), np.linspace(0, 1, 39))


def test_stored_frames_go_into_the_page_as_they_are_stored(viewer, tmp_path):
    path = viewer.to_html(tmp_path / "a.html", progress=False)  # noqa: F841 (a file too)
    rollout = Rollout.from_arrays(frames=np.random.default_rng(1).integers(0, 255, (20, 5, 5, 3)))
    stored = load(rollout.save(tmp_path / "r.rollout"))
    data = page_data(EpisodeViewer(stored).to_html(progress=False))
    payloads = [p.payload for k in range(2) for p in stored.frames.chunk(k)]
    assert [b for block in data["blocks"] for b in buffers(block["reply"])[:-1]] == payloads


def test_a_failing_panel_keeps_its_error_card_and_others_go_on(viewer):
    viewer.add_panel("boom", lambda step: 1 / 0 if step.t % 2 else "fine")
    viewer.add_panel("odd", lambda step: {1, 2})
    data = page_data(viewer.to_html(progress=False))
    cards = {name: cards_of(data, name) for name in ("boom", "odd", "notes")}
    assert [meta["kind"] for meta, _ in cards["boom"][:4]] == ["text", "error", "text", "error"]
    assert cards["boom"][1][0]["error"] == "ZeroDivisionError"
    assert cards["odd"][0][0]["kind"] == "error"
    assert "set" in cards["odd"][0][0]["message"]
    assert len(cards["notes"]) == 40


def test_a_stuck_panel_says_no_answer_on_its_cards_and_the_page_is_written(viewer, tmp_path, stuck):
    viewer.add_panel("stuck", stuck, timeout=0.2)  # deliberate: the limit passing is under test
    data = page_data((viewer.to_html(tmp_path / "stuck.html", progress=False)).read_text())
    cards = cards_of(data, "stuck")
    assert len(cards) == 40
    assert {(meta["kind"], meta["message"]) for meta, _ in cards} == {
        ("error", "no answer after 0.2 s")
    }
    assert [meta["text"] for meta, _ in cards_of(data, "notes")] == [f"t = {t}" for t in range(40)]
    assert stuck.calls == [0]  # waited for once


def test_a_title_with_lone_surrogates_is_written_with_replacement_characters(frames, tmp_path):
    title = "run \udcff of \ud83d\ude00"  # bytes decoded with surrogateescape; an emoji's pair
    viewer = EpisodeViewer(frames, title=title)
    page = viewer.to_html(tmp_path / "odd.html", progress=False).read_text("utf-8")
    assert "<title>run \ufffd of \U0001f600</title>" in page
    # The page's script reads the title as given (escaped in the JSON; the pair joins).
    assert page_data(page)["state"]["title"] == "run \udcff of \U0001f600"


def test_the_page_draws_the_timeline_as_the_widget_does(frames):
    """Its names, its rates' 0-1 axis and its smoothing go with it (a training curve's page)."""
    names = {"reward": "episode returns"}
    viewer = EpisodeViewer(
        frames, timeline_names=names, timeline_rates=["success rate"], timeline_smoothing=0.6
    )
    state = page_data(viewer.to_html(progress=False))["state"]
    assert state["timeline_names"] == names
    assert state["timeline_rates"] == ["success rate"]
    assert state["timeline_smoothing"] == 0.6


def test_panels_can_be_left_out_by_name(viewer):
    data = page_data(viewer.to_html(skip_panels=["q"], progress=False))
    assert list(data["blocks"][0]["cards"]) == ["notes"]
    assert len(data["state"]["panels"]) == 1
    with pytest.raises(KeyError, match="no panel 'nope' \\(it has: 'notes', 'q'\\)"):
        viewer.to_html(skip_panels=["nope"], progress=False)


def test_a_range_of_steps_is_an_episode_of_its_own(viewer, frames):
    data = page_data(viewer.to_html(start=10, stop=30, progress=False))
    state = data["state"]
    assert (state["length"], state["step"], state["title"]) == (20, 0, "Toy-v0 (steps 10 to 29)")
    np.testing.assert_array_equal(frames_of(data), frames[10:30])
    np.testing.assert_array_equal(series_of(data, "rewards"), np.linspace(0, 1, 39)[10:30])
    assert [m["text"] for m, _ in cards_of(data, "notes")][:2] == ["t = 10", "t = 11"]
    assert len(cards_of(data, "notes")) == 20  # position 0 of the page is step 10


@pytest.mark.parametrize(("start", "stop"), [(-1, None), (5, 5), (0, 41), (40, None)])
def test_a_range_outside_the_episode_is_refused(viewer, start, stop):
    with pytest.raises(ValueError, match="the episode has 40 positions"):
        viewer.to_html(start=start, stop=stop, progress=False)


def test_user_strings_never_become_html(frames):
    hostile = "</script><script>alert(1)</script><!--"
    viewer = EpisodeViewer(frames, title=hostile)
    viewer.add_panel(hostile, lambda step: hostile)
    page = viewer.to_html(progress=False)
    tags = re.findall(r"<script[^>]*>", page)
    assert tags[1] == "<script>"  # the page's own script; the others hold JSON
    json_tags = [tags[0], *tags[2:]]
    assert all(t.startswith('<script type="application/json" id="agent-widget-') for t in json_tags)
    assert len(tags) == 4 == page.count("</script>")  # head, script, one block, end
    assert "<title>&lt;/script&gt;&lt;script&gt;alert(1)" in page
    data = page_data(page)
    assert data["state"]["title"] == hostile
    assert cards_of(data, hostile)[0][0]["text"] == hostile


def test_a_page_over_its_size_limit_says_how_to_cut_it(viewer):
    with pytest.raises(PageTooLarge, match=r"max_bytes=1,000 .*start=, stop=.*skip_panels"):
        viewer.to_html(max_bytes=1_000, progress=False)
    assert isinstance(PageTooLarge("x"), ValueError)


def test_an_episode_without_frames_still_has_its_readout_and_cards():
    rollout = Rollout.from_arrays(
        observations=np.zeros((20, 3)),
        actions=np.zeros(19, int),
        infos=[{"k": t} for t in range(20)],
    )
    viewer = EpisodeViewer(rollout)
    viewer.add_panel("notes", lambda step: f"t = {step.t}")
    data = page_data(viewer.to_html(progress=False))
    assert data["state"]["has_frames"] is False
    assert info_column(data, "k") == list(range(20))
    assert len(cards_of(data, "notes")) == 20


def test_the_file_is_written_whole_or_not_at_all(viewer, tmp_path):
    path = viewer.to_html(tmp_path / "episode.html", progress=False)
    assert path == tmp_path / "episode.html"
    assert path.read_text() == viewer.to_html(progress=False)
    with pytest.raises(FileNotFoundError):
        viewer.to_html(tmp_path / "missing" / "episode.html", progress=False)
    (tmp_path / "folder.html").mkdir()
    with pytest.raises(IsADirectoryError):
        viewer.to_html(tmp_path / "folder.html", progress=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["episode.html", "folder.html"]


def test_a_comparison_page_holds_each_rollouts_page_and_the_shared_state(frames):
    a = Rollout.from_arrays(frames=frames, actions=np.zeros(39, int))
    b = Rollout.from_arrays(frames=frames[:25], actions=np.r_[np.zeros(5, int), np.ones(19, int)])
    compare = CompareViewer({"lean": a, "stubborn": b}, title="two", step=3, shared_scales=False)
    compare.panel("notes")(lambda step: f"t = {step.t}")
    compare.viewers[1].add_panel("only b", lambda step: "b")
    data = page_data(compare.to_html(skip_panels=["only b"], progress=False))
    assert data["widget"] == "compare"
    state = data["state"]
    assert state["viewers"] == ["IPY_MODEL_0", "IPY_MODEL_1"]
    assert (state["labels"], state["length"], state["step"], state["title"]) == (
        ["lean", "stubborn"],
        40,
        3,
        "two",
    )
    assert state["shared_scales"] is False
    lean, stubborn = data["children"]
    assert (lean["state"]["length"], stubborn["state"]["length"]) == (40, 25)
    assert list(stubborn["blocks"][0]["cards"]) == ["notes"]
    np.testing.assert_array_equal(frames_of(stubborn), frames[:25])
    with pytest.raises(KeyError, match="no rollout has a panel 'nope'"):
        compare.to_html(skip_panels=["nope"], progress=False)


def test_a_long_episode_comes_in_blocks_the_one_shown_first_in_the_file():
    frames = np.random.default_rng(5).integers(0, 255, (200, 48, 64, 3), dtype=np.uint8)
    page = EpisodeViewer(frames, step=150).to_html(progress=False)
    data = page_data(page)
    ranges = [block["chunks"] for block in data["blocks"]]
    assert len(ranges) > 3  # 9 KB a frame: a few chunks a block
    assert ranges[0][0] == 0
    assert ranges[-1][1] == 13
    assert all(a[1] == b[0] for a, b in itertools.pairwise(ranges))
    np.testing.assert_array_equal(frames_of(data), frames)
    shown = next(b for b, (first, end) in enumerate(ranges) if first <= 150 // 16 < end)
    ids = re.findall(r'id="agent-widget-block-0-(\d+)"', page)
    assert int(ids[0]) == shown  # the viewer's first request is answered first
    assert sorted(map(int, ids)) == list(range(len(ranges)))


def test_the_progress_bar_shows_with_its_count_from_the_start(viewer, capsys):
    """No empty "page: 0item" bar before the real one: each line drawn has a total."""
    viewer.to_html(progress=True)
    drawn = [line.strip() for line in re.split(r"[\r\n]", capsys.readouterr().err) if line.strip()]
    assert drawn, "no progress bar"
    assert all(re.match(r"page: +\d+%\|.*\| *\d+/\d+ ", line) for line in drawn), drawn
