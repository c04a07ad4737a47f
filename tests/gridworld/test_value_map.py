"""ValueMap: the colours, arrows, tiles and marks of a grid world's value map, by pixel."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

from agent_widget.agents import greedy_policy
from agent_widget.gridworld import ValueMap
from agent_widget.gridworld._glyphs import AGENT, GRID, INK, TILE_COLOURS, letter
from agent_widget.gridworld._layout import CLIFF, GOAL, HOLE
from agent_widget.panels import Step
from agent_widget.panels._cards import compute
from agent_widget.panels._heatmap import LUT
from agent_widget.recording import record

SIZE = 40  # pixels per cell (the default)
LEFT, DOWN, RIGHT, UP = range(4)  # FrozenLake's actions
DIRECTIONS = {LEFT: (0, -1), DOWN: (1, 0), RIGHT: (0, 1), UP: (-1, 0)}


def cell(image, row, col):
    """The pixels inside the grid lines of a cell."""
    return image[row * SIZE + 1 : (row + 1) * SIZE, col * SIZE + 1 : (col + 1) * SIZE]


def inked(pixels):
    return np.all(pixels == INK, axis=-1)


def ink_along(image, row, col, direction, offset=0.33):
    """Whether there is ink at ``offset`` cell sizes from the centre towards ``direction``."""
    pixels = cell(image, row, col)
    centre = (pixels.shape[0] - 1) // 2
    d_row, d_col = direction
    reach = round(offset * SIZE)
    return bool(inked(pixels[centre + d_row * reach, centre + d_col * reach]))


def test_a_cell_is_coloured_by_its_value_on_the_colour_scale(lake):
    q_table = np.zeros((16, 4))
    q_table[6] = [0.1, 0.25, 0.2, 0.0]  # V = 0.25 in cell (1, 2)
    image = ValueMap(lake, value_range=(0.0, 1.0)).image(q_table)
    corner = cell(image, 1, 2)[-3, -3]  # away from the arrow
    assert corner.tolist() == LUT[round(0.25 * 255)].tolist()


def test_the_colour_scale_spans_the_values_shown_leaving_out_holes_and_goal(lake):
    q_table = np.full((16, 4), 0.5)
    q_table[0] = 0.2  # lowest
    q_table[14] = 0.9  # highest
    q_table[5] = 100.0  # a hole: never learned, not on the scale
    image = ValueMap(lake).image(q_table)
    assert cell(image, 0, 0)[-3, -3].tolist() == LUT[0].tolist()
    assert cell(image, 3, 2)[-3, -3].tolist() == LUT[255].tolist()
    assert cell(image, 0, 1)[-3, -3].tolist() == LUT[round(0.3 / 0.7 * 255)].tolist()


@pytest.mark.parametrize("action", [LEFT, DOWN, RIGHT, UP])
def test_the_arrow_points_to_the_greedy_action(lake, action):
    q_table = np.zeros((16, 4))
    q_table[6, action] = 1.0
    image = ValueMap(lake).image(q_table)
    pixels = cell(image, 1, 2)
    rows, cols = np.nonzero(inked(pixels))
    centre = (pixels.shape[0] - 1) / 2
    d_row, d_col = DIRECTIONS[action]
    # The arrow's head, where most of its ink is, lies on the greedy side of the centre.
    along = (rows.mean() - centre) * d_row + (cols.mean() - centre) * d_col
    across = (rows.mean() - centre) * d_col + (cols.mean() - centre) * d_row
    assert along > 1
    assert abs(across) < 0.5


def test_tied_actions_each_get_an_arrow(lake):
    q_table = np.zeros((16, 4))
    q_table[6] = [0.0, 0.5, 0.5, 0.1]  # DOWN and RIGHT tie
    image = ValueMap(lake).image(q_table)
    drawn = {a for a, d in DIRECTIONS.items() if ink_along(image, 1, 2, d)}
    assert drawn == {DOWN, RIGHT}


def test_an_untouched_all_zero_row_shows_every_action_as_tied(lake):
    image = ValueMap(lake).image(np.zeros((16, 4)))
    assert all(ink_along(image, 1, 2, d) for d in DIRECTIONS.values())


@pytest.mark.parametrize("size", [20, SIZE])
@pytest.mark.parametrize("greedy", [[DOWN], [RIGHT], [UP], [LEFT, DOWN, RIGHT, UP]])
def test_the_start_letter_is_clear_of_the_policy_drawn_in_its_cell(lake, size, greedy):
    q_table = np.zeros((16, 4))
    q_table[0, greedy] = 0.5
    image = ValueMap(lake, cell_size=size).image(q_table)
    start = letter(size - 1, "S", corner=True)  # the start's mark, drawn alone
    pixels = image[1:size, 1:size]
    assert (pixels[start.mask] == start.rgb[start.mask]).all()  # every pixel of it intact
    outside = inked(pixels) & ~start.mask
    assert outside.sum() > 20  # and the policy drawn beside it
    rows, cols = np.nonzero(outside)
    d_row, d_col = DIRECTIONS[greedy[0]] if len(greedy) == 1 else (0, 0)
    if d_row or d_col:  # a single arrow still points its way
        centre = (rows.mean(), cols.mean())
        tip = max(zip(rows, cols, strict=True), key=lambda rc: rc[0] * d_row + rc[1] * d_col)
        assert (tip[0] - centre[0]) * d_row + (tip[1] - centre[1]) * d_col > 2


def test_a_value_table_draws_colours_without_arrows(lake):
    values = np.linspace(0, 1, 16)
    image = ValueMap(lake, value_range=(0.0, 1.0)).image(values)
    assert not inked(cell(image, 1, 2)).any()
    assert cell(image, 1, 2)[5, 5].tolist() == LUT[round(6 / 15 * 255)].tolist()


def test_holes_and_the_goal_are_tiles_outside_the_scale(lake):
    image = ValueMap(lake).image(np.random.default_rng(0).random((16, 4)))
    hole, goal = cell(image, 1, 1), cell(image, 3, 3)
    assert hole[1, 1].tolist() == list(TILE_COLOURS[HOLE])
    assert inked(hole[SIZE // 2, SIZE // 2])  # the pit
    assert goal[1, 1].tolist() == list(TILE_COLOURS[GOAL])
    assert inked(goal).any()  # its letter G


def test_the_agent_is_ringed_in_its_cell(lake):
    image = ValueMap(lake).image(np.zeros((16, 4)), state=9)  # row 2, column 1
    ringed = np.all(image == AGENT, axis=-1)
    rows, cols = np.nonzero(ringed)
    assert rows.size > 0
    assert (rows.min() // SIZE, cols.min() // SIZE) == (2, 1)
    assert (rows.max() // SIZE, cols.max() // SIZE) == (2, 1)


def test_no_state_no_ring(lake):
    image = ValueMap(lake).image(np.zeros((16, 4)))
    assert not np.all(image == AGENT, axis=-1).any()


def test_cells_are_framed_by_grid_lines(lake):
    image = ValueMap(lake).image(np.zeros((16, 4)))
    assert (image[::SIZE, : 4 * SIZE + 1][:5] == GRID).all()
    assert image.shape == (4 * SIZE + 1, *ValueMap(lake).size[1:], 3)


def test_the_8x8_map_and_a_custom_map_are_read_from_the_env():
    big = gym.make("FrozenLake-v1", map_name="8x8")
    assert ValueMap(big).image(np.zeros((64, 4))).shape[0] == 8 * SIZE + 1
    custom = gym.make("FrozenLake-v1", desc=["SFH", "FFG"])
    image = ValueMap(custom).image(np.zeros((6, 4)))
    assert image.shape[0] == 2 * SIZE + 1
    assert cell(image, 0, 2)[1, 1].tolist() == list(TILE_COLOURS[HOLE])
    assert cell(image, 1, 2)[1, 1].tolist() == list(TILE_COLOURS[GOAL])


def test_cliff_walking_shows_its_cliff_and_goal():
    env = gym.make("CliffWalking-v1")
    image = ValueMap(env).image(np.zeros((48, 4)), state=36)
    assert image.shape[:2] == (4 * SIZE + 1, ValueMap(env).size[1])
    assert all(cell(image, 3, c)[1, 1].tolist() == list(TILE_COLOURS[CLIFF]) for c in range(1, 11))
    assert cell(image, 3, 11)[1, 1].tolist() == list(TILE_COLOURS[GOAL])
    assert np.all(cell(image, 3, 0) == AGENT, axis=-1).any()


def test_taxi_shows_its_positional_part_with_pickup_as_a_letter():
    env = gym.make("Taxi-v4")
    taxi = env.unwrapped
    q_table = np.zeros((500, 6))
    at_stand = taxi.encode(0, 0, 0, 1)  # taxi at R, passenger waiting at R, bound for G
    q_table[at_stand, 4] = 1.0  # PICKUP
    beside = taxi.encode(0, 1, 0, 1)
    q_table[beside, 3] = 1.0  # WEST, towards the passenger
    image = ValueMap(env).image(q_table, state=taxi.encode(2, 2, 0, 1))
    pickup = cell(image, 0, 0)
    assert inked(pickup[SIZE // 2 - 2 : SIZE // 2 + 2, SIZE // 2 - 2 : SIZE // 2 + 2]).any()
    assert ink_along(image, 0, 1, (0, -1))
    assert not ink_along(image, 0, 1, (0, 1))
    assert np.all(cell(image, 2, 2) == AGENT, axis=-1).any()


def test_taxi_draws_its_walls():
    image = ValueMap(gym.make("Taxi-v4")).image(np.zeros((500, 6)))
    wall = image[SIZE // 2, 2 * SIZE - 1 : 2 * SIZE + 2]  # between (0, 1) and (0, 2)
    open_street = image[SIZE // 2, 3 * SIZE - 1 : 3 * SIZE + 2]  # between (0, 2) and (0, 3)
    assert (wall == GRID).all()
    assert not (open_street == GRID).all()


class Corridor(gym.Env):
    """Five states in a row; not a grid gymnasium knows."""

    observation_space = gym.spaces.Discrete(5)
    action_space = gym.spaces.Discrete(2)


def test_any_discrete_env_is_drawn_given_the_cell_of_each_state():
    value_map = ValueMap(Corridor(), cells=[(0, s) for s in range(5)], actions=["LEFT", "RIGHT"])
    q_table = np.zeros((5, 2))
    q_table[2, 1] = 1.0
    image = value_map.image(q_table, state=2)
    assert image.shape[0] == SIZE + 1
    assert ink_along(image, 0, 2, (0, 1))
    assert not ink_along(image, 0, 2, (0, -1))


def test_two_states_in_one_cell_are_refused():
    with pytest.raises(ValueError, match=r"states 0 and 1 both lie at \(0, 0\)"):
        ValueMap(Corridor(), cells=[(0, 0), (0, 0), (0, 1), (0, 2), (0, 3)])


def test_an_unknown_env_without_cells_is_refused_with_the_fix():
    with pytest.raises(ValueError, match="pass cells="):
        ValueMap(Corridor())


def test_a_table_of_the_wrong_shape_is_refused_naming_both(lake):
    with pytest.raises(ValueError, match=r"\(64, 4\).*\(16, 4\)"):
        ValueMap(lake).image(np.zeros((64, 4)))


def test_a_state_the_env_does_not_have_is_refused(lake):
    with pytest.raises(ValueError, match="state 16 is out of range: the env has 16"):
        ValueMap(lake).image(np.zeros((16, 4)), state=16)


def test_it_works_as_an_episode_viewer_panel_ringing_the_agent(lake):
    q_table = np.zeros((16, 4))
    q_table[:, DOWN] = 1.0
    rollout = record(lake, greedy_policy(q_table, seed=0), seed=0)
    value_map = ValueMap(lake, q_table)
    step = Step(rollout, 1)
    image = value_map(step)[..., :3]
    row, col = divmod(int(rollout.observations[1]), 4)
    assert np.all(cell(image, row, col) == AGENT, axis=-1).any()
    card = compute(value_map, step)
    assert card.kind == "image"
    assert (card.meta["height"], card.meta["width"]) == value_map.size


def test_as_a_panel_it_is_transparent_around_the_grid_and_the_colour_bar(lake):
    """A card on a dark theme shows the page around the map, not a white box."""
    value_map = ValueMap(lake, np.zeros((16, 4)))
    image = value_map(Step(record(lake, lambda obs: DOWN, seed=0, max_steps=2), 0))
    assert image.shape == (*value_map.size, 4)
    alpha = image[..., 3]
    grid = 4 * SIZE + 1
    assert (alpha[:grid, :grid] == 255).all()  # the map itself is opaque
    bar = grid + 6  # the colour bar after its gap
    assert (alpha[:, bar : bar + 12] == 255).all()
    assert (alpha[:, grid:bar] == 0).all()  # the gap shows the page
    labels = alpha[:, bar + 12 :]
    assert 0 < (labels == 255).mean() < 0.5  # the labels and their halo, nothing else
    rgb = image[..., :3][:, bar + 12 :][labels == 255]
    assert inked(rgb).any()  # black ink
    assert (rgb == 255).all(axis=-1).any()  # and its white halo
    same = value_map.image(np.zeros((16, 4)), state=0)  # the agent starts in state 0
    assert (image[..., :3] == same).all()  # the same picture


def test_values_may_be_a_function_of_the_step(lake):
    tables = np.zeros((3, 16, 4))
    tables[2, 6, RIGHT] = 1.0
    rollout = record(lake, lambda obs: DOWN, seed=0, max_steps=2)
    image = ValueMap(lake, lambda step: tables[step.t])(Step(rollout, 2))[..., :3]
    assert ink_along(image, 1, 2, (0, 1))
    assert not ink_along(image, 1, 2, (1, 0))
