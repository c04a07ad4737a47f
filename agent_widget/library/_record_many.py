"""``record_many``: episodes of one policy over many seeds, recorded in parallel.

Each worker makes its env once, receives the policy once (a function or a torch
module, serialized with cloudpickle so notebook lambdas travel too) and records its
seeds one by one, each straight to a file (``record(path=...)``), then into the run
of a :class:`RunLibrary` (whose writers need no lock, in a folder or a bucket), into a
folder, or, with neither, back to the caller (a user evaluating a handful of seeds
wants the episodes, not files). The workers
are Ray actors when Ray is installed (a local cluster, or the one ``ray.init`` joined)
or processes of this machine. A seed whose recording raised, or whose worker died,
is reported in :attr:`Recorded.failed`, never silently missing.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from importlib.util import find_spec
from multiprocessing import get_context
from pathlib import Path
from typing import Any, Literal, NamedTuple

import cloudpickle
import gymnasium as gym
from tqdm.auto import tqdm

from agent_widget.episodes import Rollout, load
from agent_widget.library._run_file import Run
from agent_widget.library._run_library import RunLibrary
from agent_widget.recording import record

Engine = Literal["auto", "ray", "processes"]


@dataclass
class Recorded:
    """What :func:`record_many` recorded: the episodes by seed, and the seeds it could not."""

    paths: dict[int, Path | str]
    """seed -> the episode's file (in the run, or the folder), or its URL in a bucket."""
    failed: dict[int, str] = field(default_factory=dict)
    """seed -> why it was not recorded (the exception, or the worker that died)."""
    run: Run | None = None
    """The library's run after the last episode was added, when a library was given."""
    storage_options: dict[str, Any] | None = field(default=None, repr=False)
    """The bucket's filesystem options, for loading the episodes from their URLs."""
    kept: dict[int, Rollout] = field(default_factory=dict, repr=False)
    """seed -> the episode, when neither a library nor a folder was given."""

    @property
    def rollouts(self) -> list[Rollout]:
        """The recorded episodes in seed order: loaded from their files, or as kept."""
        loaded = {
            seed: load(path, storage_options=self.storage_options)
            for seed, path in self.paths.items()
        }
        episodes = {**loaded, **self.kept}
        return [episodes[seed] for seed in sorted(episodes)]


def record_many(
    make_env: Callable[[], gym.Env[Any, Any]],
    policy: Callable[[Any], Any],
    seeds: Iterable[int],
    *,
    library: RunLibrary | str | os.PathLike[str] | None = None,
    run: str | None = None,
    algorithm: str | None = None,
    agent: str | None = None,
    params: dict[str, Any] | None = None,
    metadata: dict[str, Any] | None = None,
    directory: str | os.PathLike[str] | None = None,
    engine: Engine = "auto",
    workers: int | None = None,
    max_steps: int = 10_000,
    progress: bool = True,
) -> Recorded:
    """Record one episode of ``policy`` per seed, in parallel, into a library run or a folder.

    Args:
        make_env: makes the env (each worker calls it once); ``render_mode="rgb_array"``
            for frames.
        policy: as for :func:`record`; sent to each worker once.
        seeds: one episode per seed.
        library: a :class:`RunLibrary` (or its folder, or its URL): each episode is
            added to ``run`` as it finishes, by the worker that recorded it. Else
            ``directory`` gets ``seed-<seed>.rollout`` files. With neither, the
            episodes come back in :attr:`Recorded.rollouts`: each sent back whole and
            held in a temporary file that is already deleted (the rollout reads it
            through its open descriptor; the system frees it with the rollout), so
            their frames stay encoded and out of memory.
        run: the run's name, as for :meth:`RunLibrary.add` (default: a new name).
        algorithm: the run's algorithm, as for :meth:`RunLibrary.add`.
        agent: the agent's name, kept in each episode's metadata.
        params: the run's parameters, as for :meth:`RunLibrary.add`.
        metadata: kept in each episode's metadata, as for :func:`record` (the arena
            names the players by seat in it).
        engine: ``"ray"``, ``"processes"`` or ``"auto"`` (Ray when installed).
        workers: how many workers (default: the machine's cores, or Ray's CPUs).
        max_steps: as for :func:`record`.
        progress: a progress bar (in a notebook, a widget).

    Examples:
        >>> done = record_many(make_env, policy, range(200), library="runs/",
        ...                    algorithm="dqn", run="eval")  # doctest: +SKIP
        >>> done.failed, len(done.paths)  # doctest: +SKIP
        ({}, 200)
        >>> episodes = record_many(make_env, policy, range(8)).rollouts  # doctest: +SKIP
    """
    seeds = list(dict.fromkeys(int(seed) for seed in seeds))
    if not seeds:
        raise ValueError("record_many needs at least one seed")
    if library is not None and not isinstance(library, RunLibrary):
        library = RunLibrary(library)
    if library is not None and run is None:
        run = f"record-many-{os.urandom(3).hex()}"
    folder = Path(directory) if directory is not None else None
    job = _WorkerJob(
        make_env, policy, max_steps, agent, algorithm, library, run, params, folder, metadata
    )
    chosen = _engine(engine)
    count = workers or (os.cpu_count() or 1)
    results = (_on_ray if chosen == "ray" else _on_processes)(cloudpickle.dumps(job), seeds, count)
    options = None if library is None else library.storage_options
    recorded = Recorded(paths={}, storage_options=options)
    run_id = None
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as scratch:
        for seed, outcome in tqdm(results, total=len(seeds), disable=not progress, unit="episode"):
            if isinstance(outcome, _Done):
                run_id, recorded.paths[seed] = outcome
            elif isinstance(outcome, _Sent):
                recorded.kept[seed] = _held(outcome.data, Path(scratch) / f"seed-{seed}.rollout")
            else:
                recorded.failed[seed] = outcome
    if library is not None and run_id is not None:
        recorded.run = library.open(run_id).run  # this run alone, not the whole library
    return recorded


def _engine(engine: Engine) -> str:
    if engine == "auto":
        return "ray" if find_spec("ray") is not None else "processes"
    if engine not in ("ray", "processes"):
        raise ValueError(f"engine must be 'auto', 'ray' or 'processes', not {engine!r}")
    return engine


class _Done(NamedTuple):
    """A recorded seed: the run it went to (None for a folder) and its file or URL."""

    run_id: str | None
    path: Path | str


class _Sent(NamedTuple):
    """A recorded seed with no destination: its ``.rollout`` file's bytes."""

    data: bytes


def _held(data: bytes, path: Path) -> Rollout:
    """The episode of a file's ``data``, read through a descriptor of a deleted file."""
    path.write_bytes(data)
    rollout = load(path)  # holds the file open: unlinking keeps it readable
    with contextlib.suppress(OSError):  # Windows: an open file stays until the folder goes
        path.unlink()
    return rollout


@dataclass
class _WorkerJob:
    """What every worker needs, sent once (pickled with cloudpickle)."""

    make_env: Callable[[], gym.Env[Any, Any]]
    policy: Callable[[Any], Any]
    max_steps: int
    agent: str | None
    algorithm: str | None
    library: RunLibrary | None
    run: str | None
    params: dict[str, Any] | None
    folder: Path | None
    metadata: dict[str, Any] | None = None


class _Worker:
    """One worker's env and policy; records seeds one at a time."""

    def __init__(self, job: bytes) -> None:
        self.job: _WorkerJob = cloudpickle.loads(job)
        self.env = self.job.make_env()

    def record(self, seed: int) -> _Done | _Sent | str:
        """Where the episode went, or why it could not be recorded."""
        job = self.job
        try:
            with tempfile.TemporaryDirectory() as scratch:
                path = Path(scratch) / "episode.rollout"
                if job.folder is not None:
                    job.folder.mkdir(parents=True, exist_ok=True)
                    path = job.folder / f"seed-{seed}.rollout"
                rollout = record(
                    self.env,
                    job.policy,
                    seed=seed,
                    max_steps=job.max_steps,
                    agent=job.agent,
                    algorithm=job.algorithm,
                    metadata=job.metadata,
                    path=path,
                )
                if job.library is None and job.folder is None:
                    return _Sent(path.read_bytes())
                if job.library is None:
                    return _Done(None, path)
                library = job.library
                run_id, (file,) = library._write(
                    rollout, run=job.run, algorithm=job.algorithm, params=job.params
                )
                return _Done(run_id, library._run_path(run_id, file))
        except Exception as error:  # reported for this seed; the worker goes on
            return f"{type(error).__name__}: {error}"


_WORKER: _Worker | None = None  # the worker of this process (processes engine)


def _start_worker(job: bytes) -> None:
    global _WORKER
    _WORKER = _Worker(job)


def _record_here(seed: int) -> _Done | _Sent | str:
    assert _WORKER is not None
    return _WORKER.record(seed)


_DIED = "a worker process died (killed, or out of memory) before it ended"


def _on_processes(job: bytes, seeds: Sequence[int], workers: int) -> Iterable[tuple[int, Any]]:
    """Each seed's outcome as it comes, from processes of this machine. Processes are
    spawned (a kernel's threads make forking unsafe); a pool whose worker died fails
    its seeds left, said so. On Ctrl-C (a kernel's interrupt reaches this process
    alone) the seeds not started are dropped and those being recorded finish, so every
    episode added is whole; the interrupt then goes on."""
    context = get_context("spawn")
    with ProcessPoolExecutor(workers, context, initializer=_start_worker, initargs=(job,)) as pool:
        pending: dict[Future[_Done | _Sent | str], int] = {
            pool.submit(_record_here, seed): seed for seed in seeds
        }
        try:
            while pending:
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    seed = pending.pop(future)
                    try:
                        yield seed, future.result()
                    except BrokenProcessPool:
                        yield (
                            seed,
                            "a worker process died (killed, or out of memory) before it ended",
                        )
        except KeyboardInterrupt:
            # Here, not on leaving the block: its shutdown would clear cancel_futures
            # before the pool's thread had cancelled anything.
            pool.shutdown(wait=True, cancel_futures=True)
            raise


def _on_ray(job: bytes, seeds: Sequence[int], workers: int) -> Iterable[tuple[int, Any]]:
    """Each seed's outcome as it comes, from Ray actors (one env and policy each)."""
    import ray

    if not ray.is_initialized():
        # A local instance of our own: on loopback only, its workers seeing this
        # process's import path (functions from a script or test module travel by name).
        ray.init(
            num_cpus=workers,
            include_dashboard=False,
            log_to_driver=False,
            _node_ip_address="127.0.0.1",
            runtime_env={"env_vars": {"PYTHONPATH": os.pathsep.join(sys.path)}},
        )
    actor: Any = ray.remote(num_cpus=1)(_Worker)
    shared = ray.put(job)
    actors: list[Any] = [actor.remote(shared) for _ in range(workers)]
    pending = {actors[i % workers].record.remote(seed): seed for i, seed in enumerate(seeds)}
    try:
        while pending:
            (ready,), _ = ray.wait(list(pending), num_returns=1)
            seed = pending.pop(ready)
            try:
                yield seed, ray.get(ready)
            except ray.exceptions.RayError as error:  # the actor died, or Ray failed it
                yield seed, f"its Ray worker failed: {type(error).__name__}: {error}"
    finally:
        for worker in actors:
            ray.kill(worker)
