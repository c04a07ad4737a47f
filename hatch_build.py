"""Bundles the front end (js/ -> agent_widget/static/) whenever the package is built.

The bundles are build output, so git does not keep them: a wheel, an sdist and an
editable install (``pip install -e .``) each get them fresh from js/ with esbuild
(``npm run build``). The wheel and the sdist carry the bundles, so pip users need no
Node; building from an sdist without npm uses the bundles it carries.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

# js/build.mjs's entries: the widgets', and the Agent tab's (the TensorBoard plugin).
WIDGETS = (
    "widget",
    "compare",
    "leaderboard",
    "arena",
    "moments",
    "training",
    "checkpoints",
    "tensorboard",
)
BUNDLES = [f"{name}.{kind}" for name in WIDGETS for kind in ("js", "css")] + ["page.js"]


class FrontEndBuildHook(BuildHookInterface):
    PLUGIN_NAME = "front-end"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        root = Path(self.root)
        npm = shutil.which("npm")
        if npm is not None and (root / "js").is_dir():
            if not (root / "node_modules").is_dir():
                subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=root, check=True)
            subprocess.run([npm, "run", "build"], cwd=root, check=True)
        static = root / "agent_widget" / "static"
        missing = [name for name in BUNDLES if not (static / name).is_file()]
        if missing:
            raise RuntimeError(
                f"the front-end bundles {', '.join(missing)} are missing from {static}: "
                "install Node.js 20+ with npm and build again"
            )
