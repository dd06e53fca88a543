"""Hardware RAID LUNs as disks: a controller's array of N disks is one device to md and LVM."""

from __future__ import annotations

import pytest

from planners.compute import compute
from planners.errors import PlanError
from planners.hardware.disks import DiskSpec, Lun, resolve_disk
from planners.hardware.machine import Hardware
from planners.models import DiskSet, Filesystem, MdGroup, Plan
from planners.perf.context import rand_iops
from planners.perf.predict import predict
from planners.perf.workloads import preset
from planners.reliability.loss import reliability
from planners.units import KiB

GB = 10**9


def lun_plan(level: int = 5, disks: int = 7, luns: int = 8) -> Plan:
    spec = DiskSpec(disk_class="hdd10k", lun=Lun(disks=disks, level=level, strip=128 * KiB))
    hw = Hardware.model_validate({"models": {"lun": spec.model_dump()}, "wiring": {"link": "fc2", "disks_per_link": 4}})
    return Plan(
        name="luns",
        disks=[DiskSet(count=luns, size=(disks - 1) * 300 * GB, model="lun")],
        groups=[MdGroup(level=0, members=luns, chunk=128 * KiB)],
        filesystem=Filesystem(type="xfs"),
        hardware=hw,
    )


@pytest.mark.parametrize("level, data, writes", [(0, 6, 1), (5, 5, 4), (6, 4, 6), (10, 3, 2), (1, 3, 2)])
def test_a_lun_adds_up_its_disks(level, data, writes):
    one = resolve_disk(DiskSpec(disk_class="hdd10k"))
    lun = resolve_disk(DiskSpec(disk_class="hdd10k", lun=Lun(disks=6, level=level)))
    assert lun.seq_outer_mb_s == pytest.approx(one.seq_outer_mb_s * data)
    assert lun.spindles == 6 and lun.write_ios == writes and lun.data_disks == data
    # One request still pays one disk's seek and rotation; the disks serve six at once.
    assert rand_iops(lun, 1.0, 4 * KiB, False) == pytest.approx(6 * rand_iops(one, 1.0, 4 * KiB, False))
    assert rand_iops(lun, 1.0, 4 * KiB, True) == pytest.approx(6 / writes * rand_iops(one, 1.0, 4 * KiB, True))


def test_luns_behind_fc_ports_bind_on_the_ports_and_serve_random_io_with_all_their_disks():
    p = lun_plan()
    seq, rand = predict(p, workloads=[preset("seq-read"), preset("rand-read-4k")])
    assert seq.binding == "link" and seq.mb_s == pytest.approx(400.0)  # 8 LUNs on 2 x 2 Gb FC ports
    plain = p.model_copy(
        update={
            "hardware": Hardware.model_validate(
                {"disk": {"disk_class": "hdd10k"}, "wiring": {"link": "fc2", "disks_per_link": 4}}
            )
        }
    )
    (rand_plain,) = predict(plain, workloads=[preset("rand-read-4k")])
    assert rand.iops > 3 * rand_plain.iops


def test_a_redundant_lun_fails_far_less_often_than_a_disk():
    from planners.perf.context import build_ctx
    from planners.reliability.stacks import member_rate

    lam = resolve_disk(DiskSpec(disk_class="hdd10k")).afr / 8766
    for level, check in ((5, lambda r: r < lam / 100), (0, lambda r: r == pytest.approx(7 * lam))):
        p = lun_plan(level=level)
        assert check(member_rate(build_ctx(p, compute(p)).groups[0], lam))
    redundant, striped = lun_plan(), lun_plan(level=0)
    assert (
        reliability(redundant, compute(redundant)).loss.per_year_nominal
        < reliability(striped, compute(striped)).loss.per_year_nominal
    )


@pytest.mark.parametrize("disks, level", [(2, 5), (3, 6), (3, 10), (5, 1)])
def test_a_lun_that_cannot_be_built_is_refused(disks, level):
    with pytest.raises((PlanError, ValueError), match="cannot be built"):
        Lun(disks=disks, level=level)


def test_a_plan_with_luns_survives_a_save_and_load(tmp_path):
    from app.shared.planfile import load_plan, save_plan

    path = tmp_path / "luns.toml"
    save_plan(lun_plan(), path)
    assert load_plan(path).hardware.models["lun"].lun == Lun(disks=7, level=5, strip=128 * KiB)


def test_a_request_smaller_than_the_luns_stripe_moves_on_the_disks_it_covers():
    """Two 256 KiB readahead windows on 128 KiB strips keep 2 x 2 of a LUN's data disks busy, not all."""
    p = lun_plan(level=0, disks=8).model_copy(update={"groups": [MdGroup(level=0, members=8, chunk=1 << 20)]})
    read = preset("dd-read").model_copy(update={"bs": 128 * KiB, "readahead": 128 * KiB, "fadvise_sequential": True})
    (small,) = predict(p, workloads=[read])
    ra = next(t for t in small.terms if t.name == "readahead")
    lun = resolve_disk(DiskSpec(disk_class="hdd10k", lun=Lun(disks=8, level=0, strip=128 * KiB)))
    per_disk = lun.seq_outer_mb_s / lun.data_disks
    # Two windows of 256 KiB in flight, each on 2 disks: at most 4 disks' worth (less the reader's copy).
    assert ra.mb_s <= 4 * per_disk * 1.001
    (wide,) = predict(p, workloads=[read.model_copy(update={"readahead": 1 << 20})])
    assert next(t for t in wide.terms if t.name == "readahead").mb_s > 2.5 * ra.mb_s
