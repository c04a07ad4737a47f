"""Greydanus et al. perturbation saliency: the batched version equals the paper's loop."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from agent_widget.torch._perturbation import (
    gaussian_matrix,
    grid_shape,
    masks,
    perturbation_scores,
)


def gaussian_filter(image: np.ndarray, sigma: float) -> np.ndarray:
    """scipy.ndimage.gaussian_filter of a 2-D array, written out pixel by pixel.

    mode="reflect" (d c b a | a b c d | d c b a), truncate=4.0.
    """
    radius = int(4.0 * sigma + 0.5)
    weights = [math.exp(-0.5 * (k / sigma) ** 2) for k in range(-radius, radius + 1)]
    total = sum(weights)
    height, width = image.shape

    def reflect(i: int, n: int) -> int:
        while not 0 <= i < n:
            i = -i - 1 if i < 0 else 2 * n - i - 1
        return i

    rows = np.zeros_like(image, dtype=np.float64)
    for y in range(height):
        for x in range(width):
            rows[y, x] = sum(
                w * image[reflect(y + k - radius, height), x] for k, w in enumerate(weights)
            )
    out = np.zeros_like(rows)
    for y in range(height):
        for x in range(width):
            out[y, x] = sum(
                w * rows[y, reflect(x + k - radius, width)] for k, w in enumerate(weights)
            )
    return out / total**2


def paper_mask(center: tuple[int, int], size: tuple[int, int], sigma: float) -> np.ndarray:
    """get_mask() of the paper's code: a radius-1 disk, Gaussian-filtered, peak scaled to 1."""
    y, x = np.ogrid[-center[0] : size[0] - center[0], -center[1] : size[1] - center[1]]
    disk = (x * x + y * y <= 1).astype(np.float64)
    mask = gaussian_filter(disk, sigma)
    return mask / mask.max()


def paper_scores(model, image: np.ndarray, stride: int, mask_sigma: float, blur_sigma: float):
    """score_frame() of the paper's code: one masked image and one forward pass per point."""
    height, width = image.shape[1:]
    blurred = np.stack([gaussian_filter(plane, blur_sigma) for plane in image])

    def logits(x: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            return model(torch.as_tensor(x[None], dtype=torch.float32))[0].double().numpy()

    reference = logits(image)
    rows, cols = math.ceil(height / stride), math.ceil(width / stride)
    scores = np.zeros((rows, cols))
    for i in range(0, height, stride):
        for j in range(0, width, stride):
            mask = paper_mask((i, j), (height, width), mask_sigma)
            perturbed = image * (1 - mask) + blurred * mask
            scores[i // stride, j // stride] = 0.5 * ((reference - logits(perturbed)) ** 2).sum()
    return scores


def tiny_model() -> torch.nn.Module:
    torch.manual_seed(0)
    return torch.nn.Sequential(
        torch.nn.Conv2d(2, 3, 3), torch.nn.Tanh(), torch.nn.Flatten(), torch.nn.LazyLinear(4)
    )


def test_the_gaussian_matrix_is_scipys_reflecting_filter():
    image = np.random.default_rng(0).normal(size=(9, 13))
    for sigma in (1.0, 3.0, 5.0):  # sigma 5 reaches past both edges: reflects more than once
        filtered = gaussian_matrix(9, sigma) @ image @ gaussian_matrix(13, sigma).T
        np.testing.assert_allclose(filtered, gaussian_filter(image, sigma), rtol=1e-10)


def test_the_masks_are_the_papers():
    bank = masks(12, 17, stride=5, sigma=2.0)
    rows, cols = grid_shape(12, 17, 5)
    assert bank.shape == (rows * cols, 12, 17)
    for k, (i, j) in enumerate((i, j) for i in range(0, 12, 5) for j in range(0, 17, 5)):
        np.testing.assert_allclose(bank[k], paper_mask((i, j), (12, 17), 2.0), atol=1e-6)


def test_batched_scores_equal_the_papers_unbatched_loop():
    model = tiny_model()
    image = np.random.default_rng(1).uniform(size=(2, 11, 14)).astype(np.float32)
    model(torch.zeros(1, 2, 11, 14))  # materialize the lazy layer
    expected = paper_scores(model, image, stride=3, mask_sigma=2.0, blur_sigma=1.5)
    scores = perturbation_scores(
        lambda batch: model(batch),
        torch.as_tensor(image),
        stride=3,
        mask_sigma=2.0,
        blur_sigma=1.5,
        batch_size=4,  # several batches, the last one short
    )
    np.testing.assert_allclose(scores, expected, rtol=1e-4, atol=1e-9)


def test_an_84x84_observation_takes_289_masked_passes_at_the_papers_settings():
    assert grid_shape(84, 84) == (17, 17)
    assert masks(84, 84).shape == (289, 84, 84)


def test_a_non_image_is_refused():
    with pytest.raises(ValueError, match=r"\(C, H, W\)"):
        perturbation_scores(lambda batch: batch, torch.zeros(84, 84))
