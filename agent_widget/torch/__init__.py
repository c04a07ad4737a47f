"""Ready-made panels for torch agents: Q-values, policy, saliency.

Each is a plain callable of one :class:`~agent_widget.panels.Step`, so it works in a
viewer and outside one alike::

    from agent_widget.torch import QValues, Policy, Saliency

    viewer.add_panel("Q", QValues(q_net))
    viewer.add_panel("saliency", Saliency(q_net, method="perturbation"), overlay=True)
    rollout.extras.update(QValues(q_net).series(rollout))   # value, q_taken, td_error

Models are ``nn.Module`` s (observations in, per-action outputs or ``(logits, value)``
out) or Stable-Baselines3 DQN/PPO/A2C models; a module whose one output per action is
a policy's logits says so with ``mark_policy(module)``, so ``QValues`` refuses it.
Needs the ``torch`` extra (torch and captum); SB3 is imported only for SB3 models.
"""

from agent_widget.torch._bars import ActionBars
from agent_widget.torch._policy import Policy
from agent_widget.torch._qvalues import QValues
from agent_widget.torch._roles import mark_policy
from agent_widget.torch._saliency import Saliency

__all__ = ["ActionBars", "Policy", "QValues", "Saliency", "mark_policy"]
