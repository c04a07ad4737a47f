"""Fixtures the test modules share. Helpers passed around as plain functions (env
factories, policies) live in modules of their own beside this one: ``cartpole``,
``sample_frames``."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator

import gymnasium as gym
import pytest
from playwright.sync_api import Browser

from agent_widget.panels import register, registered, unregister
from agent_widget.recording._encoder import _ring as frame_ring
from agent_widget.recording._encoder._process import EncoderProcess, encoder_process
from harness.chromium import chromium
from tests.stuck_panel import Stuck

# MuJoCo renders offscreen through Mesa's EGL (the Makefile's egl target): there is no
# display. Set before any env is made; kernels the browser tests start inherit it.
os.environ.setdefault("MUJOCO_GL", "egl")


@pytest.fixture(scope="session", autouse=True)
def ctrl_c_as_ever() -> None:
    """Ctrl-C raising KeyboardInterrupt, even when pytest was started with SIGINT ignored
    (``nohup``, a shell's ``&``): the interrupt tests send it to this process and to the
    processes they start (which would inherit the ignoring and never stop)."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    """Debian's Chromium, one for the whole run: Playwright's sync API runs one instance
    in a thread at a time, so every browser test (e2e, the TensorBoard tab) shares it."""
    with chromium() as browser:
        yield browser


@pytest.fixture
def lake() -> gym.Env:
    """Slippery FrozenLake 4x4."""
    return gym.make("FrozenLake-v1", map_name="4x4", is_slippery=True)


@pytest.fixture
def empty_panel_registry() -> Iterator[None]:
    """The global panel registry emptied for the test, and put back as it was after:
    panels registered by other tests (or by the test itself) must not show up."""
    saved = registered()
    for panel in saved:
        unregister(panel.name)
    yield
    for panel in registered():
        unregister(panel.name)
    for panel in saved:
        register(
            panel.name,
            panel.fn,
            overlay=panel.overlay,
            precompute=panel.precompute,
            timeout=panel.timeout,
        )


@pytest.fixture
def stuck() -> Iterator[Stuck]:
    """A panel function stuck in a loop until the test ends (see stuck_panel.py)."""
    panel = Stuck()
    yield panel
    panel.release()


@pytest.fixture
def encoder() -> EncoderProcess:
    """This process's frame encoder process, started, with no ring an earlier episode
    left (each test sees its rings made anew). For tests marked to need a second core."""
    process = encoder_process()
    assert process is not None
    assert process.wait_ready()
    while frame_ring._idle:
        frame_ring._idle.pop()._release()
    return process
