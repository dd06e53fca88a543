"""validate --burn-in on real loop devices with the real dd and smartctl: end to end, a stop (a cancel,
and Ctrl+C on the command line) that keeps each disk's offset, a resume from it, and the write guard."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from app.usecases.validate_burnin import BurnInRequest, burn_in_session
from runners.exec import have
from runners.probes.loopdev import sparse_loops
from runners.validate.burnin import BurnInError, chunk_bytes_for, dd_argv, state_path
from runners.validate.guard import GuardError

MiB = 1024**2
GiB = 1024**3
REAL = os.geteuid() == 0 and have("losetup") and have("dd") and have("smartctl")
needs_loops = pytest.mark.skipif(
    not REAL, reason="needs root, losetup, dd and smartctl (smartmontools) for loop devices"
)


@pytest.fixture(autouse=True)
def _own_state_dir(tmp_path, monkeypatch):  # type: ignore[no-untyped-def]
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


def test_chunks_and_dd_commands():
    assert chunk_bytes_for(8 * MiB) == MiB and chunk_bytes_for(640 * MiB) == 10 * MiB
    assert chunk_bytes_for(16 * 10**12) == GiB  # a 16 TB disk: 1 GiB per dd run, about 15,000 runs
    assert dd_argv("/dev/sdb", 3 * MiB, MiB, write=False) == [
        "dd", "if=/dev/sdb", "of=/dev/null", "bs=1M", "iflag=direct,skip_bytes,count_bytes",
        f"skip={3 * MiB}", f"count={MiB}", "status=none",
    ]  # fmt: skip
    w = dd_argv("/dev/sdb", 0, MiB, write=True)
    assert w[1:3] == ["if=/dev/zero", "of=/dev/sdb"] and "oflag=direct,seek_bytes" in w and "conv=notrunc,fsync" in w


def _ignore(*_a: object) -> None:
    pass


@needs_loops
def test_every_disk_read_to_its_end_and_the_state_removed():
    with sparse_loops([8 * MiB, 6 * MiB]) as devs:
        seen: list[tuple[str, int]] = []
        out = burn_in_session(BurnInRequest(devs[0]), _ignore, lambda d, done, size: seen.append((d, done)))
        assert [d.device for d in out.state.disks] == [devs[0]]  # a plain device is its own member
        out2 = burn_in_session(BurnInRequest(devs[1]), _ignore, _ignore)
    (v,) = out.verdicts
    assert (v.done_bytes, v.size_bytes, v.error, v.moved) == (8 * MiB, 8 * MiB, "", ())
    assert v.after is not None and not v.after.smart and not out.stopped and not out.state.write
    assert seen[0] == (devs[0], 0) and seen[-1] == (devs[0], 8 * MiB) and len(seen) == 9  # 1 MiB chunks
    assert out2.verdicts[0].done_bytes == 6 * MiB
    assert not state_path().exists()


@needs_loops
def test_a_stop_keeps_the_offset_and_resume_goes_on_from_it():
    cancel = threading.Event()
    with sparse_loops([16 * MiB]) as (dev,):

        def stop_after_three(d: str, done: int, size: int) -> None:
            if done >= 3 * MiB:
                cancel.set()

        first = burn_in_session(BurnInRequest(dev), _ignore, stop_after_three, cancel)
        saved = json.loads(state_path().read_text())
        with pytest.raises(BurnInError, match="--resume to go on"):
            burn_in_session(BurnInRequest(dev), _ignore, _ignore)
        seen: list[int] = []
        second = burn_in_session(BurnInRequest(dev, resume=True), _ignore, lambda d, done, size: seen.append(done))
    assert first.stopped and first.verdicts[0].after is None and first.verdicts[0].done_bytes == 3 * MiB
    assert saved["disks"][0]["done_bytes"] == 3 * MiB and saved["target"] == dev
    assert seen[0] == 3 * MiB and seen[1] == 4 * MiB  # on from the offset, not from 0
    assert not second.stopped and second.verdicts[0].done_bytes == 16 * MiB
    assert second.state.disks[0].before == first.state.disks[0].before  # SMART before the whole burn-in
    assert not state_path().exists()
    with pytest.raises(BurnInError, match="no stopped burn-in to resume"):
        burn_in_session(BurnInRequest(dev, resume=True), _ignore, _ignore)


@needs_loops
def test_writing_needs_destroy_data_naming_the_target():
    with sparse_loops([4 * MiB, 4 * MiB]) as (dev, other):
        with open(dev, "r+b") as f:
            f.write(b"\xa5" * MiB)
        burn_in_session(BurnInRequest(dev), _ignore, _ignore)
        with open(dev, "rb") as f:
            assert f.read(MiB) == b"\xa5" * MiB  # read-only without --destroy-data
        with pytest.raises(GuardError, match="is not the target"):
            burn_in_session(BurnInRequest(dev, destroy_data=other), _ignore, _ignore)
        out = burn_in_session(BurnInRequest(dev, destroy_data=dev), _ignore, _ignore)
        with open(dev, "rb") as f:
            assert f.read() == bytes(4 * MiB)  # every chunk written, then read
    assert out.state.write and out.verdicts[0].done_bytes == 4 * MiB


@needs_loops
def test_ctrl_c_on_the_command_line_then_resume():
    cli = [sys.executable, "-m", "app.cli.main", "validate"]
    with sparse_loops([512 * MiB]) as (dev,):
        p = subprocess.Popen([*cli, dev, "--burn-in", "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        done = 0
        deadline = time.monotonic() + 120
        while done == 0 and p.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
            with contextlib.suppress(FileNotFoundError, ValueError):  # not written yet, or half written
                done = json.loads(state_path().read_text())["disks"][0]["done_bytes"]
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=60)
        assert p.returncode == 130, err.decode()
        stopped = json.loads(out)
        kept = json.loads(state_path().read_text())["disks"][0]["done_bytes"]
        again = subprocess.run([*cli, dev, "--burn-in", "--resume"], capture_output=True, text=True, timeout=300)
    assert stopped["stopped"] and 0 < stopped["disks"][0]["done_bytes"] == kept < 512 * MiB
    assert stopped["state_file"] == str(state_path())
    assert again.returncode == 0, again.stderr
    assert f"{dev}: 536,870,912 of 536,870,912 bytes read; no counter moved" in again.stdout
    assert not state_path().exists()
