"""The run's title a CheckpointViewer shows: its algorithm and env, not its raw id."""

from __future__ import annotations

from agent_widget.checkpoints._shown_run import run_title


def test_a_library_run_id_reads_as_algorithm_on_env_and_run_name():
    assert run_title("CartPole-v1/DQN/dqn") == "DQN on CartPole-v1 · run dqn"


def test_percent_encoded_folder_names_are_decoded():
    assert run_title("ALE%2FPong-v5/PPO/seed%201") == "PPO on ALE/Pong-v5 · run seed 1"


def test_an_id_of_another_shape_is_shown_as_it_is():
    assert run_title("just-a-run") == "just-a-run"
    assert run_title("a//b") == "a//b"
