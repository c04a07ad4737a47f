"""save_video's MP4 against imageio's default MP4 of the same frames: bytes, CPU, PSNR.

Two episodes: ALE/Pong-v5 under a seeded random policy (``scenes.pong``, 210x160 pixel
art) and the synthetic 480x480 render (``scenes.render_episode``: smooth shading), each
at scale 1 and at save_video's default scale (Pong: 2; the render: 1, the same). Ours:
``EpisodeViewer(rollout, fps=30).save_video(path, scale=s, progress=False)``, its
defaults otherwise (the step counter above the frame). imageio's:
``imageio.v2.mimwrite(path, frames, fps=30, macro_block_size=1)`` of the episode's frames
enlarged by ``s`` as save_video enlarges them (whole pixels repeated), prepared before
the clock: its default quality 5 (libx264 at CRF 25, yuv420p); ``macro_block_size=1``
keeps the frames' size (imageio's default 16 would resize Pong's 210 rows to 224,
costing it bytes and CPU).

A third side is the encoding alone: the pictures save_video films, composed beforehand
(collected from the same call), given to its MP4 writer: what its x264 settings cost,
the floor under composing. In one long-lived process: a warm-up of each side, then
``--pairs`` rounds, each round's order shuffled. CPU is every process's: this one's
(``RUSAGE_SELF``, every thread) and ffmpeg's (``RUSAGE_CHILDREN``: imageio waits for
its ffmpeg, so the child's CPU is counted when the writer closes). Each time is
divided by imageio's of its round; the table gives medians. PSNR decodes each MP4 back
with imageio: ours against the pictures save_video filmed (the same call, with the
frames collected instead of encoded), over the whole picture and over the episode's
frame in it; imageio's against its frames. Pong is filmed again without the counter:
what the counter alone costs.

    .venv/bin/python -m benchmarks.video            # ~8 min; prints and updates RESULTS.md
"""

from __future__ import annotations

import contextlib
import os
import resource
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import imageio
import imageio.v3 as iio
import imageio_ffmpeg
import numpy as np

from agent_widget import EpisodeViewer
from agent_widget.episodes import Rollout
from agent_widget.viewer import _video
from agent_widget.viewer._film import default_scale
from benchmarks import scenes
from benchmarks.results import (
    arguments,
    code_version,
    command,
    machine,
    publish,
    shuffled_orders,
    today,
)

TITLE = "Filming a clip: save_video against imageio"
FPS = 30
# The targets (#54): bytes within 1.5x of imageio's at the same scale, CPU within
# 1.2x of it at scale 1, PSNR at least 40 dB against the frames filmed.
BYTES_FACTOR, CPU_FACTOR, MIN_PSNR = 1.5, 1.2, 40.0


def cpu_seconds() -> float:
    """CPU of this process (every thread) and of its children waited for (ffmpeg)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def psnr(squared_error: float, count: int) -> float:
    """Peak signal-to-noise ratio in dB of a mean squared error over 8-bit values."""
    mse = squared_error / count
    return 10 * np.log10(255**2 / mse) if mse else float("inf")


@contextlib.contextmanager
def collected(pictures: list[np.ndarray]) -> Iterator[None]:
    """save_video's MP4 writer replaced by one keeping each picture it is given."""

    @contextlib.contextmanager
    def keeping(path: Path, fps: float, crf: int) -> Iterator[Callable[[np.ndarray], None]]:
        yield lambda picture: pictures.append(np.array(picture))

    before = _video._mp4
    _video._mp4 = keeping  # type: ignore[assignment]
    try:
        yield
    finally:
        _video._mp4 = before  # type: ignore[assignment]


@dataclass
class Case:
    name: str
    scale: int
    counter: bool
    bytes: dict[str, int]
    cpu: dict[str, list[float]]
    wall: dict[str, list[float]]
    psnr: dict[str, float]

    def ratio(self, values: dict[str, list[float]], side: str = "ours") -> float:
        pairs = zip(values[side], values["imageio"], strict=True)
        return statistics.median(ours / theirs for ours, theirs in pairs)


def measure(
    name: str, rollout: Rollout, scale: int, counter: bool, pairs: int, folder: Path
) -> Case:
    """Every side on ``rollout`` at ``scale``, ours with the step ``counter`` or without:
    a warm-up, then ``pairs`` shuffled rounds."""
    frames = np.stack([np.asarray(rollout.frames[t]) for t in range(rollout.num_positions)])
    grown = frames.repeat(scale, 1).repeat(scale, 2) if scale > 1 else frames
    viewer = EpisodeViewer(rollout, fps=FPS)
    pictures: list[np.ndarray] = []
    with collected(pictures):
        viewer.save_video(
            folder / "collected.mp4", scale=scale, step_counter=counter, progress=False
        )
    paths = {side: folder / f"{side}.mp4" for side in ("ours", "imageio", "encoding")}

    def encoding() -> None:
        with _video._mp4(paths["encoding"], FPS, _video.mp4_crf(scale)) as append:
            for picture in pictures:
                append(picture)

    sides: dict[str, Callable[[], object]] = {
        "encoding": encoding,
        "ours": lambda: viewer.save_video(
            paths["ours"], scale=scale, step_counter=counter, progress=False
        ),
        "imageio": lambda: imageio.v2.mimwrite(
            paths["imageio"], grown, fps=FPS, macro_block_size=1
        ),
    }
    for side in sides.values():
        side()
    cpu: dict[str, list[float]] = {side: [] for side in sides}
    wall: dict[str, list[float]] = {side: [] for side in sides}
    for order in shuffled_orders(list(sides), pairs):
        for side in order:
            start_cpu, start = cpu_seconds(), time.perf_counter()
            sides[side]()
            wall[side].append(time.perf_counter() - start)
            cpu[side].append(cpu_seconds() - start_cpu)
    viewer.close()
    # The frame sits under the counter (an even number of rows), over any padding row.
    top = (pictures[0].shape[0] - grown.shape[1]) // 2 * 2
    errors = {"whole": 0.0, "frame": 0.0, "imageio": 0.0}
    counts = dict.fromkeys(errors, 0)
    for picture, decoded in zip(pictures, iio.imiter(paths["ours"], plugin="FFMPEG"), strict=True):
        framed = slice(top, top + grown.shape[1]), slice(0, grown.shape[2])
        for key, (a, b) in {
            "whole": (picture, decoded),
            "frame": (picture[framed], decoded[framed]),
        }.items():
            errors[key] += float(((a.astype(np.float64) - b) ** 2).sum())
            counts[key] += a.size
    for frame, decoded in zip(grown, iio.imiter(paths["imageio"], plugin="FFMPEG"), strict=True):
        errors["imageio"] += float(((frame.astype(np.float64) - decoded) ** 2).sum())
        counts["imageio"] += frame.size
    return Case(
        name,
        scale,
        counter,
        {side: path.stat().st_size for side, path in paths.items()},
        cpu,
        wall,
        {key: psnr(errors[key], counts[key]) for key in errors},
    )


def row(case: Case) -> str:
    """The table's row of ``case``: sizes, CPU medians and their ratio, PSNR."""
    sizes, cpu = case.bytes, case.cpu
    return (
        f"| {case.name} | {case.scale} | {'yes' if case.counter else 'no'} | "
        f"{sizes['imageio'] / 1e3:,.1f} | {sizes['ours'] / 1e3:,.1f} | "
        f"{sizes['ours'] / sizes['imageio']:.2f}x | {statistics.median(cpu['imageio']):.2f} | "
        f"{statistics.median(cpu['ours']):.2f} | {case.ratio(cpu):.2f}x | "
        f"{case.ratio(cpu, 'encoding'):.2f}x | "
        f"{statistics.median(case.wall['ours']):.2f} | {case.psnr['whole']:.1f} / "
        f"{case.psnr['frame']:.1f} dB | {case.psnr['imageio']:.1f} dB |"
    )


def main(argv: list[str] | None = None) -> None:
    parser = arguments(__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=7, help="timed pairs after the warm-up")
    parser.add_argument("--pong-steps", type=int, default=1_000)
    parser.add_argument("--render-steps", type=int, default=500)
    args = parser.parse_args(argv)
    load_start = os.getloadavg()[0]
    episodes = {
        f"ALE/Pong-v5, {args.pong_steps:,} steps (210x160)": scenes.pong(args.pong_steps),
        f"Synthetic {scenes.BIG}x{scenes.BIG}, {args.render_steps:,} steps": (
            scenes.render_episode(args.render_steps)
        ),
    }
    cases = []
    with tempfile.TemporaryDirectory() as scratch:
        for name, rollout in episodes.items():
            height = np.asarray(rollout.frames[0]).shape[0]
            scales = sorted({1, default_scale(height)})
            # Pong again without the counter: what the counter alone costs.
            counters = (True, False) if name.startswith("ALE") else (True,)
            for counter in counters:
                for scale in scales:
                    case = measure(name, rollout, scale, counter, args.pairs, Path(scratch))
                    cases.append(case)
                    print(case, flush=True)
    table = [
        "| episode | scale | counter | imageio KB | ours KB | bytes | imageio CPU s "
        "| ours CPU s | CPU | encoding alone | ours wall s | PSNR ours: picture / frame "
        "| PSNR imageio |",
        "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        *map(row, cases),
    ]
    body = (
        f"`{command('benchmarks.video', argv)}` ({today()}, code {code_version()}, "
        f"{machine(load_start)}; imageio {imageio.__version__}, ffmpeg "
        f"{imageio_ffmpeg.get_ffmpeg_version()}).\n\n"
        f"{args.pairs} rounds after a warm-up, each round's order shuffled, in one "
        "process; CPU of every process (this one and ffmpeg), divided by imageio's of its "
        "round, medians. imageio: `mimwrite(path, frames, fps=30, macro_block_size=1)` of "
        "the frames enlarged as ours (its default quality 5: CRF 25). Ours: "
        "`save_video(path, scale=s)`, with the step counter or `step_counter=False`. "
        "Encoding alone: the pictures save_video films, composed beforehand, given to its "
        "MP4 writer (the floor of its settings). PSNR of the decoded MP4 against the "
        "pictures filmed (picture) and the episode's frame in them (frame). "
        f"Targets: bytes ≤ {BYTES_FACTOR}x, CPU ≤ {CPU_FACTOR}x at scale 1, PSNR ≥ "
        f"{MIN_PSNR:.0f} dB.\n\n" + "\n".join(table)
    )
    publish(TITLE, body, not args.no_write)


if __name__ == "__main__":
    main()
