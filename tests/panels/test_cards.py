"""Panel results converted into cards: every accepted type, and every way to get it wrong."""

from __future__ import annotations

import io
import zlib

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.figure import Figure
from PIL import Image

from agent_widget.episodes import Rollout
from agent_widget.panels import Step
from agent_widget.panels._cards import ACCEPTED, MAX_TEXT, TRACEBACK_FRAMES, Card, compute
from agent_widget.panels._heatmap import LUT

NAMES = ["NOOP", "FIRE", "RIGHT"]
FRAME_SIZE = (6, 8)


def step_at(t: int = 0, names: list[str] | None = NAMES, frames: bool = True) -> Step:
    """A step of a 3-position episode whose actions are 2 then 0, with 6x8 frames."""
    rollout = Rollout.from_arrays(
        frames=np.zeros((3, *FRAME_SIZE, 3), np.uint8) if frames else None,
        actions=[2, 0],
        metadata={} if names is None else {"action_names": names},
    )
    return Step(rollout, t)


def card_of(result, step: Step | None = None, overlay: bool = False) -> Card:
    return compute(lambda _step: result, step or step_at(), overlay)


def values(card: Card) -> list[float]:
    return np.frombuffer(card.buffers[0], "<f8").tolist()


def pixels(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)))


def levels(card: Card) -> np.ndarray:
    """A heatmap card's levels: its first buffer inflated, at the map's size."""
    cells = np.frombuffer(zlib.decompress(card.buffers[0]), np.uint8)
    return cells.reshape(card.meta["height"], card.meta["width"])


def assert_error(card: Card, error: str, *phrases: str) -> None:
    assert card.kind == "error"
    assert card.meta["error"] == error
    for phrase in phrases:
        assert phrase in card.meta["message"]


# Bars


def test_a_1d_array_becomes_bars_of_its_exact_values():
    card = card_of(np.array([0.5, -1.25, 3.0], np.float32))
    assert card.kind == "bars"
    assert values(card) == [0.5, -1.25, 3.0]


def test_bars_of_one_value_per_action_are_labelled_with_the_names_and_highlight_the_action():
    card = card_of(np.array([1.0, 2.0, 3.0]), step_at(0))
    assert card.meta == {"labels": NAMES, "highlight": 2}
    assert card_of(np.array([1.0, 2.0, 3.0]), step_at(1)).meta["highlight"] == 0


def test_bars_at_the_last_position_highlight_nothing():
    assert card_of(np.array([1.0, 2.0, 3.0]), step_at(2)).meta["highlight"] is None


def test_bars_of_another_length_than_the_actions_are_numbered_and_not_highlighted():
    card = card_of(np.arange(4), step_at(0))
    assert card.meta == {"labels": ["0", "1", "2", "3"], "highlight": None}


def test_without_action_names_bars_are_numbered_and_the_action_highlighted():
    card = card_of(np.arange(4), step_at(0, names=None))
    assert card.meta == {"labels": ["0", "1", "2", "3"], "highlight": 2}


def test_array_likes_such_as_tensors_are_converted():
    class Tensor:
        def __array__(self, dtype=None, copy=None):
            return np.array([4.0, 5.0, 6.0])

    card = card_of(Tensor())
    assert (card.kind, values(card)) == ("bars", [4.0, 5.0, 6.0])


def test_a_dict_of_numbers_becomes_bars_labelled_by_its_keys():
    card = card_of({"NOOP": 1, "RIGHT": np.float32(2.5), "other": True})
    assert card.kind == "bars"
    assert values(card) == [1.0, 2.5, 1.0]
    assert card.meta == {"labels": ["NOOP", "RIGHT", "other"], "highlight": 1}


def test_a_dict_keyed_by_action_number_highlights_the_action_without_names():
    card = card_of({0: 0.1, 1: 0.2, 2: 0.7}, step_at(0, names=None))
    assert card.meta == {"labels": ["0", "1", "2"], "highlight": 2}


def test_a_dict_with_a_value_that_is_not_a_number_is_an_error():
    card = card_of({"a": 1.0, "b": "high"})
    assert_error(card, "PanelResultError", "value for 'b' is str", "a number per key")


def test_an_empty_array_is_an_error_that_points_to_none():
    assert_error(card_of(np.zeros(0)), "PanelResultError", "no values", "return None")


# Heatmaps


def test_a_2d_array_becomes_a_heatmap_of_levels_from_its_min_to_its_max():
    card = card_of(np.array([[-1.0, 0.0], [1.0, 3.0]]))
    assert card.kind == "heatmap"
    assert card.meta == {
        "width": 2,
        "height": 2,
        "min": -1.0,
        "max": 3.0,
        "colormap": "viridis",
        "overlay": False,
    }
    # level = 1 + round(254 * (v - min) / (max - min)): the minimum 1, the maximum 255
    assert levels(card).tolist() == [[1, 65], [128, 255]]


def test_a_heatmap_travels_at_its_own_size_as_one_level_per_cell_deflated():
    card = card_of(np.linspace(0.0, 1.0, 15).reshape(3, 5))
    assert card.buffers[0][:1] == b"\x78"  # a zlib stream (RFC 1950)
    assert levels(card).ravel().tolist() == [1 + round(254 * i / 14) for i in range(15)]


def test_a_heatmap_carries_its_colormap_for_the_colour_bar():
    card = card_of(np.eye(3))
    assert card.buffers[1] == LUT.tobytes()
    assert len(card.buffers[1]) == 256 * 3


def test_the_colormap_is_viridis():
    viridis = matplotlib.colormaps["viridis"](np.linspace(0, 1, 256))[:, :3] * 255
    assert np.abs(viridis - LUT).max() <= 6


def test_integer_and_boolean_maps_are_heatmaps_too():
    card = card_of(np.eye(2, dtype=bool))
    assert (card.kind, levels(card).tolist()) == ("heatmap", [[255, 1], [1, 255]])
    assert card_of(np.arange(6, dtype=np.int16).reshape(2, 3)).meta["max"] == 5.0


def test_non_finite_values_are_level_0_and_left_out_of_the_range():
    card = card_of(np.array([[0.0, np.nan], [np.inf, -np.inf], [2.0, 1.0]]))
    assert (card.meta["min"], card.meta["max"]) == (0.0, 2.0)
    assert levels(card).tolist() == [[1, 0], [0, 0], [255, 128]]


def test_a_map_without_finite_values_is_an_error():
    assert_error(card_of(np.full((2, 2), np.nan)), "PanelResultError", "no finite values")


def test_a_constant_map_is_the_lowest_level():
    assert (levels(card_of(np.full((2, 2), 7.0))) == 1).all()


def test_an_overlay_map_stays_at_its_own_size_for_the_page_to_scale():
    card = card_of(np.array([[0.0, 1.0, 0.5]]), overlay=True)
    assert card.meta["overlay"] is True
    assert (card.meta["width"], card.meta["height"]) == (3, 1)
    assert levels(card).tolist() == [[1, 255, 128]]


class LabelledMap(np.ndarray):
    """A map that says what it shows and that it is no picture of the frame."""

    caption = "on the observation's 2x2 grid"
    over_frame = False


def test_a_map_that_is_no_picture_of_the_frame_stays_in_its_card_with_its_caption():
    card = card_of(np.eye(2).view(LabelledMap), overlay=True)
    assert (card.kind, card.meta["overlay"]) == ("heatmap", False)
    assert card.meta["caption"] == "on the observation's 2x2 grid"


def test_an_overlay_without_frames_is_an_ordinary_heatmap():
    card = card_of(np.eye(2), step_at(frames=False), overlay=True)
    assert (card.kind, card.meta["overlay"], card.meta["width"]) == ("heatmap", False, 2)


# Images


@pytest.mark.parametrize("channels", [3, 4])
def test_a_uint8_image_becomes_a_png_of_exactly_its_pixels(channels):
    image = np.random.default_rng(0).integers(0, 256, (5, 7, channels), np.uint8)
    card = card_of(image)
    assert card.kind == "image"
    assert card.meta == {"width": 7, "height": 5, "overlay": False}
    np.testing.assert_array_equal(pixels(card.buffers[0]), image)


def test_a_2d_uint8_array_is_a_greyscale_picture_and_a_float_one_a_heatmap():
    stacked = np.random.default_rng(2).integers(0, 256, (84, 84), np.uint8)  # an Atari frame
    card = card_of(stacked)
    assert card.kind == "image"
    np.testing.assert_array_equal(pixels(card.buffers[0]), np.stack([stacked] * 3, axis=2))
    assert card_of(stacked.astype(float)).kind == "heatmap"  # how a heatmap is asked for


def test_an_overlay_image_stays_at_its_own_size_for_the_page_to_scale():
    image = np.random.default_rng(1).integers(0, 256, (3, 4, 4), np.uint8)
    card = card_of(image, overlay=True)
    assert card.meta == {"width": 4, "height": 3, "overlay": True}
    np.testing.assert_array_equal(pixels(card.buffers[0]), image)


def test_an_overlay_image_without_frames_is_an_ordinary_image():
    card = card_of(np.zeros((3, 4, 3), np.uint8), step_at(frames=False), overlay=True)
    assert card.meta == {"width": 4, "height": 3, "overlay": False}


def test_a_float_colour_image_is_an_error_saying_to_convert_it():
    assert_error(card_of(np.zeros((4, 4, 3))), "PanelResultError", "must be uint8", ACCEPTED)


def test_a_single_channel_image_is_an_error_saying_to_drop_the_axis():
    assert_error(card_of(np.zeros((4, 4, 1))), "PanelResultError", "x[..., 0]")


@pytest.mark.parametrize(
    ("result", "phrase"),
    [
        (np.zeros((2, 2, 2, 2)), "shape (2, 2, 2, 2)"),
        (np.array(3.0), "return a str"),
        (np.array(["a", "b"]), "dtype <U1"),
        (np.zeros(3, complex), "dtype complex128"),
    ],
)
def test_arrays_of_other_shapes_or_dtypes_are_errors(result, phrase):
    assert_error(card_of(result), "PanelResultError", phrase)


def test_an_image_that_is_too_large_is_an_error():
    huge = np.broadcast_to(np.zeros((1, 1), np.float32), (5000, 5000))
    assert_error(card_of(huge), "PanelResultError", "shape (5000, 5000)", "pixels")


# Figures


def test_a_pyplot_figure_becomes_its_png_and_is_closed():
    figure, axes = plt.subplots(figsize=(2, 1), dpi=50)
    axes.plot([0, 1], [1, 0])
    card = card_of(figure)
    assert card.kind == "image"
    assert card.meta == {"width": 100, "height": 50, "overlay": False}
    assert pixels(card.buffers[0]).shape[:2] == (50, 100)
    assert figure.number not in plt.get_fignums()


def test_figures_made_in_every_call_do_not_pile_up():
    before = len(plt.get_fignums())
    for t in range(3):
        compute(lambda step: plt.subplots()[0], step_at(t))
    assert len(plt.get_fignums()) == before


def test_a_figure_made_without_pyplot_is_shown_too():
    figure = Figure(figsize=(1, 1), dpi=40)
    figure.add_subplot().bar([0, 1], [1, 2])
    card = card_of(figure)
    assert card.meta == {"width": 40, "height": 40, "overlay": False}


def test_an_overlay_figure_is_its_png_at_its_own_size():
    card = card_of(Figure(figsize=(1, 1), dpi=30), overlay=True)
    assert card.meta == {"width": 30, "height": 30, "overlay": True}
    assert pixels(card.buffers[0]).shape[:2] == (30, 30)


def test_a_figure_that_fails_to_draw_is_an_error_and_still_closed():
    figure, axes = plt.subplots()
    axes.set_title(r"$\frac$")  # bad mathtext fails when drawn
    card = card_of(figure)
    assert card.kind == "error"
    assert "frac" in card.meta["message"]
    assert figure.number not in plt.get_fignums()


# Text and nothing


def test_a_string_becomes_text_as_it_is():
    text = "<b>lives</b> & 3\nnext line"
    assert card_of(text) == Card("text", {"text": text})


def test_a_very_long_string_is_cut_with_a_note():
    card = card_of("x" * (MAX_TEXT + 10))
    assert card.meta["text"].startswith("x" * MAX_TEXT)
    assert card.meta["text"].endswith("(10 more characters not shown)")


def test_none_means_nothing_for_this_step():
    assert card_of(None) == Card("empty")


# Errors


@pytest.mark.parametrize(
    ("result", "name"),
    [([1.0, 2.0], "list"), (3.5, "float"), (object(), "object"), (b"png", "bytes")],
)
def test_an_unsupported_result_is_an_error_naming_its_type_and_the_accepted_ones(result, name):
    card = card_of(result)
    assert_error(card, "PanelResultError", f"the panel returned {name};", ACCEPTED)
    assert card.meta["traceback"] == ""


def test_an_unsupported_result_from_a_library_names_its_module():
    from fractions import Fraction

    assert_error(card_of(Fraction(1, 3)), "PanelResultError", "returned fractions.Fraction")


def failing_panel(step):
    return helper(step.t)


def helper(t):
    return 1 / (t - t)


def test_an_exception_becomes_an_error_card_with_the_users_traceback():
    card = compute(failing_panel, step_at(0))
    assert_error(card, "ZeroDivisionError", "division by zero")
    trace = card.meta["traceback"]
    assert "in failing_panel\n    return helper(step.t)" in trace
    assert "in helper\n    return 1 / (t - t)" in trace
    assert "agent_widget" not in trace


def test_the_traceback_keeps_only_the_last_frames():
    def recurse(depth):
        if depth == 0:
            raise ValueError("deep")
        if depth % 2:  # alternate lines: Python folds a line repeated in a row
            return recurse(depth - 1)
        return recurse(depth - 1)

    trace = compute(lambda step: recurse(20), step_at()).meta["traceback"]
    assert trace.count("File ") == TRACEBACK_FRAMES
    assert trace.endswith('raise ValueError("deep")\n')


def test_a_very_long_exception_message_is_cut():
    def panel(step):
        raise RuntimeError("x" * 100_000)

    assert len(compute(panel, step_at()).meta["message"]) < 2_100


def test_a_card_counts_its_buffers_and_meta_in_its_size():
    assert card_of(np.zeros(100)).nbytes >= 100 * 8
    assert card_of("x" * 5000).nbytes >= 5000


# Bars that say more


class Annotated(dict):
    """A dict of bars with the optional attributes a richer result carries."""

    def __init__(self, values, **attributes):
        super().__init__(values)
        self.__dict__.update(attributes)


def test_a_mapping_can_name_the_taken_and_greedy_bars_a_fixed_scale_and_a_caption():
    result = Annotated(
        {"a": 1.0, "b": 3.0}, taken=0, greedy=1, scale=(-5, 5), caption="V 3 · greedy b"
    )
    card = card_of(result, step_at(1))
    assert card.meta == {
        "labels": ["a", "b"],
        "highlight": 0,
        "greedy": 1,
        "scale": [-5.0, 5.0],
        "caption": "V 3 · greedy b",
    }


def test_a_taken_of_none_highlights_nothing():
    card = card_of(Annotated({"NOOP": 1.0, "RIGHT": 2.0}, taken=None), step_at(0))
    assert card.meta["highlight"] is None


@pytest.mark.parametrize(
    ("attributes", "phrase"),
    [
        ({"greedy": 2}, "greedy must be an index below 2, got 2"),
        ({"taken": True}, "taken must be an index below 2"),
        ({"scale": (1.0, 1.0)}, "scale must be finite (low, high)"),
        ({"scale": (0.0, float("inf"))}, "scale must be finite"),
    ],
)
def test_bad_bar_annotations_are_errors(attributes, phrase):
    card = card_of(Annotated({"a": 1.0, "b": 2.0}, **attributes))
    assert_error(card, "PanelResultError", phrase)


def test_figures_a_panel_leaves_open_are_closed_whatever_it_returns():
    before = len(plt.get_fignums())
    step = step_at()

    def axes(step):
        return plt.subplots()[1]

    def raises_after_plotting(step):
        plt.subplots()
        raise ValueError("late")

    assert compute(axes, step).kind == "image"  # an Axes draws as its figure
    assert compute(raises_after_plotting, step).meta["error"] == "ValueError"
    assert compute(lambda s: (plt.figure(), "text")[1], step).kind == "text"
    assert len(plt.get_fignums()) == before


def test_a_result_too_big_for_bars_is_an_error_card():
    card = compute(lambda step: np.zeros(20_000_000, np.float32), step_at())
    assert (card.kind, card.meta["error"]) == ("error", "PanelResultError")
    assert "20,000,000 values; bars show at most 10,000" in card.meta["message"]
    big = compute(lambda step: {str(i): 1.0 for i in range(10_001)}, step_at())
    assert "10,001 values" in big.meta["message"]


def test_a_card_keeps_the_value_returned_and_counts_it_in_its_bytes():
    """A heatmap's card is a few hundred bytes of levels; the 2 MB map it was made of is
    kept beside it (for viewer.card), so the cache's bound counts both."""
    heat = np.zeros((512, 512))
    card = card_of(heat)
    assert card.returned.get() is heat
    assert card.nbytes > heat.nbytes > 50 * sum(len(b) for b in card.buffers)


def test_a_card_of_a_figure_counts_the_pixels_its_canvas_keeps():
    figure = Figure(figsize=(4, 3), dpi=100)
    figure.add_subplot().plot([0, 1])
    card = card_of(figure)
    assert card.returned.get() is figure
    assert card.nbytes > 4 * 400 * 300


def test_a_card_of_a_panel_that_raised_raises_it_again_each_time_read():
    def broken(step):
        raise KeyError(f"no key at {step.t}")

    returned = compute(broken, step_at(1)).returned
    for _ in range(2):  # raising again does not grow its traceback
        with pytest.raises(KeyError, match="no key at 1") as raised:
            returned.get()
        assert [entry.name for entry in raised.traceback][-2:] == ["compute", "broken"]
