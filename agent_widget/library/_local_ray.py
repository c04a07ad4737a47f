"""A local Ray of our own, for ``record_many(engine="ray")`` when no ``ray.init`` came
first: on loopback only, its workers seeing this process's import path (functions from
a script or test module travel by name).

Ray's start-up waits are fixed, not settings: the raylet gives its dashboard agent
(a Python process importing Ray) ~15 s to write its ports (``RAY_agent_register_timeout_ms``
does not change it), and ``ray.init`` gives the node 30 s to register (a literal in
``ray/_private/node.py``). A loaded machine can miss them, and the second start, with
Ray's files in the page cache, usually does not.
"""

from __future__ import annotations

import os
import sys

_STARTS = 2  # tries at starting a local Ray
DID_NOT_START = "The current node timed out during startup"  # what ray.init raises


def start_local_ray(workers: int) -> None:
    """Start Ray with ``workers`` CPUs; once more if its node did not start in time,
    then a RuntimeError saying so and what to do instead."""
    import ray

    for attempt in range(1, _STARTS + 1):
        try:
            ray.init(
                num_cpus=workers,
                include_dashboard=False,
                log_to_driver=False,
                _node_ip_address="127.0.0.1",
                runtime_env={"env_vars": {"PYTHONPATH": os.pathsep.join(sys.path)}},
            )
            return
        except Exception as error:  # Ray raises a bare Exception for this
            if DID_NOT_START not in str(error):
                raise
            ray.shutdown()
            if attempt == _STARTS:
                raise RuntimeError(
                    f"Ray's local node did not start, {_STARTS} times (its start-up waits "
                    "are fixed, and a loaded machine can miss them): try again when the "
                    "machine is less busy, or record_many(..., engine='processes')"
                ) from error
