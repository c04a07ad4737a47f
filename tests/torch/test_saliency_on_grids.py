"""Saliency maps only where they belong (issue #52): over the frame where the observation
is a picture of it, else on the observation's own grid, labelled, drawn in its card
even for an overlay panel. A real SB3 PPO on real MiniGrid episodes, its map checked
against a gradient taken through SB3's own modules."""

from __future__ import annotations

import ale_py
import gymnasium as gym
import numpy as np
import pytest
import torch
from minigrid.wrappers import ImgObsWrapper, RGBImgObsWrapper
from stable_baselines3 import PPO

from agent_widget import record
from agent_widget.panels import Step
from agent_widget.panels._cards import to_card
from agent_widget.torch import Saliency
from agent_widget.torch._bars import action_labels
from tests.torch_nets import RegionNet

gym.register_envs(ale_py)


def minigrid(rgb: bool = False) -> gym.Env:
    env = gym.make("MiniGrid-Empty-5x5-v0", render_mode="rgb_array")
    return ImgObsWrapper(RGBImgObsWrapper(env) if rgb else env)


def ppo_step(rgb: bool = False, t: int = 2) -> tuple[PPO, Step]:
    model = PPO("MlpPolicy", minigrid(rgb), n_steps=16, batch_size=16, seed=0)
    return model, Step(record(minigrid(rgb), model, seed=0, max_steps=5), t)


def actor_gradient(model: PPO, obs: np.ndarray) -> tuple[np.ndarray, int]:
    """|d logit_a / d obs| summed over the channels, a the preferred action, through SB3's
    own modules; the observation as SB3 transposes it (channels first)."""
    policy = model.policy
    x = torch.as_tensor(obs.transpose(2, 0, 1)[None], dtype=torch.float32).requires_grad_()
    latent_pi, _ = policy.mlp_extractor(policy.extract_features(x))
    logits = policy.action_net(latent_pi)[0]
    action = int(logits.argmax())
    (gradient,) = torch.autograd.grad(logits[action], x)
    return gradient[0].abs().sum(dim=0).double().numpy(), action


def test_minigrids_egocentric_view_gets_its_own_7x7_map_labelled_as_such():
    model, step = ppo_step()
    expected, action = actor_gradient(model, step.obs)
    assert action == int(model.predict(step.obs, deterministic=True)[0])
    saliency = Saliency(model)(step)
    assert saliency.shape == (7, 7)  # not stretched over the 160x160 frame of the grid
    np.testing.assert_allclose(saliency, expected, rtol=1e-5, atol=1e-9)
    name = action_labels(model.action_space.n, step.action_names)[action]
    assert saliency.caption == (
        f"gradient of the actor's logit of {name}, "
        "on the observation's 7x7 grid: it is no picture of the frame"
    )


def test_a_map_on_its_own_grid_is_drawn_in_its_card_even_for_an_overlay_panel():
    model, step = ppo_step()
    card = to_card(Saliency(model, method="perturbation")(step), step, overlay=True)
    assert card.kind == "heatmap"
    assert (card.meta["width"], card.meta["height"], card.meta["overlay"]) == (7, 7, False)
    assert card.meta["caption"].startswith("perturbation of the actor's logit of ")


def test_minigrids_full_grid_pixels_are_a_picture_and_their_map_goes_over_the_frame():
    model, step = ppo_step(rgb=True)
    saliency = Saliency(model, target="value")(step)
    assert saliency.shape == step.frame.shape[:2] == (160, 160)
    assert saliency.caption == "gradient of the critic's V, over the frame"
    assert to_card(saliency, step, overlay=True).meta["overlay"] is True


def test_over_frame_decides_without_the_check():
    model, step = ppo_step()
    assert Saliency(model, over_frame=True)(step).shape == (160, 160)
    model, step = ppo_step(rgb=True)
    assert Saliency(model, over_frame=False)(step).shape == (40, 40)


def test_ataris_preprocessed_stacked_screens_map_over_the_frame():
    env = gym.make("ALE/Pong-v5", frameskip=1, render_mode="rgb_array")
    stacked = gym.wrappers.FrameStackObservation(gym.wrappers.AtariPreprocessing(env), 4)
    step = Step(record(stacked, lambda obs: 0, seed=0, max_steps=4), 2)
    saliency = Saliency(RegionNet(), target=1)(step)
    assert saliency.shape == (210, 160)
    assert saliency.caption == "gradient of the network's output 1, over the frame"


@pytest.mark.parametrize(
    ("target", "words"),
    [(0, "the network's output LEFT"), ("value", "the largest of the network's outputs")],
)
def test_a_vector_models_features_say_which_output_they_explain(target, words):
    cartpole = gym.make("CartPole-v1")
    step = Step(record(cartpole, lambda obs: 0, seed=0, max_steps=3), 1)
    torch.manual_seed(0)
    features = Saliency(torch.nn.Linear(4, 2), target=target)(step)
    assert len(features) == 4
    assert features.caption == f"gradient of {words}, per feature"
    assert to_card(features, step).meta["caption"] == features.caption
