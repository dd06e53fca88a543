"""A RAID controller's write-back cache in steady state, its read/write split, and its command rate
(planners/perf/controller.py, planners/hardware/controllers.py).

No lab witness: the lab VM's disks are virtio devices with no RAID controller in front of them.
"""

from __future__ import annotations

import pytest

from planners.hardware.disks import DiskSpec, Lun
from planners.hardware.machine import Controller, Hardware, Wiring
from planners.models import DiskSet, Filesystem, MdGroup, Plan
from planners.perf.predict import WorkloadPrediction, predict
from planners.perf.workloads import Workload
from planners.units import KiB

GB = 10**9


def lun_plan(
    controller: Controller, level: int = 6, disks: int = 8, luns: int = 2, disk_class: str = "hdd7200"
) -> Plan:
    """md RAID0 over `luns` hardware RAID LUNs behind one controller."""
    spec = DiskSpec(disk_class=disk_class, lun=Lun(disks=disks, level=level, strip=256 * KiB))
    # The LUNs' own links are the controller's business: none in the host's wiring.
    hw = Hardware(models={"lun": spec}, controller=controller, wiring=Wiring(link="direct"))
    data = disks - (2 if level == 6 else 1 if level == 5 else 0)
    return Plan(
        name="luns",
        disks=[DiskSet(count=luns, size=data * 4000 * GB, model="lun", rotational=disk_class.startswith("hdd"))],
        groups=[MdGroup(level=0, members=luns, chunk=1 << 20, bitmap="none")],
        filesystem=Filesystem(type="xfs"),
        hardware=hw,
    )


def one(plan: Plan, w: Workload) -> WorkloadPrediction:
    (p,) = predict(plan, workloads=[w])
    return p


def seq_write(**kw: object) -> Workload:
    base: dict[str, object] = {"name": "w", "rw": "write", "bs": 1 << 20, "ioengine": "libaio", "iodepth": 32}
    return Workload.model_validate(base | kw)


def cache_term(p: WorkloadPrediction):  # type: ignore[no-untyped-def]
    return next(t for t in p.terms if t.name == "write cache")


def test_the_note_says_which_rate_the_figure_is_and_when_the_knee_comes():
    """Acceptance rate while the run ends before the knee, the run's average past it, the drain when
    the run has no end: knee = write cache / (in - drain), in seconds."""
    plan = lun_plan(Controller(kind="broadcom-9560"))
    steady = one(plan, seq_write())
    note = cache_term(steady).note
    assert "steady (no run length given), the drain rate" in note
    accepts = float(note.split("accepts ")[1].split(" MB/s")[0])
    drain = float(note.split("disks drain ")[1].split(" MB/s")[0])
    knee = float(note.split(" for ")[1].split(" s ")[0])
    assert knee == pytest.approx((4 << 30) / ((accepts - drain) * 1e6), rel=0.01)
    assert cache_term(steady).mb_s == pytest.approx(drain, rel=0.01)
    # A run that ends before the knee gets what the cache accepts: the host's side binds.
    short = one(plan, seq_write(runtime_s=knee / 2, time_based=True))
    assert short.binding != "write cache" and short.mb_s == pytest.approx(accepts, rel=0.01)
    long = one(plan, seq_write(runtime_s=knee * 1000, time_based=True))
    assert "past the knee" in cache_term(long).note
    assert drain < cache_term(long).mb_s < drain * 1.1
    # fio's ramp_time: a run whose ramp outlasts the knee counts the drain alone.
    ramped = one(plan, seq_write(runtime_s=knee / 2, time_based=True, ramp_s=knee * 2))
    assert "ramp_time outlasts the knee" in cache_term(ramped).note
    assert cache_term(ramped).mb_s == pytest.approx(drain, rel=1e-6)


def test_a_mix_meets_a_full_cache_the_drain_not_the_acceptance_rate():
    """fio lays a mix's file out just before it, and the reads share the disks with the drain: the
    mix's writes run at the drain from the first one, however big the cache."""
    mix = Workload(
        name="m", rw="randrw", bs=64 * KiB, ioengine="libaio", iodepth=32, runtime_s=30, time_based=True, target="file"
    )
    big = one(lun_plan(Controller(kind="raid", cache_bytes=8 << 30)), mix)
    tiny = one(lun_plan(Controller(kind="raid", cache_bytes=1 << 20)), mix)
    assert big.mb_s == pytest.approx(tiny.mb_s, rel=0.01)


def test_an_hpe_smart_array_keeps_a_quarter_of_its_cache_for_reads():
    """ssacli's shipped cache ratio: 25 % read / 75 % write on the P420's 1 GiB module (912 MiB
    available), 10 / 90 on the P440's 4 GiB; a stated ratio replaces it."""
    from planners.compute import compute
    from planners.perf.combined import workload_terms
    from planners.perf.context import build_ctx

    for kind, share in (("hpe-p420", 0.75), ("hpe-p440", 0.90)):
        plan = lun_plan(Controller(kind=kind))
        ctx = build_ctx(plan, compute(plan))
        assert ctx.write_cache_bytes == int(ctx.controller.cache_bytes * share)  # type: ignore[union-attr]
    stated = lun_plan(Controller(kind="hpe-p420", write_cache_percent=100))
    assert build_ctx(stated, compute(stated)).write_cache_bytes == 912 << 20
    # All of it read cache: nothing takes writes, the disks' own figure stands.
    none = lun_plan(Controller(kind="hpe-p420", write_cache_percent=0))
    terms = workload_terms(build_ctx(none, compute(none)), seq_write(runtime_s=10, time_based=True)).terms
    assert "write cache" not in terms


def test_a_generic_raid_adapters_split_widens_a_short_runs_range_until_stated():
    """A "raid" controller may be a MegaRAID (its whole cache) or a Smart Array (75 %): a run that ends
    before the knee moves with it; the plan's ratio narrows it. Past the knee it moves nothing."""
    short = seq_write(runtime_s=2, time_based=True)
    p = one(lun_plan(Controller(kind="raid", round_trip_us=150)), short)
    assert p.binding == "write cache"
    assert any(x.startswith("controller cache's write share: the raid preset's 100%") for x in p.range_from)
    assert p.mb_s_low < p.mb_s * 0.9
    q = one(lun_plan(Controller(kind="raid", round_trip_us=150, write_cache_percent=100)), short)
    assert not any("write share" in x for x in q.range_from)
    assert q.mb_s_low > p.mb_s_low
    steady = one(lun_plan(Controller(kind="raid", round_trip_us=150)), seq_write())
    assert not any("write share" in x for x in steady.range_from)


def test_a_run_far_past_the_knee_names_no_write_share():
    """Five minutes of writes average the drain: the cache's first seconds move the figure by a few
    hundredths of a percent, which the range would name as '-0%' and count as an input left out."""
    long = one(lun_plan(Controller(kind="raid", round_trip_us=150)), seq_write(runtime_s=300, time_based=True))
    assert long.binding == "write cache"
    assert not any("write share" in x for x in long.range_from)


def ssd_luns(controller: Controller) -> Plan:
    return lun_plan(controller, level=0, disks=4, luns=2, disk_class="ssd-sata")


def small_reads(rw: str = "read") -> Workload:
    return Workload(name="r", rw=rw, bs=4 * KiB, ioengine="libaio", numjobs=4, iodepth=32)


@pytest.mark.parametrize("rw", ["read", "randread"])
def test_small_requests_are_bound_by_the_controllers_commands_not_bytes(rw):
    """A SAS2208 MegaRAID processes at most 465,000 commands a second (LSI's FastPath figure): eight
    SATA SSDs behind it, 4 KiB at depth 128, get that many, whatever the SSDs or their bytes allow."""
    p = one(ssd_luns(Controller(kind="lsi-2208")), small_reads(rw))
    assert p.binding == "controller commands"
    assert p.iops == pytest.approx(465_000, rel=0.01)
    # The preset's figure is its vendor's best: the range goes down to the cache path's half.
    assert p.mb_s_low == pytest.approx(p.mb_s * 0.5, rel=0.01)
    assert any(x.startswith("controller command rate: the lsi-2208 preset") for x in p.range_from)
    # Stated, it keeps no preset's spread; a controller with no figure has no such term.
    q = one(ssd_luns(Controller(kind="lsi-2208", command_iops=200_000, round_trip_us=80)), small_reads(rw))
    assert q.iops == pytest.approx(200_000, rel=0.01)
    assert not any("command rate" in x for x in q.range_from)
    r = one(ssd_luns(Controller(kind="perc5")), small_reads(rw))
    assert all(t.name != "controller commands" for t in r.terms)
    # 1 MiB requests: 465,000 commands a second would be 487 GB/s; the disks bind long before.
    big = one(ssd_luns(Controller(kind="lsi-2208")), small_reads(rw).model_copy(update={"bs": 1 << 20}))
    assert big.binding != "controller commands"
