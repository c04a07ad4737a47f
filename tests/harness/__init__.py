"""Tests of the harness the tests and benchmarks share (harness/)."""
