"""Tests of agent_widget.viewer."""
