"""Tests of agent_widget.format."""
