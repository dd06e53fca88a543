"""Properties and table cases of the bottleneck model."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planners.hardware.disks import DiskPerf, DiskSpec
from planners.hardware.machine import Cpu, Hardware, Wiring
from planners.models import DiskSet, Lvm, MdGroup, Plan, Tuning
from planners.perf.predict import figure_key, predict, prediction_for
from planners.perf.workloads import PRESETS, VALIDATION_NAMES, Workload, for_plan, preset
from planners.units import KiB, MiB

TB2 = 2_000_398_934_016
ALL = list(PRESETS.values())


def plan_of(
    n: int,
    level: int = 0,
    *,
    size: int = TB2,
    chunk: int = 512 * KiB,
    hw: Hardware | None = None,
    groups: int = 1,
    lvm: str | None = None,
    **tuning: int,
) -> Plan:
    return Plan(
        name="t",
        disks=[DiskSet(count=n * groups, size=size)],
        groups=[MdGroup(name=f"md{i}", level=level, members=n, chunk=chunk, bitmap="none") for i in range(groups)],
        lvm=Lvm(enabled=lvm is not None, mode=lvm or "linear"),
        tuning=Tuning(**tuning),
        hardware=hw,
    )


def test_validation_suite_names_and_fio_terms():
    assert VALIDATION_NAMES == ("seq-read", "seq-write", "rand-read-4k", "rand-write-4k")
    job = preset("rand-write-4k").fio_job()
    for line in ("rw=randwrite", "bs=4096", "direct=1", "ioengine=libaio", "numjobs=1"):
        assert line in job
    assert preset("dd-write").in_flight == 1  # a sync engine ignores iodepth
    # Two full stripes in flight on each striped array: full-stripe requests up to 16 MiB...
    w = for_plan(preset("seq-write"), 13 * 512 * KiB, stripes=3)
    assert (w.bs, w.iodepth, w.numjobs) == (13 * 512 * KiB, 6, 1)
    # ...1 MiB requests past that: 43 x 512K -> 43 of them per stripe.
    assert for_plan(preset("seq-write"), 43 * 512 * KiB).iodepth == 43
    # Four random requests per member disk, in jobs of at most 64.
    w = for_plan(preset("rand-read-4k"), 43 * 512 * KiB, disks=45)
    assert (w.bs, w.numjobs, w.iodepth) == (4096, 3, 60)
    # A workload described as it ran is left as it is.
    ran = preset("seq-read").model_copy(update={"description": "", "bs": 128 * KiB})
    assert for_plan(ran, 43 * 512 * KiB) is ran
    with pytest.raises(Exception, match="unknown workload"):
        preset("nope")


def test_every_prediction_is_its_smallest_term_and_names_it():
    for p in predict(plan_of(12, 6), workloads=ALL):
        assert p.terms[0].name == p.binding and p.terms[0].mb_s == p.mb_s
        # Sorted, terms equal to six significant figures counting as equals (the job's blamed one first).
        figures = [figure_key(t.mb_s) for t in p.terms]
        assert figures == sorted(figures)
        assert p.runner_up == p.terms[1].name and p.headroom >= 1.0
        assert p.iops == pytest.approx(p.mb_s * 1e6 / p.block_bytes)


def test_naive_multiplication_is_not_the_answer_for_a_wide_raid6():
    (p,) = predict(plan_of(45, 6), workloads=[PRESETS["seq-write"]])
    disks = next(t for t in p.terms if t.name == "disks")
    assert p.binding in ("md thread", "stripe cache") and p.mb_s < disks.mb_s


def test_small_random_writes_pay_the_parity_penalty_and_md_picks_the_cheaper_method():
    # One request in flight: no disk has a queue of its own to sort (which a deeper queue of RMW
    # I/Os would shorten), so the disks' term is the I/O count alone.
    w = [PRESETS["rand-write-4k"].model_copy(update={"name": "w1", "numjobs": 1, "iodepth": 1})]
    r0, r5, r6 = (predict(plan_of(8, lvl), workloads=w)[0] for lvl in (0, 5, 6))
    d0, d5, d6 = (next(t for t in p.terms if t.name == "disks").iops for p in (r0, r5, r6))
    assert d5 == pytest.approx(d0 / 4) and d6 == pytest.approx(d0 / 6)  # RMW: 4 and 6 I/Os per write
    # Three-disk RAID5: reconstruct-write reads one chunk instead of two, so 3 I/Os, not 4.
    r3 = predict(plan_of(3, 0), workloads=w)[0]
    r53 = predict(plan_of(3, 5), workloads=w)[0]
    note = next(t for t in r53.terms if t.name == "disks")
    assert "reconstruct-write" in note.note
    assert note.iops == pytest.approx(next(t for t in r3.terms if t.name == "disks").iops / 3)


def test_partial_stripes_when_too_little_is_in_flight():
    shallow = Workload(name="shallow", rw="write", bs=64 * KiB, iodepth=1)
    (p,) = predict(plan_of(10, 6), workloads=[shallow])
    assert "partial stripes" in next(t for t in p.terms if t.name == "disks").note


def test_small_readahead_binds_a_buffered_reader_on_a_wide_array():
    # dd's 1 MiB reads widen a 128 KiB window up to RAID0's largest request, one 512 KiB chunk:
    # two such windows in flight.
    (p,) = predict(plan_of(24, 0, readahead=128 * KiB), workloads=[PRESETS["dd-read"]])
    assert p.binding == "readahead" and "keeps 2 of 24 disks busy" in p.terms[0].note
    (q,) = predict(plan_of(24, 0), workloads=[PRESETS["dd-read"]])  # podplan's recommended readahead
    assert q.mb_s > 5 * p.mb_s


def test_shared_links_and_hbas_bind_when_narrow():
    hw = Hardware(wiring=Wiring(link="sata2", disks_per_link=5, hbas=1, hba_mb_s=133))
    (p,) = predict(plan_of(15, 0, hw=hw), workloads=[PRESETS["seq-read"]])
    assert p.binding == "HBA" and p.mb_s == pytest.approx(133)
    hw = Hardware(wiring=Wiring(link="sata1", disks_per_link=5))
    (p,) = predict(plan_of(15, 0, hw=hw), workloads=[PRESETS["seq-read"]])
    assert p.binding == "link" and p.mb_s == pytest.approx(135 * 3)


def test_parity_writes_put_more_on_each_link():
    hw = Hardware(wiring=Wiring(link="sata1", disks_per_link=10), cpu=Cpu(md_thread_mb_s=1e5))
    (p,) = predict(plan_of(10, 6, hw=hw, stripe_cache_size=32768), workloads=[PRESETS["seq-write"]])
    assert p.binding == "link" and p.mb_s == pytest.approx(135 * 8 / 10)


def test_declared_write_cache_caps_writes_only():
    hw = Hardware(write_cache_mb_s=300)
    r, w = predict(plan_of(12, 0, hw=hw), workloads=[PRESETS["seq-read"], PRESETS["seq-write"]])
    assert w.binding == "write cache" and w.mb_s == 300 and r.binding != "write cache"


def test_measured_disks_replace_the_class_figures():
    m = DiskPerf(seq_read_mb_s=50, seq_write_mb_s=40, rand_read_iops=200, rand_write_iops=150)
    preds = predict(plan_of(4, 0), disk_override=m)
    seq_r, seq_w, rr, rw = (prediction_for(preds, n) for n in VALIDATION_NAMES)
    assert seq_r.mb_s == pytest.approx(200) and seq_w.mb_s == pytest.approx(160)
    assert next(t for t in rr.terms if t.name == "disks").iops == pytest.approx(800)
    assert next(t for t in rw.terms if t.name == "disks").iops == pytest.approx(600)


def test_degraded_and_rebuild_modes():
    w = [PRESETS["seq-read"], PRESETS["rand-read-4k"]]
    (gone, _) = predict(plan_of(6, 0), workloads=w, mode="degraded")
    assert gone.binding == "array failed" and gone.mb_s == 0
    normal = predict(plan_of(8, 5), workloads=w)
    degraded = predict(plan_of(8, 5), workloads=w, mode="degraded")
    rebuild = predict(plan_of(8, 5), workloads=w, mode="rebuild")
    for n, d, r in zip(normal, degraded, rebuild, strict=True):
        assert r.mb_s <= d.mb_s <= n.mb_s
    assert degraded[0].binding in ("md thread", "parity CPU", "disks")  # reads now pass through md's thread


def test_ssd_plans_use_flash_figures():
    plan = Plan(
        name="s",
        disks=[DiskSet(count=4, size=960_197_124_096, rotational=False)],
        groups=[MdGroup(level=10, members=4)],
    )
    rr = prediction_for(predict(plan), "rand-read-4k")
    assert rr.iops > 50_000


@settings(max_examples=40, deadline=None)
@given(n=st.integers(2, 40), name=st.sampled_from(sorted(PRESETS)))
def test_more_disks_never_predict_less_on_raid0(n, name):
    w = [PRESETS[name]]
    (a,) = predict(plan_of(n, 0, chunk=256 * KiB), workloads=w)
    (b,) = predict(plan_of(n + 1, 0, chunk=256 * KiB), workloads=w)
    assert b.mb_s >= a.mb_s * (1 - 1e-9), (a, b)


@settings(max_examples=40, deadline=None)
@given(
    rate=st.floats(20, 3000),
    cut=st.floats(0.1, 1.0),
    per_link=st.integers(1, 8),
    level=st.sampled_from([0, 5, 6, 10]),
    name=st.sampled_from(sorted(PRESETS)),
)
def test_a_tighter_link_never_predicts_more(rate, cut, per_link, level, name):
    def run(link: float) -> float:
        hw = Hardware(wiring=Wiring(link="sata2", disks_per_link=per_link, link_mb_s=link))
        return predict(plan_of(8, level, hw=hw), workloads=[PRESETS[name]])[0].mb_s

    assert run(rate * cut) <= run(rate) * (1 + 1e-9)


@settings(max_examples=30, deadline=None)
@given(
    small=st.integers(100, 4000),
    grow=st.integers(1, 4000),
    level=st.sampled_from([1, 5, 6, 10]),
    cls=st.sampled_from(["hdd5400", "hdd7200", "ssd-sata", "nvme"]),
)
def test_rebuild_time_grows_with_member_size(small, grow, level, cls):
    from planners.compute import compute
    from planners.reliability.loss import reliability

    hw = Hardware(disk=DiskSpec(disk_class=cls))
    chunk = None if level == 1 else 512 * KiB
    plans = [plan_of(4, level, size=gb * 1000 * MiB, chunk=chunk, hw=hw) for gb in (small, small + grow)]
    a, b = (reliability(p, compute(p)).groups[0].rebuild_hours for p in plans)
    assert b > a


def test_the_hba_note_names_the_stated_ceiling_not_a_pcie_slot():
    from planners.compute import compute
    from planners.example import example_pod
    from planners.hardware.machine import Hardware, Wiring
    from planners.perf.predict import predict

    plan = example_pod()
    slow = plan.model_copy(update={"hardware": Hardware(wiring=Wiring(hbas=1, hba_mb_s=133))})
    [p] = predict(slow, compute(slow), [PRESETS["seq-read"]])
    [hba] = [t for t in p.terms if t.name == "HBA"]
    assert "133 MB/s (as the plan states)" in hba.note and "PCIe" not in hba.note


def test_a_large_read_widens_the_window_only_on_kernels_that_do_it():
    from planners.compute import compute
    from planners.perf.context import build_ctx
    from planners.perf.terms import readahead

    p = plan_of(8, 0, readahead=128 * KiB)
    ctx = build_ctx(p, compute(p))
    big = Workload(name="r", rw="read", bs=4 * MiB, direct=False, ioengine="psync")
    assert readahead(ctx, big) == 512 * KiB  # RAID0 takes one 512 KiB chunk per request
    old = type(ctx)(**{**ctx.__dict__, "kernel": "4.9"})
    assert readahead(old, big) == 128 * KiB
    assert readahead(old, big.model_copy(update={"fadvise_sequential": True})) == 256 * KiB
