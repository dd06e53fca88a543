"""The rehearsal pipeline without booting: the stages it follows, what it refuses before the kit is
checked, and its outcome rendered, on a collection recorded from a real boot (tests/fixtures/lab).
The boots themselves are in tests/test_lab_rehearse.py, test_lab_failure.py and test_lab_growth.py."""

from __future__ import annotations

import io
import json
import pathlib

import pytest
from rich.console import Console

from app.cli.rehearse import render_build
from app.usecases.rehearse import Rehearsal, RehearseRequest, StageEntered, _Stages, refuse
from planners.compute import compute
from planners.errors import PlanError
from planners.example import example_pod
from planners.models import DiskSet, Filesystem, Lvm, MdGroup, Plan
from planners.units import KiB, MiB
from runners.lab.collect import parse_collection
from runners.lab.rehearse import compare
from runners.lab.vm import Mark

BOOT = pathlib.Path(__file__).parent / "fixtures" / "lab" / "boot" / "scenarios"


def test_each_stage_is_said_once_as_the_guest_reaches_it() -> None:
    seen: list[StageEntered] = []
    stages = _Stages(seen.append)
    stages.enter("kit", "checking the boot kit")
    for kind, text in (
        ("stage", "init"),
        ("stage", "disks-ready 3 disks"),
        ("out", "r5 == create /dev/md0: RAID5 of 3"),
        ("out", "r5 == create /dev/md0: again"),
        ("warning", "something"),
        ("out", "r5 == filesystem: mkfs.xfs"),
        ("scenario", "r5 collect"),
    ):
        stages.on_mark(Mark(kind=kind, text=text))
    assert [(e.stage, e.detail) for e in seen] == [
        ("kit", "checking the boot kit"),
        ("boot", "kernel reached /init"),
        ("disks", "3 disks"),
        ("create", "create /dev/md0: RAID5 of 3"),
        ("mkfs", "filesystem: mkfs.xfs"),
        ("checks", "collecting what mdadm, LVM and the filesystem report"),
    ]
    assert stages.stage == "checks" and all(e.elapsed_s >= 0 for e in seen)


def test_what_cannot_be_rehearsed_is_refused_before_the_kit() -> None:
    with pytest.raises(PlanError, match="3 would lose the array"):
        refuse(RehearseRequest(example_pod(), "fail", fail=3))
    with pytest.raises(PlanError, match="needs the grown plan"):
        refuse(RehearseRequest(example_pod(), "grow"))
    refuse(RehearseRequest(example_pod()))  # a build is always rehearsed


def _recorded_r5xfs() -> tuple[Plan, object]:
    """A collection recorded from a real boot, and a plan to hold it against (its figures need not match)."""
    base = BOOT / "r5xfs" / "collect"
    collection = parse_collection({str(p.relative_to(base)): p.read_text() for p in base.rglob("*") if p.is_file()})
    plan = Plan(
        name="r5xfs",
        disks=[DiskSet(count=3, size=1024 * MiB)],
        groups=[MdGroup(name="md0", level=5, members=3, chunk=512 * KiB)],
        lvm=Lvm(enabled=False),
        filesystem=Filesystem(type="xfs", mount_point="/mnt/a"),
    )
    return plan, collection


def test_a_build_rehearsal_renders_each_figure_and_its_verdict(capsys: pytest.CaptureFixture[str]) -> None:
    plan, collection = _recorded_r5xfs()
    checks = tuple(compare(plan, compute(plan), collection))  # type: ignore[arg-type]
    out = Rehearsal("build", "verify", "6.1.0", (200 * MiB,) * 3, checks=checks, script_exit_status=0, boot_s=4.0)
    assert out.ok == all(c.match for c in checks) and checks
    err = io.StringIO()
    render_build(out, Console(file=err, width=200), as_json=True)
    doc = json.loads(capsys.readouterr().out)
    assert doc["all_match"] == out.ok and doc["kernel"] == "6.1.0" and len(doc["checks"]) == len(checks)
    assert err.getvalue() == ""  # the script ended well: nothing on stderr with --json
    failed = Rehearsal("build", "mkfs", "6.1.0", checks=checks, script_exit_status=3, stderr="a\nb\nmkfs failed\n")
    render_build(failed, Console(file=err, width=200), as_json=True)
    assert not failed.ok and "status 3 during stage mkfs" in err.getvalue() and "mkfs failed" in err.getvalue()
    lost = Rehearsal("build", "boot", not_collected="the scenario did not finish")
    render_build(lost, Console(file=err, width=200), as_json=False)
    assert not lost.ok and "nothing was collected (the scenario did not finish)" in err.getvalue()
