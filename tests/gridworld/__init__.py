"""Tests of agent_widget.gridworld."""
