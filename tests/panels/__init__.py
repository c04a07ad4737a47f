"""Tests of agent_widget.panels."""
