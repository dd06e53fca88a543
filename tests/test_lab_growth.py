"""Growth rehearsal in the lab: the old pod built, data written, the grow script run unmodified.

One boot, three growths: RAID5 of 4 reshaped to 6 members under XFS (xfs_growfs), an LVM pod
given one more array (vgextend + lvextend + resize2fs), and RAID5 of 4 turned into RAID6 of 5.
Every figure the growth predicts (array level, members and size, LV size, df size and
available) must equal what the VM reports, and the data written before reads back intact.
"""

from __future__ import annotations

import functools
import time

import pytest

from planners.errors import PlanError
from planners.grow import GrowRequest, target_plan
from planners.models import DiskSet, Filesystem, Lvm, MdGroup, Plan
from planners.units import KiB
from runners.lab import LabConfig, ensure_kit, run_batch
from runners.lab.growth import compare_growth, prepare_growth, prepare_interrupt, records
from runners.lab.rehearse import rehearsal_tools
from tests.lab_helpers import shared_batch, skip_unless_lab

pytestmark = pytest.mark.slow

skip_unless_lab()

TB = 2000 * 10**9


def raid5(name: str, fs: str, members: int = 4, lvm: bool = False) -> Plan:
    return Plan(
        name=name,
        disks=[DiskSet(count=members, size=TB)],
        groups=[MdGroup(level=5, members=members, chunk=64 * KiB)],
        lvm=Lvm(enabled=lvm),
        filesystem=Filesystem(type=fs),
    )


def cases() -> dict[str, tuple[Plan, Plan]]:
    r5 = raid5("grow5", "xfs")
    lv = raid5("growlvm", "ext4", members=3, lvm=True)
    r56 = raid5("grow56", "ext4")
    return {
        "r5to6": (r5, target_plan(r5, GrowRequest(add_disks=2))),
        "lvmarray": (lv, target_plan(lv, GrowRequest(add_disks=3, mode="new-array"))),
        "r5tor6": (r56, target_plan(r56, GrowRequest(add_disks=1, to_level=6))),
    }


LAB_TIMEOUT_S = 1500.0


def lab_scenarios(kit) -> list:  # type: ignore[no-untyped-def]
    return [p[0] for p in _prepared(kit.manifest.kernel_release).values()]


@functools.cache
def _prepared(kernel_release: str) -> dict:
    tools = rehearsal_tools(kernel_release)
    return {name: prepare_growth(old, new, tools=tools, name=name) for name, (old, new) in cases().items()}


@pytest.fixture(scope="module")
def lab(request):
    return _prepared(ensure_kit().manifest.kernel_release), shared_batch(request)


@pytest.mark.parametrize("case", list(cases()))
def test_growth_rehearsal_matches_every_figure_and_keeps_the_data(lab, case):
    prepared, result = lab
    _, _, new, growth = prepared[case]
    run = result.scenario(case)
    assert run.returncode == 0, run.stdout[-2500:] + run.stderr[-2500:]
    checks = compare_growth(new, growth, run.collection, run.outputs)
    table = "\n".join(
        f"{c.layer} {c.figure}: predicted {c.predicted} | actual {c.actual} | {'yes' if c.match else 'NO'}"
        for c in checks
    )
    print(f"\n{case} ({run.script_s or 0:.0f} s; {run.outputs.get('growth.txt', '').strip()}):\n{table}")
    assert all(c.match for c in checks), table


def test_a_growth_that_cannot_be_rehearsed_is_refused_before_boot():
    far = Plan(
        name="far",
        disks=[DiskSet(count=4, size=TB)],
        groups=[MdGroup(level=10, layout="f2", members=4, chunk=64 * KiB)],
        filesystem=Filesystem(type="xfs"),
    )
    bigger = far.model_copy(
        update={"disks": [DiskSet(count=6, size=TB)], "groups": [far.groups[0].model_copy(update={"members": 6})]}
    )
    with pytest.raises(PlanError, match="far"):
        prepare_growth(far, bigger)


def test_a_reshape_cut_by_a_power_cut_resumes_and_the_grow_script_finishes(tmp_path):
    """Boot 1 builds, writes, starts the grow script and reboots at once a quarter into md's reshape;
    boot 2, on the same disk images, assembles: md goes on with the reshape where it stopped, the data
    is intact, and the unmodified grow script, run again, skips what is done and grows ext4."""
    from runners.lab import LabError

    kit = ensure_kit()
    old = raid5("cut5", "ext4")
    crash, resume, new, growth = prepare_interrupt(
        old,
        target_plan(old, GrowRequest(add_disks=1)),
        disk_bps=4_000_000,
        tools=rehearsal_tools(kit.manifest.kernel_release),
        name="cut",
    )
    started = time.monotonic()
    with pytest.raises(LabError) as cut:
        run_batch([crash], kit=kit, config=LabConfig(timeout_s=900), disk_dir=str(tmp_path))
    console = cut.value.outcome.console if cut.value.outcome else ""
    assert "power cut with the reshape at" in console, console[-3000:]
    cut_at = next(line for line in console.splitlines() if "power cut with the reshape at" in line)
    run = run_batch([resume], kit=kit, config=LabConfig(timeout_s=900), disk_dir=str(tmp_path)).scenario("cut")
    print(
        f"\ntwo boots: {time.monotonic() - started:.0f} s; {cut_at.split(': ', 2)[-1]}; "
        f"{run.outputs.get('interrupt.txt', '').strip()}"
    )
    assert run.returncode == 0, run.stdout[-2500:] + run.stderr[-2500:]
    got = records(run.outputs, "interrupt.txt")
    print(run.outputs.get("detail-at-assembly.txt", ""))
    assert got["reshape_position_at_assembly"] != "none", got  # the superblocks remember the cut reshape
    assert got["action_after_assembly"] == "reshape", got  # and md takes it up again once writable
    assert got["data_after_assembly"] == "yes"
    assert "resume  /dev/md/md0 already has 5 members" in run.stdout
    checks = compare_growth(new, growth, run.collection, run.outputs)
    table = "\n".join(f"{c.figure}: {c.predicted} | {c.actual} | {'yes' if c.match else 'NO'}" for c in checks)
    print(table)
    assert all(c.match for c in checks), table
