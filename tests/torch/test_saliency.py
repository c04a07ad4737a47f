"""``Saliency``: maps that point where the model looks, on the frame, without side effects."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agent_widget.episodes import Rollout
from agent_widget.panels import Step
from agent_widget.torch import Saliency
from agent_widget.torch._saliency import METHODS
from tests.torch_nets import NAMES, REGION, ActorCritic, RegionNet, image_step, mlp, region_image

FRAME = (210, 160)  # Atari's screen, which 84x84 preprocessing stretched


def peak(values: np.ndarray) -> tuple[int, int]:
    row, col = np.unravel_index(np.argmax(values), values.shape)
    return int(row), int(col)


def inside_region(point: tuple[int, int], shape: tuple[int, int], margin: float = 0.0) -> bool:
    """Whether a point of a map of ``shape`` lies over REGION of the 84x84 observation."""
    rows, cols = REGION
    y, x = (point[0] + 0.5) * 84 / shape[0], (point[1] + 0.5) * 84 / shape[1]
    return (
        rows.start - margin <= y <= rows.stop + margin
        and cols.start - margin <= x <= cols.stop + margin
    )


@pytest.mark.parametrize("method", METHODS)
def test_each_method_peaks_where_the_output_looks(method):
    saliency = Saliency(RegionNet(), method=method)(image_step(region_image(), FRAME))
    assert saliency.shape == FRAME
    # perturbation scores a grid of stride 5: its peak may sit one grid step off the square
    assert inside_region(peak(saliency), FRAME, margin=5 if method == "perturbation" else 0)


@pytest.mark.parametrize("method", METHODS)
def test_each_method_leaves_the_rest_of_the_picture_cold(method):
    saliency = Saliency(RegionNet(), method=method)(image_step(region_image()))
    far = np.ones((84, 84), bool)
    far[15:51, 35:71] = False  # the square and a band around it (masks spread sigma 5)
    assert saliency[far].max() < 0.05 * saliency.max()


def test_without_frames_the_map_has_the_observation_resolution():
    saliency = Saliency(RegionNet())(image_step(region_image()))
    assert saliency.shape == (84, 84)
    assert inside_region(peak(saliency), (84, 84))


def test_stacked_frames_are_summed_onto_one_map():
    plane = region_image()[:1]
    one = Saliency(RegionNet())(image_step(plane))
    four = Saliency(RegionNet())(image_step(np.repeat(plane, 4, axis=0)))
    np.testing.assert_allclose(four, 4 * one, rtol=1e-5)  # identical planes: 4x the magnitude


def test_channel_last_observations_map_onto_the_frame_as_well():
    image = np.moveaxis(region_image(), 0, -1)  # (84, 84, 4)
    saliency = Saliency(RegionNet(channels_last=True))(image_step(image, FRAME))
    assert saliency.shape == FRAME
    assert inside_region(peak(saliency), FRAME)


def test_the_gradient_map_is_the_gradient_magnitude_summed_over_channels():
    image = region_image()
    saliency = Saliency(RegionNet(), target=2)(image_step(image))
    x = torch.as_tensor(image[None]).requires_grad_()
    (gradient,) = torch.autograd.grad(RegionNet()(x)[0, 2], x)
    np.testing.assert_allclose(saliency, gradient[0].abs().sum(0).numpy(), rtol=1e-5)


def test_vector_observations_give_signed_attributions_per_named_feature():
    model, step = mlp(), Step(vector_rollout(), 0, NAMES)
    names = ["x", "x_dot", "theta", "theta_dot"]
    saliency = Saliency(model, target=1, feature_names=names)(step)
    x = torch.as_tensor(step.obs[None]).requires_grad_()
    (gradient,) = torch.autograd.grad(model(x)[0, 1], x)
    assert list(saliency) == names
    np.testing.assert_allclose(list(saliency.values()), gradient[0].numpy(), rtol=1e-5)


def test_the_taken_target_explains_the_action_taken_and_nothing_at_the_end():
    model, rollout = mlp(), vector_rollout()
    taken = Saliency(model, target="taken")
    given = Saliency(model, target=int(rollout.actions[0]))
    assert taken(Step(rollout, 0)) == given(Step(rollout, 0))
    assert taken(Step(rollout, rollout.num_positions - 1)) is None


def test_the_argmax_target_explains_the_preferred_action():
    model, step = mlp(), Step(vector_rollout(), 0)
    preferred = int(model(torch.as_tensor(step.obs[None])).argmax())
    assert Saliency(model)(step) == Saliency(model, target=preferred)(step)


def test_the_value_target_explains_the_critic():
    model, step = ActorCritic(), Step(vector_rollout(), 0)
    x = torch.as_tensor(step.obs[None]).requires_grad_()
    (gradient,) = torch.autograd.grad(model(x)[1][0, 0], x)
    saliency = Saliency(model, target="value")(step)
    np.testing.assert_allclose(list(saliency.values()), gradient[0].numpy(), rtol=1e-5)


def test_the_value_of_a_q_network_is_its_max_q():
    step = image_step(region_image())
    by_value = Saliency(RegionNet(), target="value")(step)
    np.testing.assert_allclose(by_value, Saliency(RegionNet(), target=0)(step))


def test_perturbation_of_all_logits_is_the_papers_actor_saliency():
    step = image_step(region_image())
    every = Saliency(RegionNet(), method="perturbation", target="logits")(step)
    first = Saliency(RegionNet(), method="perturbation", target=0)(step)
    np.testing.assert_allclose(every, (1 + 1 + 0.25) * first, rtol=1e-5)  # scales 1, -1, 0.5


def test_method_options_reach_the_method():
    step = image_step(region_image())
    coarse = Saliency(RegionNet(), method="perturbation", stride=12)(step)
    fine = Saliency(RegionNet(), method="perturbation")(step)
    assert len(np.unique(coarse)) < len(np.unique(fine))


@pytest.mark.parametrize(
    ("arguments", "phrase"),
    [
        ({"method": "lime"}, "unknown saliency method 'lime'"),
        ({"target": "best"}, "target must be"),
        ({"target": True}, "target must be"),
        ({"target": "logits"}, 'method="perturbation" only'),
    ],
)
def test_bad_arguments_are_refused_by_name(arguments, phrase):
    with pytest.raises(ValueError, match=phrase):
        Saliency(mlp(), **arguments)


def test_an_action_index_out_of_range_is_named_with_the_step():
    with pytest.raises(ValueError, match="step 0: target 5"):
        Saliency(mlp(), target=5)(Step(vector_rollout(), 0))


def test_perturbation_of_a_vector_says_to_use_gradients():
    with pytest.raises(ValueError, match="method='gradient'"):
        Saliency(mlp(), method="perturbation")(Step(vector_rollout(), 0))


@pytest.mark.parametrize("method", METHODS)
def test_no_gradients_modes_or_inputs_are_left_changed(method):
    torch.manual_seed(0)
    model = torch.nn.Sequential(RegionNet(), torch.nn.Dropout(0.5)).train()
    image = region_image()
    Saliency(model, method=method)(image_step(image))
    assert model[0].scale.grad is None
    assert model[0].scale.requires_grad
    assert all(module.training for module in model.modules())
    assert torch.is_grad_enabled()
    np.testing.assert_array_equal(image, region_image())


def test_saliency_works_under_no_grad_too():
    with torch.no_grad():
        saliency = Saliency(RegionNet())(image_step(region_image()))
    assert saliency.max() > 0


def vector_rollout() -> Rollout:
    observations = np.random.default_rng(1).normal(size=(3, 4)).astype(np.float32)
    return Rollout.from_arrays(
        observations=observations, actions=[2, 0], metadata={"action_names": NAMES}
    )
