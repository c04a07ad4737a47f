"""Tests of agent_widget.library."""
