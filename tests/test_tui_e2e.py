"""End to end: the real `podplan` in a real terminal (tmux), driven by keys, read off the screen."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from planners.compute import compute
from tests.tui_helpers import plan_with

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


def _tmux(*args: str) -> str:
    return subprocess.run(["tmux", *args], check=True, capture_output=True, text=True, timeout=10).stdout


def _type(session: str, *keys: str) -> None:
    """One key at a time at a brisk human pace (a burst arrives as one read, unlike real typing)."""
    for key in keys:
        _tmux("send-keys", "-t", session, key)
        time.sleep(0.08)


def _wait_for(session: str, text: str, timeout: float = 20.0) -> str:
    deadline = time.monotonic() + timeout
    screen = ""
    while time.monotonic() < deadline:
        screen = _tmux("capture-pane", "-p", "-t", session)
        if text in screen:
            return screen
        time.sleep(0.1)
    raise AssertionError(f"{text!r} never appeared; the screen was:\n{screen}")


def _wait_gone(session: str, text: str, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if text not in _tmux("capture-pane", "-p", "-t", session):
            return
        time.sleep(0.1)
    raise AssertionError(f"{text!r} stayed on the screen")


def test_a_new_user_changes_the_disk_count_and_reads_the_script() -> None:
    session = f"podplan-e2e-{uuid.uuid4().hex[:8]}"
    command = f"cd {ROOT} && {sys.executable} -m app.cli.main; echo podplan-exited-$?; sleep 5"
    _tmux("new-session", "-d", "-s", session, "-x", "80", "-y", "24", command)
    _tmux("resize-window", "-t", session, "-x", "80", "-y", "24")
    try:
        _wait_for(session, "f2 Script")  # the footer's keys come with the frame after the first
        screen = _wait_for(session, "Usable")
        assert "pod45" in screen and "45 disks" in screen
        # The cursor starts in the disk count: erase 45, type 60, as anyone would. A loaded machine
        # can apply a backspace (a key binding) after a digit typed right behind it, so the digits
        # wait until the field is empty (the count then reads as invalid: no "45 disks" any more).
        _type(session, "BSpace", "BSpace")
        _wait_gone(session, "45 disks")
        _type(session, "6", "0")
        sixty = compute(plan_with(count="60")).usable_bytes
        screen = _wait_for(session, f"{sixty:,} B")
        assert "60 disks" in screen, screen
        _type(session, "F2")
        screen = _wait_for(session, "#!/")
        assert "mdadm" in _wait_for(session, "mdadm")  # the build script, as `podplan script` prints it
        _type(session, "Escape")
        screen = _wait_for(session, "Usable")
        assert "[modified]" in screen
        # alt+3 and alt+1 as this terminal sends them (ESC 3): the Findings tab, and back.
        _type(session, "M-3")
        _wait_for(session, "log stripe unit")
        _type(session, "M-1")
        _wait_for(session, "bytes left")
        _type(session, "C-q")
        _wait_for(session, "has unsaved changes")  # edited and never saved: it asks first (y: quit without saving)
        _type(session, "y")
        _wait_for(session, "podplan-exited-0")
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True, timeout=10)
