"""Failure rehearsal in the lab: members failed mid-write, the degraded array, the rebuild, the data.

One boot runs two plans: RAID6 of 6 losing 2 members (rebuilt onto two new disks) and RAID5 of
4 with a hot spare losing 1 (the spare takes over). Every disk is throttled to a known speed;
the model, fed with one disk measured in the same boot, predicts each figure within 25 %, and
the data written before and during the failure reads back intact after each step.
"""

from __future__ import annotations

import time

import pytest

from planners.errors import PlanError
from planners.models import DiskSet, Filesystem, MdGroup, Plan
from planners.units import KiB
from runners.lab import LabConfig, ensure_kit, run_batch
from runners.lab.failure import compare_failure, prepare_failure
from tests.lab_helpers import skip_unless_lab

pytestmark = pytest.mark.slow

skip_unless_lab()

TB = 2000 * 10**9


def plan(name: str, level: int, members: int, spares: int = 0) -> Plan:
    # ext4: the scaled-down volume stays small (XFS wants 300 MiB and more), so the rebuilds are short.
    return Plan(
        name=name,
        disks=[DiskSet(count=members + spares, size=TB)],
        groups=[MdGroup(level=level, members=members, spares=spares, chunk=64 * KiB)],
        filesystem=Filesystem(type="ext4"),
    )


CASES = {"raid6x2": (plan("r6", 6, 6), 2), "raid5spare": (plan("r5", 5, 4, spares=1), 1)}


@pytest.fixture(scope="module")
def lab():
    prepared = {name: prepare_failure(p, fail, name=name) for name, (p, fail) in CASES.items()}
    started = time.monotonic()
    result = run_batch([s for s, _, _ in prepared.values()], kit=ensure_kit(), config=LabConfig(timeout_s=1500))
    print(f"\nlab failure batch: {time.monotonic() - started:.0f} s, accel {result.accel}")
    return prepared, result


@pytest.mark.parametrize("case", list(CASES))
def test_failure_rehearsal_matches_the_model_and_keeps_the_data(lab, case):
    prepared, result = lab
    _, scaled, fp = prepared[case]
    run = result.scenario(case)
    checks, _ = compare_failure(scaled, fp, run)
    table = "\n".join(
        f"{c.figure}: predicted {c.shown} | measured {c.actual} | "
        + ("yes" if c.match else "NO" if c.witnessed else "not witnessed")
        + (f" ({c.why})" if c.why else "")
        for c in checks
    )
    print(f"\n{case} (script exit {run.returncode}, {run.script_s or 0:.0f} s):\n{table}")
    print(run.outputs.get("failure.txt"))
    assert run.returncode == 0, run.stdout[-1500:] + run.stderr[-1500:]
    assert all(c.match for c in checks if c.witnessed), table
    # A band from 0 (the foreground during a rebuild: md gives way down to speed_limit_min) witnesses only its
    # top: what was measured must still be under it.
    for c in checks:
        if not c.witnessed:
            assert isinstance(c.actual, (int, float)) and isinstance(c.predicted, (int, float)), table
            assert c.actual <= c.predicted * (1 + c.tolerance), table


def test_a_plan_that_cannot_survive_is_refused_before_boot():
    with pytest.raises(PlanError, match="survives 1 failed member for certain; 2 would lose"):
        prepare_failure(plan("r5", 5, 4), 2)
    with pytest.raises(PlanError, match="RAID0 has no redundancy"):
        prepare_failure(plan("r0", 0, 4), 1)
