"""The machinery the tests and the benchmarks both drive: JupyterLab, Notebook 7, Voila,
marimo and S3 servers, Debian's Chromium through Playwright, and the far-link proxy.

Tests and benchmarks import it, and neither imports the other; it imports neither
(import-linter's contracts in pyproject.toml). Not shipped in the wheel.
"""
