"""The test suite. A package (as tests/e2e is), so that its modules import one another as
``tests.*`` and import-linter checks what they import (pyproject.toml)."""
