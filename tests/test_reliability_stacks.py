"""Loss odds of the stacks without md: hardware RAID LUNs (their own disks, level and rebuild time),
LVM over several LUNs, btrfs's own profiles across raw disks, and NVMe rebuilds on their own links."""

from __future__ import annotations

from math import exp

import pytest

from app.shared.figures import reliability_rows, survives_lines
from planners.compute import compute
from planners.hardware.disks import DiskSpec, Lun
from planners.hardware.machine import PCIE_LANE_MB_S, Hardware
from planners.models import DiskSet, Filesystem, Lvm, MdGroup, Plan
from planners.perf.context import build_ctx
from planners.reliability.formulas import HOURS_PER_YEAR
from planners.reliability.loss import reliability, standing
from planners.reliability.stacks import lun_ctx, lun_rates, member_rate
from planners.units import KiB

GB = 10**9
LAM = 0.02 / HOURS_PER_YEAR  # hdd7200's own AFR, per hour


def luns(count: int, level: int = 5, disks: int = 7, *, md: bool = False) -> Plan:
    hw = Hardware(disk=DiskSpec(lun=Lun(disks=disks, level=level, strip=128 * KiB)))  # type: ignore[arg-type]
    data = Lun(disks=disks, level=level).data_disks  # type: ignore[arg-type]
    return Plan(
        name="luns",
        disks=[DiskSet(count=count, size=data * 2 * 10**12)],
        groups=[MdGroup(level=6, members=count, chunk=128 * KiB)] if md else [],
        lvm=Lvm(enabled=count > 1, mode="striped"),
        filesystem=Filesystem(type="ext4"),
        hardware=hw,
    )


def btrfs(n: int, data: str, meta: str, size: int = 4 * 10**12) -> Plan:
    return Plan(
        name="b",
        disks=[DiskSet(count=n, size=size)],
        filesystem=Filesystem(type="btrfs", data_profile=data, metadata_profile=meta),
    )


def rel(p: Plan):  # type: ignore[no-untyped-def]
    return reliability(p, compute(p))


def test_a_lun_is_lost_as_its_own_raid_is_not_at_a_disk_afr():
    p = luns(1)
    g = build_ctx(p, compute(p)).groups[0]
    inner = lun_ctx(g)
    assert inner is not None and (inner.level, inner.n, inner.parity) == (5, 7, 1)
    assert inner.component_bytes == 2 * 10**12  # each disk holds a sixth of the LUN
    t = 24.0  # Lun.rebuild_hours' default
    # RAID5 of 7: a failure, then one of the 6 others within the controller's rebuild.
    assert member_rate(g, LAM) == pytest.approx(7 * 6 * LAM * LAM * t)
    assert member_rate(g, LAM) < LAM / 100
    # The rebuild with no redundancy left reads the 6 survivors: at 1e-14 per bit most rebuilds hit one.
    whole, ure, rebuilds = lun_rates(inner, t, LAM)
    assert whole == member_rate(g, LAM) and rebuilds == pytest.approx(7 * LAM)
    p_ure = 1 - exp(-6 * 2e12 * 8 * 1e-14)
    assert ure == pytest.approx(7 * LAM * p_ure)
    loss = rel(p).loss
    # Nothing above the LUN mends what its rebuild loses: the URE share is data lost.
    assert loss.ure_per_rebuild[1] == pytest.approx(p_ure, rel=1e-3)
    assert loss.array_per_year[1] == pytest.approx(1 - exp(-7 * 6 * (0.04 / HOURS_PER_YEAR) ** 2 * t * HOURS_PER_YEAR))


def test_any_lun_lost_loses_a_striped_lv_over_them():
    one, eight = (rel(luns(n)).loss for n in (1, 8))
    assert eight.array_per_year[1] == pytest.approx(1 - (1 - one.array_per_year[1]) ** 8, rel=1e-6)
    assert eight.ure_per_year[1] > one.ure_per_year[1]


def test_raid6_luns_and_raid0_luns_differ_as_their_levels_do():
    r6, r0 = (rel(luns(4, level)).loss.per_year[1] for level in (6, 0))
    assert r0 > 0.5  # 4 x 7 disks striped: any of 28 disks
    assert r6 < 1e-3


def test_md_over_luns_fails_a_member_at_the_luns_rate_and_mends_its_stripes():
    p = luns(6, md=True)
    ctx = build_ctx(p, compute(p))
    loss = rel(p).loss
    # RAID6 of LUNs that each fail at ~1e-6 of a disk's rate: the array is all but safe ...
    assert loss.array_per_year[1] < 1e-12
    # ... and a URE inside a LUN's rebuild is mended from md's parity: no data lost to it.
    assert loss.ure_per_year[1] == pytest.approx(0, abs=1e-12)
    assert member_rate(ctx.groups[0], LAM) < LAM / 100


def test_the_tables_show_the_lun_inside_and_what_survives():
    rows = reliability_rows(rel(luns(2)))
    assert [r.kind for r in rows] == ["RAID5 LUN of 7 disks"] * 2
    assert rows[0].survives == "1" and rows[0].binding == "controller" and rows[0].rebuild == "24.0 h"
    md = reliability_rows(rel(luns(6, md=True)))
    assert [r.name for r in md] == ["md0", "  each LUN"]
    assert survives_lines(rel(luns(6, md=True))) == ["each RAID5 LUN survives 1 of its 7 disks failing"]


@pytest.mark.parametrize(
    "n, data, meta, survives",
    [
        (4, "raid0", "raid1", 0),
        (2, "single", "dup", 0),
        (4, "raid1", "raid1", 1),
        (4, "raid10", "raid1c3", 1),
        (4, "raid1c3", "raid1c4", 2),
        (4, "raid1c4", "raid1c4", 3),
        (4, "raid5", "raid1", 1),
        (5, "raid6", "raid1c3", 2),
        (4, "raid6", "raid1", 1),  # metadata weaker than data: the weaker counts
    ],
)
def test_btrfs_survives_what_the_weaker_of_data_and_metadata_survives(n, data, meta, survives):
    r = rel(btrfs(n, data, meta))
    (g,) = r.groups
    assert g.tolerates == survives
    lam = 0.04 / HOURS_PER_YEAR
    mttr = g.mttr_hours
    # Chunks of every pair (trio, ...) of devices: any further failure within the repair window loses data.
    rate = n * lam
    for j in range(1, survives + 1):
        rate *= (n - j) * lam * mttr
    assert r.loss.array_per_year[1] == pytest.approx(1 - exp(-rate * HOURS_PER_YEAR), rel=1e-6)


def test_btrfs_rows_say_data_and_metadata_apart():
    r = rel(btrfs(4, "raid0", "raid1"))
    assert survives_lines(r) == ["metadata raid1 survives 1 disk, data raid0 survives 0"]
    assert reliability_rows(r)[0].kind == "btrfs raid0/raid1 of 4"
    # btrfs replace has no md speed limit: the disks' inner zone binds.
    assert r.groups[0].rebuild_binding == "inner zone"
    assert all(x.name != "speed_limit_max" for x in r.groups[0].rebuild_limits)


def test_a_btrfs_raid5_rebuild_reads_every_survivor():
    g = rel(btrfs(5, "raid5", "raid1")).groups[0]
    assert g.exposed_bits == pytest.approx(4 * compute(btrfs(5, "raid5", "raid1")).volumes[0].btrfs.device_bytes[0] * 8)


def test_nvme_rebuilds_over_its_own_pcie_link_not_a_sata_one():
    hw = Hardware.model_validate({"disk": {"disk_class": "nvme"}, "md": {"speed_limit_max_kib_s": 10**7}})
    p = Plan(
        name="n",
        disks=[DiskSet(count=4, size=2 * 10**12, rotational=False)],
        groups=[MdGroup(level=5, members=4)],
        hardware=hw,
    )
    g = rel(p).groups[0]
    link = next(x for x in g.rebuild_limits if x.name == "link")
    assert link.mb_s == pytest.approx(4 * PCIE_LANE_MB_S[4])  # x4 at the server class's PCIe gen4
    assert g.rebuild_binding == "inner zone"  # 3500 x 0.85 MB/s of writes, under the link


def test_findings_say_what_btrfs_and_luns_survive_with_the_one_loss_figure():
    from planners.reliability.loss import with_loss_findings

    for p, said in (
        (btrfs(4, "raid0", "raid1"), "metadata raid1 survives 1 disk, data raid0 survives 0"),
        (luns(2), "each RAID5 LUN survives 1 of its 7 disks failing"),
    ):
        result = compute(p)
        lo, hi = (f"{100 * x:.2g} %" for x in reliability(p, result).loss.per_year)
        (f,) = [f for f in with_loss_findings(p, result).findings if "survives" in f.message]
        assert f.severity == "info" and said in f.message and f"{lo} to {hi}" in f.message
    md = Plan(name="m", disks=[DiskSet(count=6, size=4 * 10**12)], groups=[MdGroup(level=6, members=6)])
    assert not any("survives" in f.message for f in with_loss_findings(md, compute(md)).findings)


@pytest.mark.parametrize("which", ["btrfs", "luns"])
def test_cli_and_tui_show_the_same_rows_and_loss_at_80_columns(which):
    from rich.console import Console

    from app.cli.predict import reliability_table
    from app.shared.figures import loss_lines
    from app.tui.widgets.perf import reliability_text

    p = btrfs(4, "raid0", "raid1") if which == "btrfs" else luns(2)
    r = rel(p)
    for shown in (reliability_table(r), reliability_text(r)):
        console = Console(width=80, record=True, color_system=None)
        console.print(shown)
        text = console.export_text()
        assert "…" not in text
        assert survives_lines(r)[0] in " ".join(text.split())
        assert loss_lines(r.loss, r.afr_nominal)[0].split(":")[1].split(" for")[0].strip() in text
        for row in reliability_rows(r):
            assert row.rebuild in text and row.binding in text


def test_btrfs_on_md_has_the_arrays_odds():
    md = Plan(name="m", disks=[DiskSet(count=6, size=4 * 10**12)], groups=[MdGroup(level=6, members=6)])
    on_md = md.model_copy(update={"filesystem": Filesystem(type="btrfs")})
    a, b = rel(md), rel(on_md)
    assert b.loss == a.loss and b.groups[0].kind == "RAID6 6" and not survives_lines(b)


@pytest.mark.parametrize("which", ["btrfs", "luns"])
def test_a_failure_rehearsal_of_a_plan_without_md_is_refused_in_one_line(which):
    from planners.errors import PlanError
    from planners.reliability.failure import failure_plan

    p = btrfs(4, "raid1", "raid1") if which == "btrfs" else luns(2)
    with pytest.raises(PlanError, match="no md array"):
        failure_plan(p, 1)


def test_a_raid0_lun_has_no_rebuild_and_says_it_loses_data_with_any_disk():
    r = rel(luns(1, level=0, disks=24))
    (row,) = reliability_rows(r)
    assert (row.rebuild, row.ure) == ("none", None)
    assert row.binding == "no redundancy" and not row.rate
    assert standing(r.groups[0]).rebuild_binding == "no rebuild (RAID0)"
    assert survives_lines(r) == ["each RAID0 LUN loses its data with any one of its 24 disks: it has no rebuild"]
    assert not any("rebuilds in" in a for a in r.assumptions)
    # The figures behind the words stay: the controller's stated time is still the model's repair window.
    assert standing(r.groups[0]).rebuild_hours == 24.0


def test_an_md_raid0_shows_no_rebuild_either():
    p = Plan(name="r0", disks=[DiskSet(count=4, size=4 * 10**12)], groups=[MdGroup(level=0, members=4)])
    (row,) = reliability_rows(rel(p))
    assert (row.rebuild, row.binding, row.ure) == ("none", "no redundancy", None)


def test_a_range_of_odds_is_written_in_one_notation():
    from app.shared.figures import odds_pair, share_text, ure_text

    assert odds_pair((1 / 2100, 0.0078)) == "1 in 2,100 to 1 in 130"  # was "1 in 2,100 to 0.78%"
    assert odds_pair((0.002, 0.0078)) == "0.20% to 0.78%"
    assert odds_pair((1e-5, 1e-4)) == "1 in 100,000 to 1 in 10,000"
    assert odds_pair((0.0, 0.0078)) == "0 to 0.78%"
    assert odds_pair((1 / 1400, 0.0029), share_text) == "1 in 1,400 to 1 in 340"
    assert (ure_text(1 / 8500), ure_text(0.123), ure_text(0.0)) == ("1 in 8,500", "12.3%", "0")


def test_a_small_chance_of_a_ure_is_never_printed_as_zero():
    from rich.console import Console

    from app.cli.predict import reliability_table

    hw = Hardware(disk=DiskSpec(disk_class="ssd-sata"))  # type: ignore[arg-type]
    p = Plan(name="m", disks=[DiskSet(count=2, size=10**12)], groups=[MdGroup(level=1, members=2)], hardware=hw)
    r = rel(p)
    (row,) = reliability_rows(r)
    assert row.ure is not None and 0 < row.ure < 5e-4
    console = Console(width=100, record=True, color_system=None)
    console.print(reliability_table(r))
    text = console.export_text()
    assert "0.0%" not in text and "1 in " in text.splitlines()[4]
