"""Side-by-side performance runs; results in RESULTS.md.

The browser benchmarks drive the end-to-end tests' harness (tests/e2e), whose modules
import each other by their own names, as pytest's rootdir-relative imports let them
(``from views import View``): its folder goes on the path here, before any of them is
imported.
"""

import sys
from pathlib import Path

_E2E = str(Path(__file__).resolve().parent.parent / "tests" / "e2e")
if _E2E not in sys.path:
    sys.path.append(_E2E)
