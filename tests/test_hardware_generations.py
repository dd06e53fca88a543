"""CPU and controller presets by generation (planners.hardware.generations): each resolves to its
part's figures, and a plan that names one predicts with them, not with today's."""

from __future__ import annotations

import json
from itertools import pairwise
from typing import get_args

import pytest

from app.cli.main import main
from planners.hardware.disks import DiskSpec
from planners.hardware.generations import CONTROLLER_MODELS, CPU_PARTS, CpuGeneration
from planners.hardware.machine import CPU_CLASSES, Controller, Cpu, Hardware, resolve_controller, resolve_cpu
from planners.models import DiskSet, Filesystem, MdGroup, Plan
from planners.perf.predict import predict
from planners.perf.workloads import Workload

TB = 10**12


def test_every_generation_resolves_to_its_part():
    assert set(get_args(CpuGeneration)) == set(CPU_PARTS)
    # Westmere-EP: 6 cores, three channels of DDR3-1333 (32 GB/s peak, 70 % sustained), 5520's PCIe 2.0.
    w = resolve_cpu(Cpu(cpu_class="westmere-2010"))
    assert (w.cores, w.pcie_gen, w.pcie_lanes, w.memory_mb_s) == (6, 2, 18, round(0.7 * 3 * 1333 * 8))
    # Its core: 0.58 of the server class's, so each request costs 1/0.58 as much and md's thread
    # moves 0.58 as much; raid6 and xor on SSE2, half the server's per-clock width.
    server = CPU_CLASSES["server"]
    assert w.libaio_us == pytest.approx(server.libaio_us / 0.58)
    assert w.md_thread_mb_s == pytest.approx(server.md_thread_mb_s * 0.58)
    assert w.raid6_gen_mb_s == pytest.approx(server.raid6_gen_mb_s * 0.58 / 2)
    # Stated figures still win over the preset's.
    assert resolve_cpu(Cpu(cpu_class="westmere-2010", cores=12)).cores == 12


@pytest.mark.parametrize(
    "line",
    [
        ("opteron-2006", "westmere-2010", "ivybridge-2013", "skylake-2017", "icelake-2021"),
        ("epyc-7001", "epyc-7002", "epyc-7003", "epyc-9004"),
    ],
)
def test_each_generation_moves_more_memory_at_less_cpu_a_request(line):
    cpus = [CPU_CLASSES[n] for n in line]
    assert all(a.memory_mb_s < b.memory_mb_s for a, b in pairwise(cpus))
    assert all(a.libaio_us >= b.libaio_us for a, b in pairwise(cpus))
    assert all(a.pcie_gen <= b.pcie_gen for a, b in pairwise(cpus))


def test_controller_models_resolve_with_their_round_trip_and_cache():
    for name, (_, rt, cache, queue) in CONTROLLER_MODELS.items():
        c = resolve_controller(Controller(kind=name))  # type: ignore[arg-type]
        assert (c.round_trip_us, c.cache_bytes, c.drain_queue) == (rt, cache, queue)
    assert resolve_controller(Controller(kind="perc5", round_trip_us=100)).round_trip_us == 100


def _plan(hardware: Hardware, level: int = 6, n: int = 8) -> Plan:
    return Plan(
        name="g",
        disks=[DiskSet(count=n, size=4 * TB)],
        groups=[MdGroup(name="md0", level=level, members=n, bitmap="none")],
        filesystem=Filesystem(type="xfs"),
        hardware=hardware,
    )


def test_a_plan_naming_a_2006_opteron_predicts_with_its_figures():
    # Eight NVMe drives in RAID6, one writer of full stripes: md's thread and raid6 gen() bind, at
    # the Opteron's figures (518 MB/s a thread, SSE2 gen() at 2,220 MB/s), not the server's.
    nvme = DiskSpec(disk_class="nvme")
    job = [Workload(name="w", rw="write", bs=6 << 20, iodepth=4)]
    (old,) = predict(_plan(Hardware(disk=nvme, cpu=Cpu(cpu_class="opteron-2006"))), workloads=job)
    (new,) = predict(_plan(Hardware(disk=nvme)), workloads=job)
    opteron = CPU_CLASSES["opteron-2006"]
    terms = {t.name: t for t in old.terms}
    assert terms["md thread"].mb_s == pytest.approx(opteron.md_thread_mb_s)
    assert f"raid6 gen() at {opteron.raid6_gen_mb_s:.0f} MB/s" in terms["parity CPU"].note
    assert old.binding == "md thread" and old.mb_s < new.mb_s / 2


def test_a_plan_naming_a_2007_raid_adapter_pays_its_round_trip():
    job = [Workload(name="r", rw="randread", bs=4096, iodepth=1)]
    hw = Hardware(disk=DiskSpec(disk_class="ssd-sata"), controller=Controller(kind="perc5"))
    (old,) = predict(_plan(hw, level=10, n=4), workloads=job)
    hw = Hardware(disk=DiskSpec(disk_class="ssd-sata"), controller=Controller(kind="broadcom-9560"))
    (new,) = predict(_plan(hw, level=10, n=4), workloads=job)
    assert "0.25 ms controller round trip" in old.terms[0].note
    assert old.iops < new.iops


def test_the_cli_takes_a_generation_by_name(capsys):
    code = main(["predict", "--cpu-class", "xeon-5300-2007", "--json"])
    out = capsys.readouterr().out
    assert code == 0
    doc = json.loads(out)
    assert doc["cpu"]["raid6_gen"]["detail"] == "xeon-5300-2007"
    assert doc["cpu"]["raid6_gen"]["mb_s"] == pytest.approx(CPU_CLASSES["xeon-5300-2007"].raid6_gen_mb_s)
