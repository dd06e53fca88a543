"""What every VM lab test module needs before it can boot anything."""

from __future__ import annotations

import pytest

from runners.exec import which
from runners.lab.kit import cache_root, load_kit


def skip_unless_lab() -> None:
    """Skip the calling module, saying why, when this machine cannot boot the lab."""
    if which("qemu-system-x86_64") is None:
        pytest.skip("qemu-system-x86_64 is not installed (scripts/dev.sh setup installs it)", allow_module_level=True)
    if which("apt-get") is None and load_kit(cache_root() / "kit") is None:
        pytest.skip("no apt to fetch the kit's Debian packages and no cached kit", allow_module_level=True)


def record_calibration(doc: dict) -> None:
    """Write a lab test's measured table where PODPLAN_CALIBRATION_OUT says, if it says anywhere."""
    import json
    import os

    path = os.environ.get("PODPLAN_CALIBRATION_OUT")
    if path:
        with open(path, "w") as fh:
            json.dump(doc, fh, indent=1)
