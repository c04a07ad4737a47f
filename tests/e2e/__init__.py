"""The browser tests: each front end (JupyterLab, Notebook 7, Voila, marimo) showing the
widgets in Debian's Chromium."""
