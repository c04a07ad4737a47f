"""Running a command that file permissions bind, as root too (these tests run as root
in CI): a test of what a folder without permission does needs one."""

from __future__ import annotations

import os
import shutil

import pytest


def unprivileged() -> list[str]:
    """The prefix that runs a command without the capabilities overriding file
    permissions (nothing when not root); skips the test when there is none."""
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        pytest.skip("root without setpriv: file permissions cannot be made to bind")
    return ["setpriv", "--inh-caps=-all", "--bounding-set=-dac_override,-dac_read_search"]
