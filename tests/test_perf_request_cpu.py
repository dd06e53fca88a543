"""CPU per request: engines, layers, the cores a job's threads use, md's stripe threads."""

from __future__ import annotations

import pytest

from app.cli.main import main
from planners.hardware.disks import DiskSpec
from planners.hardware.machine import Cpu, Hardware, MdKnobs, Wiring
from planners.hardware.platform import Platform
from planners.models import DiskSet, Filesystem, Lvm, MdGroup, Plan
from planners.perf.predict import predict
from planners.perf.request_cpu import NAME
from planners.perf.spread import REQUEST_FIELDS
from planners.perf.workloads import Workload


def nvme(level: int, n: int, cpu: Cpu | None = None, threads: int = 0, lvm: bool = False) -> Plan:
    return Plan(
        name="t",
        disks=[DiskSet(count=n, size=3_840_000_000_000)],
        groups=[MdGroup(name="md0", level=level, members=n, chunk=None if level == 1 else 512 * 1024, bitmap="none")],
        filesystem=Filesystem(type="xfs"),
        lvm=Lvm(enabled=lvm),
        hardware=Hardware(
            disk=DiskSpec(disk_class="nvme"),
            wiring=Wiring(link="direct"),
            cpu=cpu or Cpu(cores=4),
            md=MdKnobs(group_thread_cnt=threads),
        ),
    )


def one(p: Plan, w: Workload):
    (r,) = predict(p, workloads=[w])
    return r


def rand(rw: str = "randread", engine: str = "io_uring", jobs: int = 4, depth: int = 128) -> Workload:
    return Workload(name="w", rw=rw, bs=4096, ioengine=engine, numjobs=jobs, iodepth=depth)  # type: ignore[arg-type]


def cpu_term(r):
    return next(t for t in r.terms if t.name == NAME)


def test_nvme_at_depth_is_bound_by_the_cpu_and_says_per_core_figure_and_cores():
    r = one(nvme(0, 4), rand())
    assert r.binding == NAME
    note = cpu_term(r).note
    assert "requests/s per core x 4 core(s)" in note and "io_uring at depth 128" in note
    # engine 1.2 + fio 0.1 + a wait per 128 reaped (3.3/128) + md's remap 0.5 + one device request 1.2 us,
    # and the IOMMU's map and unmap of it, lazy by default 0.32 (planners.hardware.platform)
    us = 1.2 + 0.1 + 3.3 / 128 + 0.5 + 1.2 + 0.32
    assert r.iops == pytest.approx(4 / (us * 1e-6))


def test_cores_bound_the_jobs_and_more_jobs_than_cores_gain_nothing():
    few = one(nvme(0, 4, Cpu(cores=2)), rand(jobs=2))
    many = one(nvme(0, 4, Cpu(cores=2)), rand(jobs=8))
    wide = one(nvme(0, 4, Cpu(cores=8)), rand(jobs=8))
    assert cpu_term(many).iops == pytest.approx(cpu_term(few).iops)
    assert cpu_term(wide).iops == pytest.approx(4 * cpu_term(few).iops)


def test_engines_differ_psync_pays_a_wait_per_request():
    uring = cpu_term(one(nvme(0, 4), rand()))
    aio = cpu_term(one(nvme(0, 4), rand(engine="libaio")))
    sync = cpu_term(one(nvme(0, 4), rand(engine="psync", depth=1)))
    assert sync.iops < aio.iops < uring.iops
    assert "psync at depth 1" in sync.note


def test_each_layer_and_each_member_request_costs_cpu():
    bare = cpu_term(one(nvme(0, 4), rand())).iops
    lvm = cpu_term(one(nvme(0, 4, lvm=True), rand())).iops
    mirrored = cpu_term(one(nvme(1, 2), rand(rw="randwrite"))).iops  # a RAID1 write is one request per copy
    assert lvm < bare
    assert mirrored < cpu_term(one(nvme(1, 2), rand())).iops


def test_raid5_small_writes_run_on_md_stripe_threads_and_group_thread_cnt_adds_them():
    one_thread = one(nvme(5, 4, Cpu(cores=16)), rand(rw="randwrite", engine="libaio", jobs=8))
    assert one_thread.binding == NAME and "1 thread(s)" in one_thread.terms[0].note
    # 4 member I/Os (read-modify-write), each md's 2.2 us plus the block layer's 1.2 us
    assert one_thread.iops == pytest.approx(1 / (4 * 3.4e-6))
    four = one(nvme(5, 4, Cpu(cores=16), threads=3), rand(rw="randwrite", engine="libaio", jobs=8))
    assert cpu_term(four).iops == pytest.approx(4 * cpu_term(one_thread).iops)


def test_buffered_io_is_the_page_cache_term_not_this_one():
    w = Workload(name="w", rw="randread", bs=4096, direct=False, ioengine="psync", numjobs=4)
    assert all(t.name != NAME for t in one(nvme(0, 4), w).terms)


def with_iommu(plan: Plan, mode: str | None) -> Plan:
    return plan.model_copy(update={"hardware": plan.hardware.model_copy(update={"platform": Platform(iommu=mode)})})


def test_range_comes_from_the_per_request_figures_until_the_plan_states_them():
    r = one(with_iommu(nvme(0, 4), "lazy"), rand())  # the IOMMU's mode stated: its spread is out of the way
    assert r.mb_s_low == pytest.approx(r.mb_s * 0.5) and r.mb_s_high > r.mb_s
    assert "CPU per request" in r.assumption
    stated = Cpu(cores=4, **{f: getattr(Cpu(), f) or 1.0 for f in REQUEST_FIELDS})
    s = one(with_iommu(nvme(0, 4, stated), "lazy"), rand())
    assert "CPU per request" not in s.assumption


def test_the_2010_class_pays_more_per_request():
    new = cpu_term(one(nvme(0, 4, Cpu(cores=2)), rand(jobs=2))).iops
    old = cpu_term(one(nvme(0, 4, Cpu(cpu_class="desktop-2010", cores=2)), rand(jobs=2))).iops
    assert old == pytest.approx(new * 3 / 7, rel=0.03)  # every kernel figure x7/3; fio's own 0.1 us as measured


PLAN = """
name = "nvme4"
[[disks]]
count = 4
size = "3.84TB"
[[groups]]
level = 0
members = 4
[hardware.disk]
disk_class = "nvme"
[hardware.wiring]
link = "direct"
[hardware.cpu]
cores = 2
"""

JOB = """
[r]
filename=/dev/md0
rw=randread
bs=4k
direct=1
ioengine=io_uring
iodepth=128
numjobs=2
"""


def test_cli_names_the_term_with_its_per_core_figure_and_cores(tmp_path, capsys):
    (tmp_path / "p.toml").write_text(PLAN)
    (tmp_path / "j.fio").write_text(JOB)
    code = main(["predict", "--no-host-cpu", str(tmp_path / "p.toml"), "--job", str(tmp_path / "j.fio")])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "CPU per request" in out
    flat = " ".join(out.split())
    assert "requests/s per core x 2 core(s) (2 job(s), 2 cores from stated)" in flat


def hdd(chunk: int = 512 * 1024) -> Plan:
    return Plan(
        name="t",
        disks=[DiskSet(count=4, size=4_000_000_000_000)],
        groups=[MdGroup(name="md0", level=0, members=4, chunk=chunk, bitmap="none")],
        filesystem=Filesystem(type="xfs"),
        hardware=Hardware(disk=DiskSpec(disk_class="hdd7200"), cpu=Cpu(cores=4)),
    )


def test_a_disks_scheduler_merges_adjacent_small_requests_past_its_queue_depth():
    from planners.perf.context import build_ctx
    from planners.perf.predict import geometry_for_speed
    from planners.perf.request_cpu import merged_bytes

    seq = Workload(name="s", rw="read", bs=4096, iodepth=256)
    p = hdd()
    group = build_ctx(p, geometry_for_speed(p)).groups[0]
    # 256 x 4 KiB in flight span two 512 KiB chunks: 128 on each member, 32 in the disk (NCQ), the
    # rest merged while they wait: 4 pieces a request.
    assert merged_bytes(group, seq, 4096) == 4 * 4096
    assert merged_bytes(group, seq.model_copy(update={"iodepth": 32}), 4096) == 4096  # all fit in the disk
    huge = seq.model_copy(update={"iodepth": 16384})  # 4096 on each of the four members: 128 pieces
    assert merged_bytes(group, huge, 4096) == 512 * 1024  # md's chunk
    small_chunk = build_ctx(hdd(64 * 1024), geometry_for_speed(hdd(64 * 1024))).groups[0]
    assert merged_bytes(small_chunk, huge, 4096) == 64 * 1024
    flash = build_ctx(nvme(0, 4), geometry_for_speed(nvme(0, 4))).groups[0]
    assert merged_bytes(flash, seq, 4096) == 4096  # "none": fio submits one at a time
    # Fewer device requests: the deep stream pays the block layer once per 4 of its requests.
    deep, shallow = (cpu_term(one(p, seq.model_copy(update={"iodepth": d}))) for d in (256, 1))
    assert "0.25 device request(s)" in deep.note and "1 device request(s)" in shallow.note


def test_predict_json_gives_each_range_and_the_terms_it_comes_from(tmp_path, capsys):
    import json

    (tmp_path / "p.toml").write_text(PLAN)
    (tmp_path / "j.fio").write_text(JOB)
    code = main(["predict", "--no-host-cpu", str(tmp_path / "p.toml"), "--job", str(tmp_path / "j.fio"), "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    (p,) = json.loads(out)["predictions"]
    assert p["mb_s_low"] < p["mb_s"] < p["mb_s_high"]
    assert p["range_terms"][0] == NAME and "CPU per request" in p["assumption"]


def test_the_perf_tab_names_the_term_with_its_per_core_figure_and_cores():
    from app.tui.widgets.perf import roofline

    r = one(nvme(0, 4), rand())
    text = " ".join(roofline(r, 78).plain.split())
    assert "limited by CPU per request" in text
    assert "requests/s per core x 4 core(s)" in text
