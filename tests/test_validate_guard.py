"""The write guard on real loop devices: a signature, a mount, a typo, a device removed mid-run.

Each test checks the bytes that matter afterwards, so a guard that let a write through fails.
"""

from __future__ import annotations

import hashlib
import os
import threading

import pytest

from runners.exec import have, run
from runners.fio.jobs import Timing
from runners.probes.loopdev import detach_loop, mounted, sparse_loop, sparse_loops
from runners.validate.guard import (
    DeviceState,
    GuardError,
    check_destroy_flag,
    parse_mountinfo,
    parse_wipefs,
    write_refusal,
)
from runners.validate.suite import validate

MiB = 1024**2
FAST = Timing(runtime_s=2, ss_duration_s=1, ss_ramp_s=0, ss_slope_pct=50.0)
needs_root = pytest.mark.skipif(
    os.geteuid() != 0 or not have("fio") or not have("losetup"), reason="needs root, fio and losetup for loop devices"
)


def _digest(dev: str, size: int = 4 * MiB) -> str:
    with open(dev, "rb") as f:
        return hashlib.sha256(f.read(size)).hexdigest()


def _state(**kw) -> DeviceState:
    base = dict(
        path="/dev/sdz",
        name="sdz",
        rdev=(8, 0),
        size_bytes=MiB,
        signatures=(),
        mounts=(),
        holders=(),
        swap=False,
        exclusive_busy=False,
    )
    return DeviceState(**{**base, **kw})


def test_refusals_table():
    assert write_refusal(_state(), False) is None
    assert "pass --destroy-data /dev/sdz" in write_refusal(_state(signatures=("xfs at 0x0",)), False)
    assert write_refusal(_state(signatures=("xfs at 0x0",)), True) is None
    # Naming the device never unlocks a mounted, held, swapping or claimed one.
    for kw in ({"mounts": ("/srv",)}, {"holders": ("md0",)}, {"swap": True}, {"exclusive_busy": True}):
        assert write_refusal(_state(**kw), True) is not None, kw


def test_parsers():
    info = "36 35 7:3 / /mnt/a\\040b rw,relatime shared:1 - ext4 /dev/loop3 rw\n"
    assert parse_mountinfo(info) == {(7, 3): ["/mnt/a b"]}
    assert parse_wipefs('{"signatures": [{"device": "loop0", "offset": "0x438", "type": "ext4"}]}') == (
        "ext4 at 0x438",
    )
    assert parse_wipefs('{"signatures": []}') == ()


@needs_root
def test_ext4_signature_blocks_writes_and_reads_still_run():
    with sparse_loop(64 * MiB) as dev:
        run(["mkfs.ext4", "-q", "-F", dev], timeout=60)
        before = _digest(dev)
        rep = validate(dev, timing=FAST, names=("seq-read", "seq-write"))
        assert rep.workload("seq-read").status == "done"
        w = rep.workload("seq-write")
        assert w.status == "skipped" and "ext4" in w.reason and "--destroy-data" in w.reason
        assert _digest(dev) == before
        assert "ext4" in run(["blkid", "-p", "-o", "value", "-s", "TYPE", dev], timeout=30, check=False).stdout


@needs_root
def test_destroy_data_naming_the_device_allows_writes(tmp_path):
    with sparse_loop(64 * MiB) as dev:
        run(["mkfs.ext4", "-q", "-F", dev], timeout=60)
        alias = tmp_path / "alias"
        alias.symlink_to(dev)  # another name for the same device counts as naming it
        rep = validate(dev, timing=FAST, names=("seq-write",), destroy_data=str(alias))
        assert rep.workload("seq-write").status == "done"


@needs_root
def test_typo_in_destroy_data_runs_nothing():
    with sparse_loops([64 * MiB, 64 * MiB]) as (dev, other):
        for d in (dev, other):
            run(["mkfs.ext4", "-q", "-F", d], timeout=60)
        digests = (_digest(dev), _digest(other))
        for typo in (other, dev + "9", "/dev/nonexistent"):
            with pytest.raises(GuardError, match="nothing was run"):
                validate(dev, timing=FAST, names=("seq-write",), destroy_data=typo)
        assert (_digest(dev), _digest(other)) == digests
        with pytest.raises(GuardError):
            check_destroy_flag(dev, other)


@needs_root
def test_mounted_device_is_never_written_even_when_named():
    with sparse_loop(64 * MiB) as dev:
        run(["mkfs.ext4", "-q", "-F", dev], timeout=60)
        with mounted(dev) as mnt:
            with open(os.path.join(mnt, "keep"), "w") as f:
                f.write("precious")
            rep = validate(dev, timing=FAST, names=("seq-read", "rand-write-4k"), destroy_data=dev)
            assert rep.workload("seq-read").status == "done"
            w = rep.workload("rand-write-4k")
            assert w.status == "skipped" and "mounted at " + mnt in w.reason
        with mounted(dev) as mnt, open(os.path.join(mnt, "keep")) as f:
            assert f.read() == "precious"
        assert run(["e2fsck", "-fn", dev], timeout=60, check=False).returncode == 0


@needs_root
def test_device_removed_mid_run_gives_partial_report_not_a_traceback():
    with sparse_loop(128 * MiB) as dev:
        timing = Timing(runtime_s=3, ss_duration_s=3, ss_ramp_s=0, ss_slope_pct=0.01)
        fired = threading.Event()

        def on_progress(name, event, elapsed, figures):
            if event == "progress" and not fired.is_set():
                fired.set()
                detach_loop(dev)  # losetup -d while fio has it open

        rep = validate(dev, timing=timing, on_progress=on_progress)
    assert fired.is_set()
    assert rep.partial or rep.stopped
    assert "vanished" in rep.stopped
    assert rep.workloads[0].figures is not None  # what was measured before is kept
    assert all(w.status == "skipped" and "vanished" in w.reason for w in rep.workloads[1:])


@needs_root
def test_non_block_path_and_zero_size(tmp_path):
    f = tmp_path / "plain"
    f.write_text("x")
    with pytest.raises(GuardError, match="no such device or directory"):
        validate(str(tmp_path / "missing"), timing=FAST)
    with pytest.raises(GuardError, match="not a block device"):
        validate(str(f), timing=FAST)
