"""Readahead on every stack: each window is a round trip to the device behind it, on an LV over
LUNs, a LUN or a disk alone, as on md (tests/test_lab_readahead.py witnesses the md case)."""

from __future__ import annotations

import json

import pytest

from planners.example import example_luns, example_nvme, example_scratch
from planners.hardware.machine import Controller
from planners.models import DiskSet, Filesystem, Plan
from planners.perf.predict import WorkloadPrediction, predict
from planners.perf.workloads import PRESETS, Workload
from planners.units import KiB, MiB

# A buffered reader whose read()s are smaller than the window (bonnie++'s block read, cp, most
# applications): the window is the readahead setting itself.
READER = Workload(name="reader", rw="read", bs=128 * KiB, direct=False, ioengine="psync", target="file", size=10**12)
STEPS = (128 * KiB, 2 * MiB, 32 * MiB)


def prediction(plan: Plan, readahead: int, w: Workload) -> WorkloadPrediction:
    plan = plan.model_copy(update={"tuning": plan.tuning.model_copy(update={"readahead": readahead})})
    return predict(plan, workloads=[w])[0]


def at(plan: Plan, readahead: int, w: Workload) -> float:
    return prediction(plan, readahead, w).mb_s


def window_term(plan: Plan, readahead: int, w: Workload) -> float:
    return next(t.mb_s for t in prediction(plan, readahead, w).terms if t.name == "readahead")


def test_eight_luns_under_a_striped_lv_read_faster_with_each_larger_window() -> None:
    """128 KiB windows on a 128 KiB stripe: two of the 48 data disks move at a time. 2 MiB keeps 4 of
    each LUN's 6 busy, 32 MiB all of them; one reader's copy out of the page cache caps the stream."""
    plan = example_luns()
    small, mid, big = (prediction(plan, ra, READER) for ra in STEPS)
    assert small.mb_s < mid.mb_s <= big.mb_s
    assert mid.mb_s > 5 * small.mb_s and small.binding == "readahead"
    # each LUN holds a quarter of a window: 2 of 48 data disks at a time
    assert "keeps 0.25 of the LUN's 6 data disks busy" in next(t.note for t in small.terms if t.name == "readahead")
    terms = [window_term(plan, ra, READER) for ra in STEPS]
    assert terms[0] < terms[1] < terms[2]
    # dd's 1 MiB reads: a read() larger than the window widens it to the read (tests/test_lab_readahead.py)
    dd = [at(plan, ra, PRESETS["dd-read"]) for ra in STEPS]
    assert dd[0] < dd[1] <= dd[2]


def test_one_lun_reads_faster_with_a_window_that_covers_more_of_its_disks() -> None:
    """A 24-disk RAID10 LUN with a 256 KiB strip: a 128 KiB window moves on one of its 12 data disks."""
    plan = example_scratch()
    small, mid, big = (at(plan, ra, READER) for ra in STEPS)
    assert small < mid <= big
    assert mid > 3 * small


def test_a_disk_alone_reads_faster_with_larger_windows_where_each_request_costs_a_round_trip() -> None:
    """An NVMe drive behind a RAID adapter: each 128 KiB window pays the adapter's 0.15 ms and the
    drive's access time beside a 0.04 ms transfer, so two windows in flight keep it a third busy."""
    nvme = example_nvme()
    behind = nvme.model_copy(
        update={"hardware": nvme.hardware.model_copy(update={"controller": Controller(kind="raid")})}
    )
    small, mid, big = (at(behind, ra, READER) for ra in STEPS)
    assert small < mid <= big
    assert mid > 2 * small


def test_a_spinning_disk_alone_streams_at_its_own_rate_from_the_default_window() -> None:
    """Two 128 KiB windows queued on one disk with nothing to pay per request: the disk never waits,
    as dd on a bare disk shows; the window then changes nothing (the reader's copy aside)."""
    plan = Plan(
        name="one",
        disks=[DiskSet(count=1, size=4 * 10**12)],
        filesystem=Filesystem(type="xfs", mount_point="/srv/one"),
    )
    small, big = (prediction(plan, ra, READER) for ra in (128 * KiB, 32 * MiB))
    assert small.mb_s == pytest.approx(big.mb_s)
    assert "readahead" in {t.name for t in small.terms}


@pytest.mark.parametrize("make", [example_luns, example_scratch, example_nvme], ids=["luns8", "scratch", "nvme"])
def test_direct_io_does_not_follow_readahead(make) -> None:
    plan = make()
    for w in (PRESETS["seq-read"], READER.model_copy(update={"direct": True, "ioengine": "libaio", "iodepth": 2})):
        assert len({at(plan, ra, w) for ra in STEPS}) == 1


def test_a_stream_the_cpu_copy_stops_names_the_copy_not_the_page_cache() -> None:
    """A buffered read of a 14 TB-class volume that the CPU's copy out of the page cache caps: the
    cache holds nothing back, the copy does, and the term says so."""
    p = prediction(example_luns(), 32 * MiB, PRESETS["dd-read"])
    assert p.binding == "CPU copy"
    assert "the CPU copying out of the page cache" in next(t.note for t in p.terms if t.name == p.binding)
    write = predict(example_luns(), workloads=[PRESETS["dd-write"]])[0]
    assert "CPU copying into the page cache" in next(t.note for t in write.terms if t.name == "CPU copy")


def test_the_whole_lv_read_of_the_calibration_notes() -> None:
    """docs/calibration.md's figures: a buffered reader of the whole 8-LUN LV (128 KiB read()s, no hint)."""
    whole = READER.model_copy(update={"target": "raw", "size": None})
    small, mid, big = (prediction(example_luns(), ra, whole) for ra in STEPS)
    assert [round(p.mb_s) for p in (small, mid, big)] == [313, 2798, 2977]
    assert [p.binding for p in (small, mid, big)] == ["readahead", "readahead", "CPU copy"]


def test_predict_readahead_flag_moves_the_eight_lun_stream(tmp_path, capsys) -> None:
    """`podplan predict luns8.toml --readahead 128K` and `32M`: the note's commands."""
    from app.cli.main import main

    assert main(["example", "luns8"]) == 0
    plan = tmp_path / "luns8.toml"
    plan.write_text(capsys.readouterr().out)
    figures = []
    for ra in ("128K", "2M", "32M"):
        argv = ["predict", str(plan), "--no-host-cpu", "--readahead", ra, "--workload", "bonnie-read", "--json"]
        assert main([*argv, "--workload", "seq-read"]) == 0
        buffered, direct = json.loads(capsys.readouterr().out)["predictions"]
        figures.append((buffered["mb_s"], direct["mb_s"]))
    assert figures[0][0] < figures[1][0] <= figures[2][0] and figures[1][0] > 5 * figures[0][0]
    assert len({d for _, d in figures}) == 1  # direct I/O has no readahead
