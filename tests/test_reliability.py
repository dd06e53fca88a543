"""Reliability: the textbook MTTDL forms, spares, groups, unrecoverable reads, the yearly range."""

from __future__ import annotations

from math import exp

import pytest

from planners.compute import compute
from planners.hardware.disks import DiskSpec
from planners.hardware.machine import Hardware, Wiring
from planners.models import DiskSet, Lvm, MdGroup, Plan
from planners.reliability.loss import AFR_RANGE, HOURS_PER_YEAR, reliability, with_loss_findings
from planners.units import KiB

TB2 = 2_000_398_934_016


def plan(
    level: int, members: int, *, groups: int = 1, spares: int = 0, layout: str | None = None, hw: Hardware | None = None
) -> Plan:
    return Plan(
        name="r",
        disks=[DiskSet(count=(members + spares) * groups, size=TB2)],
        groups=[
            MdGroup(
                name=f"md{i}",
                level=level,
                layout=layout,
                members=members,
                spares=spares,
                chunk=None if level == 1 else 512 * KiB,
            )
            for i in range(groups)
        ],
        lvm=Lvm(enabled=groups > 1),
        hardware=hw,
    )


def rel(p: Plan):  # type: ignore[no-untyped-def]
    return reliability(p, compute(p))


def _mttf(afr: float) -> float:
    return HOURS_PER_YEAR / afr


@pytest.mark.parametrize(
    "level,n,formula",
    [
        (5, 8, lambda f, r, n: f**2 / (n * (n - 1) * r)),
        (6, 8, lambda f, r, n: f**3 / (n * (n - 1) * (n - 2) * r**2)),
        (10, 8, lambda f, r, n: f**2 / (n * r)),
        (0, 8, lambda f, r, n: f / n),
        (1, 3, lambda f, r, n: f**3 / (n * 2 * r**2)),
    ],
)
def test_mttdl_follows_the_textbook_forms(level, n, formula):
    g = rel(plan(level, n)).groups[0]
    lo, hi = g.mttdl_hours
    assert lo == pytest.approx(formula(_mttf(AFR_RANGE[1]), g.mttr_hours, n))
    assert hi == pytest.approx(formula(_mttf(AFR_RANGE[0]), g.mttr_hours, n))


def test_far_and_odd_raid10_have_two_partners():
    near = rel(plan(10, 8)).groups[0]
    far = rel(plan(10, 8, layout="f2")).groups[0]
    odd = rel(plan(10, 7)).groups[0]
    assert far.mttdl_hours[0] == pytest.approx(near.mttdl_hours[0] / 2)
    assert odd.mttdl_hours[0] < near.mttdl_hours[0]


def test_a_hot_spare_cuts_the_repair_time_to_the_rebuild():
    bare, spared = (rel(plan(6, 12, spares=s)).groups[0] for s in (0, 1))
    assert bare.mttr_hours == pytest.approx(bare.rebuild_hours + 72)
    assert spared.mttr_hours == pytest.approx(spared.rebuild_hours)
    assert spared.mttdl_hours[0] > 10 * bare.mttdl_hours[0]


def test_rebuild_is_bound_by_the_slowest_limit():
    slow = Hardware(disk=DiskSpec(seq_inner_mb_s=80))
    g = rel(plan(6, 10, hw=slow)).groups[0]
    assert g.rebuild_binding == "inner zone" and g.rebuild_mb_s == 80
    component = 2_000_263_577_600  # mdadm's component of a 2 TB member with a 512K chunk
    assert g.rebuild_hours == pytest.approx(component / 80e6 / 3600)
    fast = Hardware(disk=DiskSpec(disk_class="nvme"))
    assert rel(plan(6, 10, hw=fast)).groups[0].rebuild_binding == "speed_limit_max"
    shared = Hardware(wiring=Wiring(link="sata2", disks_per_link=5))
    g = rel(plan(6, 10, hw=shared)).groups[0]
    assert g.rebuild_binding == "link" and g.rebuild_mb_s == pytest.approx(270 / 5)


def test_groups_add_their_risks():
    one = rel(plan(6, 10))
    three = rel(plan(6, 10, groups=3))
    assert three.mttdl_hours[0] == pytest.approx(one.mttdl_hours[0] / 3)
    lo, hi = three.loss.array_per_year
    assert lo < hi == pytest.approx(1 - exp(-HOURS_PER_YEAR / three.mttdl_hours[0]))
    assert three.loss.per_year[0] < three.loss.per_year_nominal < three.loss.per_year[1]


def test_unrecoverable_read_error_odds():
    r5 = rel(plan(5, 8)).groups[0]
    # Seven survivors read whole (a 128 MiB data offset aside); (1 - BER)^bits, in a form floats can hold.
    assert r5.ure_bits == pytest.approx(7 * 8 * (TB2 - 2**27), rel=1e-3)
    assert r5.ure_probability == pytest.approx(1 - exp(-r5.ure_bits * 1e-14), rel=1e-9)
    assert 0.6 < r5.ure_probability < 0.7
    assert "lost" in r5.ure_consequence
    assert "corrected" in rel(plan(6, 8)).groups[0].ure_consequence
    assert rel(plan(1, 2)).groups[0].ure_bits == pytest.approx(r5.ure_bits / 7, rel=1e-3)


def test_the_loss_figure_adds_data_lost_to_ures_in_rebuilds():
    # RAID5: every rebuild reads the survivors with no redundancy left; a URE loses that stripe's data.
    r5 = rel(plan(5, 9, groups=5))
    g = r5.groups[0]
    assert g.exposed_ure_probability == g.ure_probability and g.exposed_bits == g.ure_bits
    loss = r5.loss
    assert loss.rebuilds_per_year == pytest.approx((45 * 0.01, 45 * 0.04))
    assert loss.ure_per_rebuild == pytest.approx((g.ure_probability, g.ure_probability))
    for i, afr in enumerate(AFR_RANGE):
        ures = 45 * afr * g.ure_probability  # a year
        arrays = 5 * HOURS_PER_YEAR / (g.mttdl_hours[1 - i])
        assert loss.ure_per_year[i] == pytest.approx(1 - exp(-ures))
        assert loss.array_per_year[i] == pytest.approx(1 - exp(-arrays))
        assert loss.per_year[i] == pytest.approx(1 - exp(-ures - arrays))
    # RAID6: only a rebuild with two members missing reads without a spare parity; the n - 2 survivors.
    r6 = rel(plan(6, 10))
    g6 = r6.groups[0]
    assert g6.exposed_bits == pytest.approx(g6.ure_bits * 8 / 9)
    lam = AFR_RANGE[1] / HOURS_PER_YEAR
    exposed = 10 * lam * 9 * lam * g6.mttr_hours * HOURS_PER_YEAR  # double failures a year
    assert r6.loss.ure_per_year[1] == pytest.approx(1 - exp(-exposed * g6.exposed_ure_probability))
    assert r6.loss.ure_per_rebuild[1] == pytest.approx(exposed * g6.exposed_ure_probability / (10 * 0.04))
    # RAID0 has no rebuild, so nothing is lost to UREs: its arrays are its whole loss.
    r0 = rel(plan(0, 4)).loss
    assert r0.rebuilds_per_year == (0, 0) and r0.ure_per_year == (0, 0) and r0.per_year == r0.array_per_year


def test_a_plan_that_loses_data_in_most_rebuilds_says_so_in_its_findings():
    from planners.example import example_pod

    r5 = Plan(
        name="r",
        disks=[DiskSet(count=45, size=18 * 10**12)],
        lvm=Lvm(enabled=True, mode="striped"),
        groups=[MdGroup(name=f"md{i}", level=5, members=9, chunk=512 * KiB) for i in range(5)],
    )
    result = with_loss_findings(r5, compute(r5))
    loss = reliability(r5, result).loss
    (f,) = [f for f in result.findings if "unreadable sector" in f.message]
    assert f.severity == "warning" and f.message.startswith("md0 to md4 (5 arrays, RAID5 of 9): each rebuild reads")
    lo, hi = loss.per_year
    for part in (
        "100% of them lose a stripe's data",
        "0.45 to 1.8 rebuilds a year",
        f"data loss within a year {lo:.0%} to {hi:.0%}",
        "per 1e14 bits",
    ):
        assert part in f.message, f.message
    # RAID6 corrects a single URE while one member is missing: the example pod is not warned.
    pod = example_pod()
    assert not any("unreadable sector" in f.message for f in with_loss_findings(pod, compute(pod)).findings)


def test_assumptions_are_stated():
    text = " ".join(rel(plan(6, 10)).assumptions)
    for needle in ("independently", "1%-4%", "72 h", "speed_limit_max", "2-1500x"):
        assert needle in text
