"""Episode storage side by side: .rollout vs one PNG per frame vs np.savez_compressed.

1,000 steps of Pong under a seeded random policy (the episode is reset when it ends,
so the frames keep coming), stored three ways:

- ``.rollout``: agent_widget's format, with everything record() keeps (frames,
  observations, actions, rewards, flags, infos); the frames-only share is listed too;
- one PNG file per frame (Pillow, default level 6), like TensorBoard's Agent plugin;
- ``np.savez_compressed`` of the (n, 210, 160, 3) frame array.

Random access times opening the store and reading frame i (200 random i; .npz
decompresses the whole array per access, so it gets 10). Then load() of a
100,000-step file, built by repeating the episode's encoded Pong chunks (synthetic,
but real payloads: every frame decodes).

    .venv/bin/python -m benchmarks.storage            # prints and updates RESULTS.md
"""

from __future__ import annotations

import io
import os
import shutil
import statistics
import tempfile
import time
import zipfile
from collections.abc import Callable
from pathlib import Path

import gymnasium as gym
import numpy as np
from PIL import Image

from agent_widget.episodes import Rollout, load
from agent_widget.format._chunk_index import INDEX, LENGTH, OBSERVATIONS, OFFSET, STREAM
from benchmarks.results import arguments, code_version, command, machine, publish, today
from harness.long_episodes import RepeatedFrames

TITLE = "Storage"
SEED = 0
STEPS = 1_000
LONG_STEPS = 100_000
SAMPLES = 200  # random frames read from each store
NPZ_SAMPLES = 10  # .npz inflates the whole array per read
LOADS = 5
ACTIONS = 6  # Pong's


def pong_episode() -> dict:
    """1,000 random-policy Pong steps as the arrays record() would collect."""
    import ale_py

    gym.register_envs(ale_py)
    env = gym.make("ALE/Pong-v5", render_mode="rgb_array")
    env.action_space.seed(SEED)
    observation, info = env.reset(seed=SEED)
    data: dict[str, list] = {"frames": [env.render()], "observations": [observation]}
    data.update(actions=[], rewards=[], terminated=[], truncated=[], infos=[info])
    for _ in range(STEPS):
        action = env.action_space.sample()
        observation, reward, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            observation, info = env.reset()
        step = (env.render(), observation, action, reward, terminated, truncated, info)
        for values, value in zip(data.values(), step, strict=True):
            values.append(value)
    env.close()
    return {key: np.stack(value) if key != "infos" else value for key, value in data.items()}


def timed(function: Callable[[], object]) -> float:
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


def access_times(read: Callable[[int], np.ndarray], frames: np.ndarray, samples: int) -> list:
    """Seconds per read of a random frame, checking each result against the original."""
    times = []
    for i in np.random.default_rng(SEED).integers(len(frames), size=samples):
        start = time.perf_counter()
        frame = read(int(i))
        times.append(time.perf_counter() - start)
        assert np.array_equal(frame, frames[i]), f"frame {i} differs"
    return times


def bench_rollout(episode: dict, folder: Path) -> dict:
    path = folder / "pong.rollout"
    save = timed(lambda: Rollout.from_arrays(**episode).save(path))
    loaded = load(path)
    frame_bytes = sum(
        len(part.payload)
        for k in range(loaded.frames.num_chunks)
        for part in loaded.frames.chunk(k)
    )
    times = access_times(lambda i: loaded.frames[i], episode["frames"], SAMPLES)
    return {
        "bytes": path.stat().st_size,
        "frame_bytes": frame_bytes,
        "observation_bytes": observation_bytes(path),
        "save": save,
        "read": times,
        "in_order": in_order_time(path, episode["frames"]),
    }


def observation_bytes(path: Path) -> int:
    """Bytes of chunks.bin holding observations only (a payload shared with frames is not)."""
    with zipfile.ZipFile(path) as archive:
        table = np.load(io.BytesIO(archive.read(INDEX)))
    frames = set(table[table[:, STREAM] < OBSERVATIONS, OFFSET].tolist())
    rows = table[table[:, STREAM] >= OBSERVATIONS]
    return sum(int(row[LENGTH]) for row in rows if int(row[OFFSET]) not in frames)


def in_order_time(path: Path, frames: np.ndarray) -> float:
    """Seconds per frame reading every frame in order from a freshly opened file."""
    stored = load(path).frames
    start = time.perf_counter()
    read = [stored[t] for t in range(len(stored))]
    seconds = (time.perf_counter() - start) / len(stored)
    assert np.array_equal(np.stack(read), frames), "frames read in order differ"
    return seconds


def bench_png(frames: np.ndarray, folder: Path) -> dict:
    pngs = folder / "png"
    pngs.mkdir()

    def save() -> None:
        for t, frame in enumerate(frames):
            Image.fromarray(frame).save(pngs / f"{t:06d}.png")

    seconds = timed(save)
    size = sum(p.stat().st_size for p in pngs.iterdir())
    times = access_times(lambda i: np.asarray(Image.open(pngs / f"{i:06d}.png")), frames, SAMPLES)
    return {"bytes": size, "save": seconds, "read": times}


def bench_npz(frames: np.ndarray, folder: Path) -> dict:
    path = folder / "frames.npz"
    seconds = timed(lambda: np.savez_compressed(path, frames=frames))

    def read(i: int) -> np.ndarray:
        with np.load(path) as archive:
            return archive["frames"][i]

    return {
        "bytes": path.stat().st_size,
        "save": seconds,
        "read": access_times(read, frames, NPZ_SAMPLES),
    }


def bench_long_load(episode: dict, folder: Path) -> dict:
    """load() of a 100,000-step file, and the first frame read from the middle of it."""
    rng = np.random.default_rng(SEED)
    frames = RepeatedFrames(Rollout.from_arrays(frames=episode["frames"]).frames, LONG_STEPS + 1)
    infos = [episode["infos"][t % STEPS] for t in range(LONG_STEPS + 1)]
    path = folder / "long.rollout"
    Rollout.from_arrays(
        frames=frames,
        actions=rng.integers(ACTIONS, size=LONG_STEPS),
        rewards=rng.choice([-1.0, 0.0, 1.0], LONG_STEPS, p=[0.01, 0.98, 0.01]),
        infos=infos,
        extras={"q_values": rng.normal(size=(LONG_STEPS, ACTIONS)).astype(np.float32)},
    ).save(path)
    loads = [timed(lambda: load(path)) for _ in range(LOADS)]
    loaded = load(path)
    first = timed(lambda: loaded.frames[LONG_STEPS // 2])
    with zipfile.ZipFile(path) as archive:
        up_front = sum(i.file_size for i in archive.infolist() if i.filename != "chunks.bin")
    return {
        "bytes": path.stat().st_size,
        "load": loads,
        "first_frame": first,
        "read_up_front": up_front,
    }


def ms(seconds: float) -> str:
    return f"{seconds * 1e3:.2f}" if seconds < 0.1 else f"{seconds * 1e3:,.0f}"


def table(rows: dict[str, dict], frames: int) -> str:
    lines = [
        "| storage | bytes/frame | read one frame: median (ms) | p95 (ms) | save (ms) |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, row in rows.items():
        read = row["read"]
        p95 = float(np.percentile(read, 95))
        lines.append(
            f"| {name} | {row['bytes'] / frames:,.0f} | {ms(statistics.median(read))} "
            f"| {ms(p95)} | {ms(row['save'])} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = arguments(__doc__.splitlines()[0])
    args = parser.parse_args(argv)
    load_start = os.getloadavg()[0]
    episode = pong_episode()
    frames = episode["frames"]
    folder = Path(tempfile.mkdtemp(prefix="aw-bench-"))
    try:
        rollout = bench_rollout(episode, folder)
        png = bench_png(frames, folder)
        npz = bench_npz(frames, folder)
        long = bench_long_load(episode, folder)
    finally:
        shutil.rmtree(folder)
    rows = {".rollout": rollout, "one PNG per frame": png, "np.savez_compressed": npz}
    n = len(frames)
    result = table(rows, n)
    per_frame = rollout["bytes"] / n
    read = statistics.median(rollout["read"])
    png_read, npz_read = statistics.median(png["read"]), statistics.median(npz["read"])
    load_median = statistics.median(long["load"])
    bars = [
        ("bytes per frame at most 300", per_frame <= 300, f"{per_frame:.0f} B"),
        ("random access median under 3 ms", read < 3e-3, f"{read * 1e3:.2f} ms"),
        (f"load() of {LONG_STEPS:,} steps under 0.5 s", load_median < 0.5, f"{ms(load_median)} ms"),
    ]
    verdicts = "\n".join(
        f"- {bar}: {value}, {'meets' if ok else 'MISSES'} the bar" for bar, ok, value in bars
    )
    body = (
        f"`{command('benchmarks.storage', argv)}` ({today()}, code {code_version()}, "
        f"{machine(load_start)}, medians).\n"
        f"{n:,} frames of ALE/Pong-v5 ({frames.shape[1]}x{frames.shape[2]} RGB), seeded "
        "random policy, reset when an "
        "episode ends. The .rollout file holds everything record() keeps (frames, "
        "observations, actions, rewards, flags, infos); the other two hold frames only. "
        "Random access = open the "
        f"store and read frame i, checked against the original ({len(rollout['read'])} "
        f"random i; .npz: {len(npz['read'])}, as it inflates the whole array each time).\n\n"
        f"{result}\n\n"
        f"The .rollout file is {png['bytes'] / rollout['bytes']:.1f}x smaller than one PNG "
        f"per frame; its frames alone ({rollout['frame_bytes'] / n:.0f} B/frame, zlib-runs) "
        f"are {npz['bytes'] / rollout['frame_bytes']:.1f}x smaller than np.savez_compressed. "
        "Pong's observations are its frames, and large observations are encoded as frames "
        "are (zlib-runs over their bytes), so a chunk's observations have its frame part's "
        "payload, stored once: observation payloads not shared with frames take "
        f"{rollout['observation_bytes'] / n:.0f} B/frame of the file. "
        f"Reading one frame is {npz_read / read:,.0f}x faster than from the .npz and "
        f"{read / png_read:.1f}x the time of opening its PNG: frame i of a part needs the "
        "part's first frame inflated and the changes up to frame i replayed. Reading every "
        f"frame in order (`frames[t]`, t = 0, 1, ...) costs {ms(rollout['in_order'])} ms per "
        "frame: the frames decoded last are kept, so each chunk is inflated about once.\n\n"
        f"load() of a {LONG_STEPS:,}-step file: {ms(load_median)} ms (median of "
        f"{len(long['load'])}; first call {ms(long['load'][0])} ms); then frame "
        f"{LONG_STEPS // 2:,} in "
        f"{ms(long['first_frame'])} ms. load() reads {long['read_up_front'] / 2**20:.1f} MiB "
        "up front (zip directory, meta.json, per-step arrays, the chunk index); frames, "
        "observations and infos are read on demand. The file is synthetic: the episode's "
        "encoded chunks repeated (so chunks.bin stores each distinct chunk once and the file "
        f"is {long['bytes'] / 2**20:.1f} MiB), with {LONG_STEPS + 1:,} infos and (T, "
        f"{ACTIONS}) float32 q_values extras.\n\n"
        f"{verdicts}"
    )
    publish(TITLE, body, write=not args.no_write)


if __name__ == "__main__":
    main()
