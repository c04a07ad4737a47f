"""Makes docs/guides/tensorboard/agent-tab.png, the TensorBoard guide's picture.

Writes a logdir as a CleanRL-style script would (``SummaryWriter`` scalars and
``RecordRollout`` episodes of CartPole in one run folder), starts a real TensorBoard
on it with a ``--agent_panels`` file (harness/tensorboard.py), opens the Agent tab in
Chromium, opens an episode at a step by its deep link, waits for the frame and the
card, and screenshots the page. ``make tensorboard-screenshot`` runs it.
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


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        folder_path = Path(folder)
        write_logdir(folder_path / "runs")
        (folder_path / "panels.py").write_text(PANELS)
        panels = str(folder_path / "panels.py")
        server = TensorBoard(folder_path / "runs", folder_path, "--agent_panels", panels)
        try:
            with chromium() as browser:
                page = browser.new_page(viewport={"width": 1280, "height": 960})
                link = f"#agent&p.agent.run={RUN}&p.agent.episode=episode-001.rollout&p.agent.t=60"
                page.goto(server.url + link)
                frame = page.locator("iframe").element_handle(timeout=60_000).content_frame()
                assert frame is not None
                frame.wait_for_selector(".agent-widget[data-painted-step='60']", timeout=60_000)
                card = 'div.aw-card[data-name="preference"][data-step="60"][data-kind="bars"]'
                frame.wait_for_selector(card, timeout=60_000)
                TARGET.parent.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(TARGET))
        finally:
            server.stop()
    print(f"wrote {TARGET}")


if __name__ == "__main__":
    main()
