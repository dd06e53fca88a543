"""What every generated script must pass: valid bash, set -euo pipefail, clean under shellcheck."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest


def assert_clean_script(path: Path, text: str) -> None:
    """Write `text` to `path` and hold it to bash -n and shellcheck (skips if shellcheck is absent)."""
    path.write_text(text)
    assert text.startswith("#!/usr/bin/env bash\n")
    assert "set -euo pipefail" in text
    subprocess.run(["bash", "-n", str(path)], check=True)
    if shutil.which("shellcheck") is None:
        pytest.skip("shellcheck is not installed (scripts/dev.sh setup installs it)")
    p = subprocess.run(["shellcheck", "-s", "bash", str(path)], capture_output=True, text=True)
    assert p.returncode == 0, p.stdout


def devices_ok(stdout: str) -> list[str]:
    """The devices a script's checks passed (`  ok      PATH`); the names it makes say `ok  NAME: why`."""
    return [line[10:] for line in stdout.splitlines() if line.startswith("  ok      ") and ":" not in line]
