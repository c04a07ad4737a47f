"""Tests of agent_widget.torch."""
