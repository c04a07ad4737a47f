"""Tests of agent_widget.episodes."""
