"""Which seeds a run of the arena or of a ladder plays next: the first it does not hold.

Game (or episode) ``k`` of a run is played on seed ``k``. Playing again adds the run's
next seeds: those its ``run.json`` does not list yet, so a seed that failed or that
Ctrl-C cut short is played by the next ``play``, and none is played twice.
"""

from __future__ import annotations

from agent_widget.library import RunLibrary


def seeds_to_play(
    library: RunLibrary, env_id: str, algorithm: str, run: str, count: int
) -> list[int]:
    """The first ``count`` seeds the run ``<env_id>/<algorithm>/<run>`` does not hold."""
    runs = library.runs(env_id=env_id, algorithm=algorithm)
    done = {e.seed for r in runs if r.run == run for e in r.episodes if e.seed is not None}
    return [k for k in range(len(done) + count) if k not in done][:count]
