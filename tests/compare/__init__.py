"""Tests of agent_widget.compare."""
