"""Per-disk baseline: one fio run, one job per disk and zone, read-only, slow disks flagged."""

from __future__ import annotations

import hashlib
import os

import pytest

from runners.exec import have, run
from runners.fio.baseline import baseline_job, flag_slow, run_baseline, summarize, zone_bytes
from runners.fio.result import FioRun, JobFigures
from runners.probes.loopdev import sparse_loops

MiB, GiB = 1024**2, 1024**3


def test_zones_and_phases():
    assert zone_bytes(10 * GiB * 1000) == GiB and zone_bytes(100 * MiB) == 10 * MiB
    text = baseline_job([("/dev/sdb", 4 * GiB), ("/dev/sdc", 4 * GiB)], 3).text
    assert text.count("stonewall") == 2  # outer, then inner, then random: each with every disk at once
    assert "offset=0" in text and f"offset={4 * GiB - zone_bytes(4 * GiB)}" in text
    assert "rw=write" not in text and "randwrite" not in text


def test_slow_disk_is_flagged_against_the_median():
    med, slow = flag_slow({"sda": 200.0, "sdb": 195.0, "sdc": 150.0, "sdd": 205.0})
    assert med == 197.5 and slow == {"sdc"}  # 150 < 0.8 x 197.5
    assert flag_slow({"sda": 200.0, "sdb": 161.0})[1] == set()


def _job(name, mb_s=0.0, iops=0.0):
    return JobFigures(
        name=name,
        read_bytes_s=int(mb_s * 1e6),
        write_bytes_s=0,
        read_iops=iops,
        write_iops=0,
        read_p99_us=None,
        write_p99_us=None,
        runtime_ms=1000,
        io_bytes=1,
        error=0,
        steady=None,
    )


def test_summary_per_disk():
    disks = [(f"/dev/sd{c}", GiB) for c in "abc"]
    jobs = (
        [_job(f"outer:sd{c}", mb) for c, mb in zip("abc", (200, 210, 100), strict=True)]
        + [_job(f"inner:sd{c}", mb) for c, mb in zip("abc", (100, 105, 95), strict=True)]
        + [_job(f"rand:sd{c}", iops=i) for c, i in zip("abc", (150, 150, 150), strict=True)]
    )
    per, med = summarize(FioRun(jobs=tuple(jobs), disk_util={}, fio_version="", final=True), disks)
    assert per[2].slow == ("outer",) and per[0].slow == () and med["outer"] == 200


def _sha256(path: str) -> str:
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


@pytest.mark.skipif(os.geteuid() != 0 or not have("fio") or not have("losetup"), reason="needs root, fio, losetup")
def test_real_run_on_loops_reads_only():
    with sparse_loops([64 * MiB] * 3) as devs:
        for d in devs:
            run(["mkfs.ext4", "-q", "-F", d], timeout=60)
        before = [_sha256(d) for d in devs]
        b = run_baseline(devs, runtime_s=1)
        after = [_sha256(d) for d in devs]
    assert not b.partial, b.reason
    assert before == after
    for d in b.disks:
        assert d.outer_mb_s and d.inner_mb_s and d.rand_read_iops
    assert set(b.medians) == {"outer", "inner", "rand"}
