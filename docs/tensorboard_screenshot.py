"""Makes the TensorBoard guide's pictures, docs/guides/tensorboard/*.png.

``agent-tab.png``: a logdir as a CleanRL-style script writes it (``SummaryWriter``
scalars and ``RecordRollout`` episodes of CartPole in one run folder), in a real
TensorBoard with a ``--agent_panels`` file (harness/tensorboard.py); an episode opened
at a step by its deep link, with the file's card. ``network-cards.png``: a
Stable-Baselines3 DQN's run (``tensorboard_log=`` scalars, ``RecordCheckpoints``
episodes), with a panels file defining ``model``; the last checkpoint's episode opened
at a step, with the ``QValues`` and ``Saliency`` cards of that checkpoint's network.
Each is taken in Chromium once the frame and the cards are painted.
``make tensorboard-screenshot`` runs it.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import gymnasium as gym

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # harness

from torch.utils.tensorboard import SummaryWriter  # noqa: E402

from agent_widget.recording import RecordRollout  # noqa: E402
from harness.chromium import chromium  # noqa: E402
from harness.tensorboard import TensorBoard  # noqa: E402

TARGET = ROOT / "docs" / "guides" / "tensorboard" / "agent-tab.png"
NETWORK_TARGET = TARGET.with_name("network-cards.png")
RUN = "CartPole-v1__ppo__1"
PANELS = """
import numpy as np
from agent_widget.panels import register

@register("preference")
def preference(step):
    # The demo policy pushes the cart the way the pole leans: its two actions' scores.
    lean = float(step.obs[2] + 0.5 * step.obs[3])
    return {"LEFT": -lean, "RIGHT": lean}
"""

# The architecture the run trained (harness.dqn_run's); each checkpoint's weights go in it.
NETWORK_PANELS = """
from harness.dqn_run import dqn

model = dqn()
"""


def write_logdir(root: Path) -> None:
    run = root / RUN
    writer = SummaryWriter(str(run))
    env = RecordRollout(
        gym.make("CartPole-v1", render_mode="rgb_array"), directory=run, algorithm="ppo"
    )
    for episode, seed in enumerate(range(3)):
        obs, _ = env.reset(seed=seed)
        done, total = False, 0.0
        while not done:
            action = int(obs[2] + 0.5 * obs[3] > 0)
            obs, reward, terminated, truncated, _ = env.step(action)
            total += float(reward)
            done = terminated or truncated
        writer.add_scalar("charts/episodic_return", total, episode)
    env.close()
    writer.close()


def write_dqn_logdir(root: Path) -> str:
    """A DQN trained with checkpoints into ``root`` (scalars in ``DQN_1``); the deep link
    keys of its last checkpoint's episode."""
    from urllib.parse import quote

    import torch

    from agent_widget.sb3 import RecordCheckpoints
    from harness.dqn_run import RUN, RUN_NAME, dqn

    torch.set_num_threads(1)  # a network this small only loses time to a second thread
    model = dqn()
    model.tensorboard_log = str(root)  # as DQN(..., tensorboard_log=root)
    record = RecordCheckpoints("CartPole-v1", every=2_000, seeds=[0], library=root, run=RUN_NAME)
    model.learn(6_000, callback=record)
    last = max((root / RUN).glob("episode-*.rollout")).name  # one a checkpoint, in order
    return f"p.agent.run={quote(RUN, safe='')}&p.agent.episode={last}"


def shoot(server: TensorBoard, keys: str, step: int, cards: list[str], target: Path) -> None:
    """The Agent tab at the episode and ``step`` the deep link ``keys`` name, once its
    frame and ``cards`` (panel names) show that step, saved to ``target``."""
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1280, "height": 960})
        page.goto(f"{server.url}#agent&{keys}&p.agent.t={step}")
        frame = page.locator("iframe").element_handle(timeout=60_000).content_frame()
        assert frame is not None
        frame.wait_for_selector(f".agent-widget[data-painted-step='{step}']", timeout=60_000)
        for name in cards:
            card = f'div.aw-card[data-name="{name}"][data-step="{step}"][data-current="true"]'
            frame.wait_for_selector(card, timeout=120_000)
        target.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(target))
    print(f"wrote {target}")


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        folder_path = Path(folder)
        write_logdir(folder_path / "runs")
        (folder_path / "panels.py").write_text(PANELS)
        panels = str(folder_path / "panels.py")
        server = TensorBoard(folder_path / "runs", folder_path, "--agent_panels", panels)
        try:
            keys = f"p.agent.run={RUN}&p.agent.episode=episode-001.rollout"
            shoot(server, keys, 60, ["preference"], TARGET)
        finally:
            server.stop()
    with tempfile.TemporaryDirectory() as folder:
        folder_path = Path(folder)
        keys = write_dqn_logdir(folder_path / "runs")
        (folder_path / "panels.py").write_text(NETWORK_PANELS)
        panels = str(folder_path / "panels.py")
        server = TensorBoard(folder_path / "runs", folder_path, "--agent_panels", panels)
        try:
            shoot(server, keys, 40, ["QValues", "Saliency"], NETWORK_TARGET)
        finally:
            server.stop()


if __name__ == "__main__":
    main()
