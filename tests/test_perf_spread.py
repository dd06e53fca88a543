"""Ranges from what the plan does not state (planners/perf/spread.py): each input left to a preset
widens the range by its spread, each one stated narrows it, and the figure names them."""

from __future__ import annotations

import json

import pytest

from app.cli.main import main
from planners.hardware.disks import DiskPerf, DiskSpec
from planners.hardware.machine import Controller, Cpu, Hardware, Wiring
from planners.models import DiskSet, MdGroup, Plan
from planners.perf.predict import WorkloadPrediction, predict
from planners.perf.spread import REQUEST_FIELDS
from planners.perf.workloads import Workload
from planners.units import KiB
from planners.versions import ToolVersions

TB = 1_000_204_886_016
SEQ = Workload(name="seq", rw="read", bs=1 << 20, iodepth=16)
RAND = Workload(name="rand", rw="randread", bs=4 * KiB, iodepth=32, numjobs=4)
# Every CPU figure a prediction may rest on, stated (the preset's own values: only the spread goes).
ALL_CPU = Cpu(
    cores=16,
    **dict.fromkeys(REQUEST_FIELDS, 1.0),
    md_thread_mb_s=1400,
    buffered_write_mb_s=1800,
    buffered_read_mb_s=3500,
    raid6_gen_mb_s=12000,
    xor_mb_s=20000,
)


def plan(hw: Hardware, level: int = 0, n: int = 8, tools: ToolVersions | None = None) -> Plan:
    extra = {"tools": tools} if tools else {}
    return Plan(
        name="spread",
        disks=[DiskSet(count=n, size=TB, rotational=bool(hw.disk.disk_class.startswith("hdd")))],
        groups=[MdGroup(name="md0", level=level, members=n, chunk=128 * KiB, bitmap="none")],
        hardware=hw,
        **extra,
    )


def one(p: Plan, w: Workload, **kw: object) -> WorkloadPrediction:
    (pred,) = predict(p, workloads=[w], **kw)  # type: ignore[arg-type]
    return pred


def width(p: WorkloadPrediction) -> float:
    return (p.mb_s_high - p.mb_s_low) / p.mb_s


def test_stating_the_sequential_rates_leaves_the_random_figures_to_the_class():
    """A datasheet's transfer rates narrow a stream's range, not a random job's: its IOPS still come
    from the class until the plan states them too."""
    preset = Hardware(disk=DiskSpec(disk_class="hdd7200"))
    seq_only = Hardware(disk=DiskSpec(disk_class="hdd7200", seq_outer_mb_s=250, seq_inner_mb_s=120))
    both = Hardware(disk=seq_only.disk.model_copy(update={"rand_read_iops": 80, "rand_write_iops": 80}))
    assert width(one(plan(seq_only), SEQ)) < width(one(plan(preset), SEQ))
    r_preset, r_seq, r_both = (one(plan(hw), RAND) for hw in (preset, seq_only, both))
    assert width(r_seq) == pytest.approx(width(r_preset))
    assert any("disk random IOPS: hdd7200 class preset" in x for x in r_seq.range_from) and not r_seq.inputs_stated
    assert width(r_both) < width(r_seq)
    assert r_both.range_from == ["disk random IOPS: stated (a datasheet's unit-to-unit variation, ±10%)"]
    assert r_both.inputs_stated and r_both.assumption.endswith("every input stated")


def test_each_input_left_to_a_preset_widens_the_range_and_stating_it_narrows_it():
    """A term resting on two presets (the disks' class and a controller's kind) strays by both,
    independently: the root of the sum of their squares, wider than either alone."""
    w = Workload(name="q1", rw="randread", bs=4 * KiB, iodepth=1)
    disk = DiskSpec(disk_class="ssd-sata")
    kind = Hardware(disk=disk, controller=Controller(kind="raid", cache_bytes=0))
    stated = Hardware(disk=disk, controller=Controller(kind="raid", cache_bytes=0, round_trip_us=150))
    p, q = one(plan(kind), w), one(plan(stated), w)
    assert p.binding == q.binding == "queue depth" and p.mb_s == pytest.approx(q.mb_s)
    assert p.mb_s_low == pytest.approx(p.mb_s * (1 - (0.1**2 + 0.5**2) ** 0.5))
    assert q.mb_s_low == pytest.approx(q.mb_s * 0.9)
    assert any(x.startswith("controller round trip: the raid preset") for x in p.range_from)
    assert not any("controller" in x for x in q.range_from)


def test_a_figure_whose_inputs_are_all_stated_says_so():
    measured = DiskPerf(seq_read_mb_s=200, seq_write_mb_s=190, rand_read_iops=150, rand_write_iops=150)
    p = one(plan(Hardware(cpu=ALL_CPU)), SEQ, disk_override=measured)
    assert p.inputs_stated and p.range_from == ["disk transfer rates: measured (fio's run-to-run repeatability, ±10%)"]
    assert p.assumption == "disk transfer rates measured ±10%; every input stated"
    # A figure no input moves (a link's standard rate) has no range and nothing to name.
    linked = one(plan(Hardware(disk=DiskSpec(disk_class="hdd15k"), wiring=Wiring(link="fc1", disks_per_link=8))), SEQ)
    assert linked.mb_s_low == linked.mb_s == linked.mb_s_high and linked.range_from == [] and linked.inputs_stated


def test_a_kernel_left_unstated_spans_the_distributions_kernels():
    """RAID10 on flash, direct random writes: md hands each write to its thread before 6.5 and not
    after, so a plan that names no kernel carries the distributions' kernels; naming one drops it."""
    hw = Hardware(disk=DiskSpec(disk_class="nvme"), wiring=Wiring(link="direct"))
    w = Workload(name="w", rw="randwrite", bs=4 * KiB, iodepth=1)
    unstated = one(plan(hw, level=10, n=4), w)
    named = one(plan(hw, level=10, n=4, tools=ToolVersions(kernel="6.1")), w)
    assert unstated.mb_s == pytest.approx(named.mb_s)
    kernel = [x for x in unstated.range_from if x.startswith("kernel: not stated, 6.1 assumed")]
    assert kernel and "4.18, 5.14, 5.15, 6.1, 6.8, 6.12" in kernel[0]
    assert unstated.mb_s_high > named.mb_s_high
    assert not any("kernel" in x for x in named.range_from)
    # Spinning disks: a hand-off of microseconds against writes of milliseconds moves nothing.
    hdd = one(plan(Hardware(), level=10, n=4), w)
    assert not any("kernel" in x for x in hdd.range_from)


def test_predict_json_names_what_widened_each_range(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["predict", "--no-host-cpu", "--json", "--workload", "seq-read", "--workload", "rand-read-4k"])
    out, err = capsys.readouterr()
    assert code == 0, err
    preds = json.loads(out)["predictions"]
    assert [p["range_from"][0].split(":")[0] for p in preds] == ["disk transfer rates", "disk random IOPS"]
    assert all(p["inputs_stated"] is False and p["mb_s_low"] < p["mb_s"] < p["mb_s_high"] for p in preds)


def test_a_block_size_mix_names_the_inputs_of_every_size() -> None:
    """A mix's range comes from every size's range: the 4 KiB requests' CPU per request widens it as
    much as the 1 MiB requests' disks, whichever size the figure's binding term comes from."""
    from planners.perf.concurrent import predict_job_file
    from planners.perf.jobfile import parse_job_file
    from planners.perf.predict import geometry_for_speed

    hw = Hardware(disk=DiskSpec(disk_class="nvme"), wiring=Wiring(link="direct"))
    p = plan(hw, n=4)
    head = "[m]\nrw=randread\nioengine=libaio\niodepth=32\nnumjobs=4\ndirect=1\nfilename=/dev/md0\n"
    (big,) = predict_job_file(p, geometry_for_speed(p), parse_job_file(head + "bs=1m\n", source="big"))
    (mix,) = predict_job_file(p, geometry_for_speed(p), parse_job_file(head + "bssplit=4k/50:1m/50\n", source="mix"))
    assert not any("CPU per request" in x for x in big.range_from)
    assert any("CPU per request" in x for x in mix.range_from) and "CPU per request" in mix.assumption
    assert any(x.startswith("disk random IOPS: nvme class preset") for x in mix.range_from)
    assert not mix.inputs_stated


def test_a_kernel_names_only_the_side_that_moves_the_figure():
    """The distributions' kernels raise this figure by 20 % and lower it by nothing: the range said
    "-0%/+20%"; now only a side that moves the figure by 1 % or more is said."""
    hw = Hardware(disk=DiskSpec(disk_class="nvme"), wiring=Wiring(link="direct"))
    p = one(plan(hw, level=10, n=4), Workload(name="w", rw="randwrite", bs=4 * KiB, iodepth=1))
    (kernel,) = [x for x in p.range_from if x.startswith("kernel: not stated")]
    assert "-0%" not in kernel and "-0%" not in p.assumption and "+20%" in kernel


def test_a_term_only_another_kernel_has_widens_the_range() -> None:
    """A term absent from the assumed kernel's figures but binding under another (as md's lines or a
    hand-off a kernel adds) moves the figure: before, only the terms there now were looked at and the
    kernel moved nothing; now the figure's own fall, 40 % here, is taken by the terms that bind."""
    from planners.compute import compute
    from planners.perf.context import PerfCtx, build_ctx
    from planners.perf.spread import kernel_input

    p = plan(Hardware(disk=DiskSpec(disk_class="nvme"), wiring=Wiring(link="direct")), n=4)
    ctx = build_ctx(p, compute(p))
    terms = {"disks": 100.0, "queue depth": 150.0}

    def evaluate(other: PerfCtx) -> dict[str, float]:
        return {**terms, "md thread": 60.0} if other.kernel == "4.18" else terms

    got = kernel_input(ctx, terms, evaluate)
    assert got is not None and got.down == pytest.approx(0.4) and got.terms == {"disks"}
    assert "the figure by -40%" in got.line


def test_spreads_in_quadrature_never_take_the_low_end_to_zero() -> None:
    """Three inputs of -75 % add in quadrature to -130 %: the low end was below 0. Each input leaves
    a quarter of the term at its worst, so all three at once leave 1/64 of it: the floor."""
    from planners.compute import compute
    from planners.perf.context import build_ctx
    from planners.perf.roof import Term
    from planners.perf.spread import Input, figure_range

    p = plan(Hardware(disk=DiskSpec(disk_class="nvme"), wiring=Wiring(link="direct")), n=4)
    ctx = build_ctx(p, compute(p))
    big = [Input(f"x{i}", f"x{i}", 0.75, 0.0, True, frozenset({"t"})) for i in range(3)]
    r = figure_range(ctx, [Term("t", 100.0, "")], None, big)
    assert r.low == pytest.approx(100.0 * 0.25**3) and r.low > 0
