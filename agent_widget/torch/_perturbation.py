"""Perturbation saliency of Greydanus et al. 2018, "Visualizing and Understanding Atari Agents".

At each point of a grid (stride 5) a Gaussian mask (sigma 5) blends a blurred copy
of the image (sigma 3) into it, ``I' = I (1 - M) + blur(I) M``, and the point scores
``1/2 ||L(I) - L(I')||^2``, with ``L`` what the model outputs for the chosen target
(the policy's logits, one action's, or the value). Unlike an occlusion patch the
blur removes information without adding a foreign shape the network never saw.

The masked images are scored in batches (about 290 for an 84x84 observation). Both
Gaussian filters are the paper's ``scipy.ndimage.gaussian_filter`` (reflecting
boundary, kernel cut at 4 sigma) written as matrices, so blurring an image is two
matrix products and scipy is not needed.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable

import numpy as np
import torch

STRIDE = 5
MASK_SIGMA = 5.0
BLUR_SIGMA = 3.0
BATCH_SIZE = 320  # masked images per forward pass: all of an 84x84 grid (289) at once
_TRUNCATE = 4.0  # scipy.ndimage's default kernel extent, in sigmas

ScoreFunction = Callable[[torch.Tensor], torch.Tensor]
"""Maps a batch of (C, H, W) images to what is compared, shape (batch, k)."""


@functools.lru_cache(maxsize=32)
def gaussian_matrix(size: int, sigma: float) -> np.ndarray:
    """(size, size) matrix ``G`` with ``G @ x`` = ``gaussian_filter1d(x, sigma)`` along axis 0.

    Boundary as scipy's ``mode="reflect"``: ``d c b a | a b c d | d c b a``.
    """
    radius = int(_TRUNCATE * sigma + 0.5)
    offsets = np.arange(-radius, radius + 1)
    weights = np.exp(-0.5 * (offsets / sigma) ** 2)
    weights /= weights.sum()
    sources = np.arange(size)[:, None] + offsets[None, :]
    sources = np.mod(sources, 2 * size)
    sources = np.where(sources >= size, 2 * size - 1 - sources, sources)
    matrix = np.zeros((size, size))
    rows = np.repeat(np.arange(size), len(offsets))
    np.add.at(matrix, (rows, sources.reshape(-1)), np.tile(weights, size))
    return matrix


def grid_shape(height: int, width: int, stride: int = STRIDE) -> tuple[int, int]:
    """Rows and columns of mask centres: ``0, stride, 2 stride, ...`` below each size."""
    return math.ceil(height / stride), math.ceil(width / stride)


@functools.lru_cache(maxsize=8)
def masks(height: int, width: int, stride: int = STRIDE, sigma: float = MASK_SIGMA) -> np.ndarray:
    """(K, H, W) float32: one mask per grid point, in row-major grid order.

    Each is the paper's: the pixels within distance 1 of the centre, Gaussian
    filtered with ``sigma`` and scaled so that its peak is 1.
    """
    rows, cols = grid_shape(height, width, stride)
    disks = np.zeros((rows * cols, height, width))
    k = np.arange(rows * cols)
    centre_y, centre_x = (k // cols) * stride, (k % cols) * stride
    for dy, dx in ((0, 0), (-1, 0), (1, 0), (0, -1), (0, 1)):
        y, x = centre_y + dy, centre_x + dx
        inside = (y >= 0) & (y < height) & (x >= 0) & (x < width)
        disks[k[inside], y[inside], x[inside]] = 1.0
    spread = gaussian_matrix(height, sigma) @ disks @ gaussian_matrix(width, sigma).T
    spread /= spread.max(axis=(1, 2), keepdims=True)
    return spread.astype(np.float32)


def blurred(image: torch.Tensor, sigma: float = BLUR_SIGMA) -> torch.Tensor:
    """Gaussian filter of each channel of a (C, H, W) image over its two spatial axes."""
    height, width = image.shape[-2:]
    along_y = torch.as_tensor(gaussian_matrix(height, sigma), dtype=image.dtype)
    along_x = torch.as_tensor(gaussian_matrix(width, sigma), dtype=image.dtype)
    return along_y.to(image.device) @ image @ along_x.to(image.device).T


def perturbation_scores(
    score: ScoreFunction,
    image: torch.Tensor,
    *,
    stride: int = STRIDE,
    mask_sigma: float = MASK_SIGMA,
    blur_sigma: float = BLUR_SIGMA,
    batch_size: int = BATCH_SIZE,
) -> np.ndarray:
    """The saliency grid of a (C, H, W) float image: ``1/2 ||L(I) - L(I')||^2`` per point.

    Runs ``score`` without gradients, once on the image and once per mask, batched.

    Examples:
        >>> image = torch.zeros(1, 84, 84)
        >>> image[0, 40:44, 60:64] = 1.0
        >>> patch_sum = lambda batch: batch[:, :, 40:44, 60:64].sum((1, 2, 3))[:, None]
        >>> grid = perturbation_scores(patch_sum, image)
        >>> grid.shape, [int(i) for i in np.unravel_index(grid.argmax(), grid.shape)]
        ((17, 17), [8, 12])
    """
    if image.ndim != 3:
        raise ValueError(f"expected a (C, H, W) image, got shape {tuple(image.shape)}")
    height, width = image.shape[1:]
    with torch.no_grad():
        reference = score(image[None])
        difference = blurred(image, blur_sigma) - image
        bank = torch.as_tensor(masks(height, width, stride, mask_sigma), device=image.device)
        scores = []
        for first in range(0, len(bank), batch_size):
            chunk = bank[first : first + batch_size, None]  # (b, 1, H, W): one mask, all channels
            outputs = score(image + chunk * difference)
            scores.append(0.5 * (outputs - reference).pow(2).sum(dim=1))
    grid = torch.cat(scores).double().cpu().numpy()
    return grid.reshape(grid_shape(height, width, stride))
