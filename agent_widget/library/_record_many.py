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
import queue
import signal
import sys
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
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
from agent_widget.library._local_ray import start_local_ray
from agent_widget.library._run_file import Run
from agent_widget.library._run_library import RunLibrary
from agent_widget.recording import interrupts_held, record

Engine = Literal["auto", "ray", "processes"]
Take = Callable[[int, "_Done | _Sent | str"], None]  # record_many's, for each seed's outcome
STOPPED = "stopped by Ctrl-C"  # why an interrupted seed has no episode
_STOP_SECONDS = 10  # how long a stopped worker may take to file its episode before a kill


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
    success: Callable[[Rollout], bool] | None = None,
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
        success: whether an episode succeeded, kept in its run as for
            :meth:`RunLibrary.add` (a library's runs alone keep it; a level of a
            :class:`~agent_widget.arena.Ladder` counts it).
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
    if library is not None and algorithm is None:
        raise ValueError(
            "record_many into a library needs algorithm=... (a run is filed under "
            "<env>/<algorithm>/<run>); checked before any seed is recorded"
        )
    if library is not None and not isinstance(library, RunLibrary):
        library = RunLibrary(library)
    if library is not None and run is None:
        run = f"record-many-{os.urandom(3).hex()}"
    folder = Path(directory) if directory is not None else None
    job = _WorkerJob(
        make_env,
        policy,
        max_steps,
        agent,
        algorithm,
        library,
        run,
        params,
        folder,
        metadata,
        success,
    )
    chosen = _engine(engine)
    count = workers or (os.cpu_count() or 1)
    options = None if library is None else library.storage_options
    recorded = Recorded(paths={}, storage_options=options)
    run_ids: set[str] = set()
    bar = tqdm(total=len(seeds), disable=not progress, unit="episode")

    def take(seed: int, outcome: _Done | _Sent | str) -> None:
        with interrupts_held():  # Ctrl-C lands between two outcomes, never in one
            if isinstance(outcome, _Done):
                run_id, recorded.paths[seed] = outcome
                run_ids.update([run_id] if run_id is not None else [])
            elif isinstance(outcome, _Sent):
                recorded.kept[seed] = _held(outcome.data, Path(scratch) / f"seed-{seed}.rollout")
            else:
                recorded.failed[seed] = outcome
            bar.update()

    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as scratch, bar:
        try:
            (_on_ray if chosen == "ray" else _on_processes)(
                cloudpickle.dumps(job), seeds, count, take
            )
        except KeyboardInterrupt as error:
            error.recorded = recorded  # type: ignore[attr-defined]
            done = len(recorded.paths) + len(recorded.kept)
            error.add_note(
                f"record_many: interrupted with {done} of {len(seeds)} episodes recorded "
                "(on this exception's .recorded); the seeds not finished were stopped"
            )
            raise
    if library is not None and run_ids:
        recorded.run = library.open(run_ids.pop()).run  # this run alone, not the whole library
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
    success: Callable[[Rollout], bool] | None = None


class _Worker:
    """One worker's env and policy; records seeds one at a time."""

    def __init__(self, job: bytes) -> None:
        self.job: _WorkerJob = cloudpickle.loads(job)
        self.env = self.job.make_env()

    def record(self, seed: int) -> _Done | _Sent | str:
        """Where the episode went, or why it could not be recorded."""
        global _RECORDING
        job, done, _RECORDING = self.job, None, True
        try:
            with tempfile.TemporaryDirectory() as scratch:
                path = Path(scratch) / "episode.rollout"
                if job.folder is not None:  # a seed stopped midway stays a .part
                    job.folder.mkdir(parents=True, exist_ok=True)
                    path = job.folder / f"seed-{seed}.rollout.part"
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
                with interrupts_held():  # stopped (SIGTERM) as it files: filed whole first
                    done = self._file(rollout, path)
                return done
        except KeyboardInterrupt:
            if not _STOPPING:
                raise
            return done or STOPPED + " midway"  # filed just before the stop: kept
        except Exception as error:  # reported for this seed; the worker goes on
            return f"{type(error).__name__}: {error}"
        finally:
            _RECORDING = False

    def _file(self, rollout: Rollout, path: Path) -> _Done | _Sent:
        """The episode recorded at ``path`` filed where the job says."""
        job = self.job
        if job.library is None and job.folder is None:
            return _Sent(path.read_bytes())
        if job.library is None:
            return _Done(None, path.replace(path.with_suffix("")))
        run_id, (file,) = job.library._write(
            rollout, run=job.run, algorithm=job.algorithm, params=job.params, success=job.success
        )
        return _Done(run_id, job.library._run_path(run_id, file))


_WORKER: _Worker | None = None  # the worker of this process (processes engine)
_STOPPING = False  # set by the SIGTERM record_many sends when it stops
_RECORDING = False  # a seed in progress: outside one, a stop only turns seeds away


def _start_worker(job: bytes) -> None:
    """Make this process's worker. Ctrl-C reaches every process of the group (a
    terminal's, Jupyter's interrupt): workers ignore it and record_many, told by its
    own, stops them with SIGTERM, which ends the episode in progress as Ctrl-C ends a
    recording (its steps filed whole first) and turns away the seeds queued here."""
    global _WORKER
    signal.signal(signal.SIGINT, _interrupt_if_stopping)
    signal.signal(signal.SIGTERM, _stop_here)
    _WORKER = _Worker(job)


def _interrupt_if_stopping(signum: int, frame: Any) -> None:
    """The worker's Ctrl-C: ignored, but once record_many stops it, and then only in a
    seed's recording: raised in the pool's own code (sending an outcome, waiting for a
    seed), it would lose an episode already filed."""
    if _STOPPING and _RECORDING:
        raise KeyboardInterrupt


def _stop_here(signum: int, frame: Any) -> None:
    """Stop as Ctrl-C would: through the SIGINT handler in place, which a recording
    swaps for its own while it files a step, raising the interrupt after it."""
    global _STOPPING
    _STOPPING = True
    handler = signal.getsignal(signal.SIGINT)
    if callable(handler):
        handler(signal.SIGINT, frame)


def _record_here(seed: int) -> _Done | _Sent | str:
    assert _WORKER is not None
    return STOPPED + " before it started" if _STOPPING else _WORKER.record(seed)


def _on_processes(job: bytes, seeds: Sequence[int], workers: int, take: Take) -> None:
    """Each seed's outcome to ``take`` as it comes, from processes of this machine.
    Processes are spawned (a kernel's threads make forking unsafe); a pool whose worker
    died fails its seeds left, said so. Interrupted, it cancels the seeds not started,
    stops the workers, and takes the outcomes that came meanwhile before raising."""
    context = get_context("spawn")
    pool = ProcessPoolExecutor(workers, context, initializer=_start_worker, initargs=(job,))
    pending: dict[Future[_Done | _Sent | str], int] = {}
    # Not futures.wait: it locks every pending future in turn, and a Ctrl-C landing
    # midway (thousands of seeds: a wide window) left some locked, so the pool's thread
    # hung on its next result and the process never exited.
    finished: queue.SimpleQueue[Future[_Done | _Sent | str]] = queue.SimpleQueue()
    try:
        with _sigint_ignored_by_children():  # the first submit starts every worker
            pending = {pool.submit(_record_here, seed): seed for seed in seeds}
            for future in pending:
                future.add_done_callback(finished.put)
        while pending:
            future = finished.get()
            take(pending.pop(future), _outcome(future))
    except BaseException:
        _stop(pool)
        for future, seed in pending.items():
            if future.done() and not future.cancelled() and future.exception() is None:
                take(seed, future.result())
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _outcome(future: Future[_Done | _Sent | str]) -> _Done | _Sent | str:
    try:
        return future.result()
    except BrokenProcessPool:
        return _died()


def _stop(pool: ProcessPoolExecutor) -> None:
    """Cancel the seeds not started; end the workers' episodes in progress (SIGTERM, as
    :func:`_start_worker` takes it), then kill any worker still busy after
    ``_STOP_SECONDS`` (a policy inside a long C call never sees the signal)."""
    processes = list((getattr(pool, "_processes", None) or {}).values())  # none public in 3.11
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        process.terminate()
    for process in processes:
        process.join(_STOP_SECONDS)
        if process.is_alive():
            process.kill()
    pool.shutdown(wait=True)  # the outcomes sent before the workers ended, read


@contextlib.contextmanager
def _sigint_ignored_by_children() -> Iterator[None]:
    """Ctrl-C ignored while workers start, so they start ignoring it (a process starts
    with the SIGINT disposition it inherits), not dying of one that comes as they
    import; this process's own handler is put back after. Signals belong to the main
    thread: from any other, the workers take it from :func:`_start_worker` alone."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    handler = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, handler)


def _died() -> str:
    """Why a seed of a broken pool has no episode; in a script, what likely broke it."""
    why = "a worker process died (killed, or out of memory) before it ended"
    main = sys.modules.get("__main__")
    if getattr(main, "__file__", None) and not hasattr(sys, "ps1"):
        why += (
            '; in a script, call record_many under `if __name__ == "__main__":`: its '
            "processes are spawned and run the script's top-level code again"
        )
    return why


def _on_ray(job: bytes, seeds: Sequence[int], workers: int, take: Take) -> None:
    """Each seed's outcome as it comes, from Ray actors (one env and policy each)."""
    import ray

    if not ray.is_initialized():
        start_local_ray(workers)
    actor: Any = ray.remote(num_cpus=1)(_Worker)
    shared = ray.put(job)
    actors: list[Any] = [actor.remote(shared) for _ in range(workers)]
    pending = {actors[i % workers].record.remote(seed): seed for i, seed in enumerate(seeds)}

    def outcome(ready: Any) -> _Done | _Sent | str:
        try:
            return ray.get(ready)  # type: ignore[no-any-return]
        except ray.exceptions.RayError as error:  # the actor died, or Ray failed it
            return f"its Ray worker failed: {type(error).__name__}: {error}"

    try:
        while pending:
            (ready,), _ = ray.wait(list(pending), num_returns=1)
            take(pending.pop(ready), outcome(ready))
    except BaseException:  # Ctrl-C: the outcomes already there are kept
        there, _ = ray.wait(list(pending), num_returns=len(pending), timeout=0)
        for ready in there:
            take(pending.pop(ready), outcome(ready))
        raise
    finally:
        for worker in actors:
            ray.kill(worker)
