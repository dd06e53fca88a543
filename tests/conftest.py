"""Suite-wide ordering and distribution: the lab's long boots first, so a parallel run (pytest -n)
overlaps them with everything else instead of leaving them for the end, and the files of a shared
boot on one worker. And the transcript of the commands the tests run is kept out of the user's home."""

from __future__ import annotations

import shutil

import pytest

from runners import transcript
from tests.lab_helpers import lab_rank


def _rank(item) -> int:  # type: ignore[no-untyped-def]
    return lab_rank(item.path.stem)


def pytest_collection_modifyitems(config, items) -> None:  # type: ignore[no-untyped-def]
    items.sort(key=_rank)  # stable: within a file and among the rest, the usual order stays


@pytest.hookimpl(tryfirst=True, optionalhook=True)  # before xdist's own; absent under -p no:xdist
def pytest_xdist_make_scheduler(config, log):  # type: ignore[no-untyped-def]
    """--dist loadfile, with the files of one shared lab boot as one unit (tests/lab_helpers)."""
    if config.getvalue("dist") != "loadfile":
        return None
    from tests.lab_helpers import lab_boot_scheduling

    return lab_boot_scheduling(config, log)


@pytest.fixture(autouse=True, scope="session")
def _transcript_kept_from_home(tmp_path_factory):  # type: ignore[no-untyped-def]
    """Every command the tests run goes into a transcript under a temporary XDG_STATE_HOME (inherited by
    the podplan processes a test starts), never into the user's ~/.local/state. Session-wide and
    autouse, so it is in place before any module's fixture (the lab's boot) runs a command. The
    config directory too: a config file of the user's (a default disk, a theme) must not change
    what a test sees. (The cache stays the user's: the lab's kits take minutes to build.)"""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("XDG_STATE_HOME", str(tmp_path_factory.mktemp("state")))
        mp.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("config")))
        yield


@pytest.fixture(autouse=True)
def _no_recovery_copy_left():  # type: ignore[no-untyped-def]
    """A TUI's recovery copy of unsaved edits left by one test would be offered, as a dialog, to the
    next that opens the same plan: each test ends with none (the state directory is the worker's)."""
    yield
    from app.tui.recovery import recovery_dir

    shutil.rmtree(recovery_dir(), ignore_errors=True)


@pytest.fixture(autouse=True)
def _default_transcript(monkeypatch):  # type: ignore[no-untyped-def]
    monkeypatch.setattr(transcript, "_chosen", None)  # a --transcript given to main() in-process ends with its test


@pytest.fixture(scope="session")
def btrfs_host() -> None:
    """Skip unless this host can make, mount and fill a btrfs on loop devices (root, btrfs-progs, a btrfs kernel)."""
    import os

    from runners.exec import have

    if os.geteuid() != 0:
        pytest.skip("needs root for loop devices and mount")
    for tool in ("mkfs.btrfs", "btrfs", "losetup", "mount", "fallocate"):
        if not have(tool):
            pytest.skip(f"{tool} is not installed (scripts/dev.sh setup installs btrfs-progs)")
    with open("/proc/filesystems") as f:
        kernel_has_btrfs = "btrfs" in f.read()
    if not kernel_has_btrfs:
        pytest.skip("this kernel has no btrfs to mount")
