"""--baseline: the members of an md array or LV, measured read-only, feed the performance model."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from planners.example import example_pod
from planners.hardware.disks import DiskPerf
from planners.perf.predict import predict, prediction_for
from runners.exec import have
from runners.fio.baseline import Baseline, disk_perf_from, members_of, plan_preset, run_baseline, summarize
from runners.fio.result import parse_output
from runners.host.inventory import parse_lsblk
from runners.probes.loopdev import sparse_loops

FIX = Path(__file__).parent / "fixtures"
MiB = 1024**2
LAB = parse_lsblk((FIX / "inventory" / "lab_lsblk.json").read_text())
EIGHT = tuple(f"/dev/sd{c}" for c in "abcdefgh")


def test_members_of_an_md_array_an_lv_and_a_mount_point():
    assert members_of("/dev/md0", LAB) == EIGHT
    assert members_of("/dev/mapper/pod-data", LAB) == EIGHT  # LV on md: down to the disks, each once
    assert members_of("/srv/pod/backups", LAB) == EIGHT  # a directory: the device mounted above it
    assert members_of("/dev/sda", LAB) is None  # a plain disk has no members
    assert members_of("/dev/nosuch", LAB) is None and members_of("/elsewhere", LAB) is None


def _recorded() -> Baseline:
    """The baseline as run_baseline builds it, from fio's recorded output of three loop devices."""
    run = parse_output((FIX / "fio" / "baseline_3loops.json").read_text())
    disks = [(f"/dev/loop{i}", 64 * MiB) for i in range(3)]
    per, medians = summarize(run, disks)
    return Baseline(disks=per, medians=medians, job_file="", partial=False)


def test_recorded_run_is_summarized_and_the_slow_disk_flagged():
    b = _recorded()
    assert [d.device for d in b.disks] == ["/dev/loop0", "/dev/loop1", "/dev/loop2"]
    assert all(d.outer_mb_s and d.inner_mb_s and d.rand_read_iops for d in b.disks)
    # loop0's inner zone read 2961 MB/s against a median of 4174: more than 20 % below.
    assert b.slow_disks == ("/dev/loop0",) and b.disks[0].slow == ("inner",)
    assert round(b.medians["outer"]) == 4006 and round(b.medians["inner"]) == 4174


def test_measured_figures_feed_the_model_with_preset_write_ratios():
    plan = example_pod()
    preset = plan_preset(plan)
    b = _recorded()
    perf = disk_perf_from(b, preset)
    assert perf.seq_read_mb_s == pytest.approx((b.medians["outer"] + b.medians["inner"]) / 2)
    assert perf.rand_read_iops == b.medians["rand"]
    # Read-only baseline: writes keep the disk class's write/read ratios.
    assert perf.seq_write_mb_s / perf.seq_read_mb_s == pytest.approx(preset.seq_write_factor)
    assert perf.rand_write_iops / perf.rand_read_iops == pytest.approx(preset.rand_write_iops / preset.rand_read_iops)
    fed = prediction_for(predict(plan, disk_override=perf), "seq-read")
    preset_only = prediction_for(predict(plan), "seq-read")
    assert fed.mb_s != preset_only.mb_s  # the measured disks changed the prediction


def test_missing_phases_fall_back_to_the_preset():
    preset = plan_preset(example_pod())
    only_seq = Baseline(disks=(), medians={"outer": 200.0, "inner": 100.0, "rand": 0.0}, job_file="", partial=True)
    perf = disk_perf_from(only_seq, preset)
    assert perf.seq_read_mb_s == 150.0 and perf.rand_read_iops == preset.rand_read_iops
    assert disk_perf_from(Baseline(disks=(), medians={}, job_file="", partial=True), preset) is None


@pytest.mark.skipif(os.geteuid() != 0 or not have("fio") or not have("losetup"), reason="needs root, fio, losetup")
def test_real_loops_give_a_disk_perf(tmp_path):
    with sparse_loops([32 * MiB] * 2) as devs:
        b = run_baseline(devs, runtime_s=1, report_dir=str(tmp_path))
    assert not b.partial, b.reason
    perf = disk_perf_from(b, plan_preset(example_pod()))
    assert isinstance(perf, DiskPerf) and perf.seq_read_mb_s > 0 and perf.rand_read_iops > 0
    assert "fio --readonly" in (tmp_path / "baseline.fio").read_text()  # kept beside the report
    assert parse_output((tmp_path / "baseline.json").read_text()).jobs


def test_cli_baseline_on_a_plain_directory_says_it_is_skipped(tmp_path, capsys):
    from rich.console import Console

    from app.cli.validate import Said
    from app.usecases.validate import measure_baseline

    with open(os.devnull, "w") as devnull:
        console = Console(file=devnull, record=True)
        assert measure_baseline(str(tmp_path / "nowhere"), None, None, Said(console, 1, live=False)) == (None, None)
    assert "baseline skipped" in console.export_text()
