"""A local Ray for record_many: a start that misses Ray's fixed waits is tried once more.

A loaded machine missing the waits cannot be made on purpose, so ray.init is made to
miss them as Ray says it does, and the real Ray starts after it."""

from __future__ import annotations

import pytest

from agent_widget.library._local_ray import DID_NOT_START, start_local_ray

MISSED = Exception(f"{DID_NOT_START}. This could happen because some of the raylet failed")


def test_a_start_that_missed_its_wait_is_tried_once_more(monkeypatch):
    ray = pytest.importorskip("ray")
    real, tries = ray.init, []

    def missing_once(*args, **kwargs):
        tries.append(kwargs)
        if len(tries) == 1:
            raise MISSED
        return real(*args, **kwargs)

    monkeypatch.setattr(ray, "init", missing_once)
    try:
        start_local_ray(1)
        assert ray.is_initialized()
        assert ray.cluster_resources()["CPU"] == 1
        assert len(tries) == 2
    finally:
        ray.shutdown()


def test_two_missed_starts_say_so_and_what_to_do(monkeypatch):
    ray = pytest.importorskip("ray")

    def missing(*args, **kwargs):
        raise MISSED

    monkeypatch.setattr(ray, "init", missing)
    with pytest.raises(RuntimeError, match=r"did not start, 2 times .* engine='processes'"):
        start_local_ray(1)
    assert not ray.is_initialized()


def test_another_failure_is_raised_as_it_is(monkeypatch):
    ray = pytest.importorskip("ray")

    def refused(*args, **kwargs):
        raise ValueError("num_cpus must be positive")

    monkeypatch.setattr(ray, "init", refused)
    with pytest.raises(ValueError, match="num_cpus must be positive"):
        start_local_ray(1)
