"""Failure rehearsal planning: who survives what, which members go, and the CLI's refusals."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from planners.errors import PlanError
from planners.hardware.disks import DiskPerf
from planners.models import DiskSet, Filesystem, Lvm, MdGroup, Plan
from planners.reliability.failure import array_plan, failure_plan, predict_failure, tolerance
from planners.units import KiB

ROOT = Path(__file__).resolve().parent.parent
TB = 2000 * 10**9
DISK = DiskPerf(seq_read_mb_s=4, seq_write_mb_s=4, rand_read_iops=200, rand_write_iops=200)


def plan(*groups: MdGroup, lvm: bool = False) -> Plan:
    return Plan(
        disks=[DiskSet(count=sum(g.disks for g in groups), size=TB)],
        groups=list(groups),
        lvm=Lvm(enabled=lvm),
        filesystem=Filesystem(type="ext4"),
    )


@pytest.mark.parametrize(
    "group, survives",
    [
        (MdGroup(level=0, members=4), 0),
        (MdGroup(level=1, members=3), 2),
        (MdGroup(level=4, members=4), 1),
        (MdGroup(level=5, members=6), 1),
        (MdGroup(level=6, members=6), 2),
        (MdGroup(level=10, members=4), 1),
        (MdGroup(level=10, layout="n3", members=6), 2),
        (MdGroup(level=10, layout="f2", members=5), 1),
        (MdGroup(level=10, layout="o3", members=3), 2),
    ],
)
def test_tolerance_is_what_the_level_guarantees(group, survives):
    assert tolerance(group) == survives
    p = plan(group)
    if survives:
        assert failure_plan(p, survives).fail == survives
    with pytest.raises(PlanError, match=r"lose the array|no redundancy"):
        failure_plan(p, survives + 1)


def test_spares_take_over_before_new_disks_are_needed():
    fp = failure_plan(plan(MdGroup(level=6, members=6, spares=1)), 2)
    assert (fp.spares, fp.replacements, fp.failed) == (1, 1, (0, 1))


def test_the_named_array_loses_its_own_first_members():
    p = plan(MdGroup(name="md0", level=5, members=4, spares=1), MdGroup(name="md1", level=6, members=5), lvm=True)
    fp = failure_plan(p, 2, "md1")
    assert fp.failed == (5, 6) and fp.group == "md1"
    one = array_plan(p, "md1")
    assert [g.name for g in one.groups] == ["md1"] and one.disks[0].count == 5 and not one.lvm.enabled
    with pytest.raises(PlanError, match="no md array named 'md9'"):
        failure_plan(p, 1, "md9")
    with pytest.raises(PlanError, match="at least one"):
        failure_plan(p, 0)


def test_predictions_order_normal_degraded_and_rebuild():
    p = plan(MdGroup(level=6, members=6, chunk=64 * KiB))
    pr = predict_failure(p, failure_plan(p, 2), DISK, foreground_s=4)
    assert pr.normal_mb_s > pr.degraded_mb_s > 0
    assert pr.foreground_mb_s < pr.normal_mb_s
    component = pr.rebuild_s * pr.rebuild_mb_s * 1e6
    assert component > 0 and pr.loaded_rebuild_s > pr.rebuild_s


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "app.cli.main", *args], cwd=ROOT, capture_output=True, text=True, timeout=60
    )


def test_cli_refuses_an_impossible_failure_before_any_boot(tmp_path):
    example = tmp_path / "pod.toml"
    example.write_text(cli("example").stdout)
    out = cli("rehearse", str(example), "--fail", "3")
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert "survives 2 failed members for certain; 3 would lose the array" in out.stderr
    out = cli("rehearse", str(example), "--group", "md1")
    assert out.returncode == 2 and "give --fail too" in out.stderr
    out = cli("rehearse", str(example), "--fail", "1", "--group", "md7")
    assert out.returncode == 2 and "no md array named 'md7'" in out.stderr


def test_cli_refuses_a_growth_rehearsal_it_cannot_plan(tmp_path):
    example = tmp_path / "pod.toml"
    example.write_text(cli("example").stdout)
    out = cli("rehearse", str(example), "--grow", str(example))
    assert out.returncode == 2 and "nothing to grow" in out.stderr and "Traceback" not in out.stderr
    out = cli("rehearse", str(example), "--grow", str(example), "--fail", "1")
    assert out.returncode == 2 and "give one of them" in out.stderr
