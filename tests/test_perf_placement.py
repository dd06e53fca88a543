"""Where a job's files land on a linear LV, and what that does to each array's share of the requests."""

from __future__ import annotations

import pytest

from planners.example import example_pod
from planners.perf.context import build_ctx
from planners.perf.jobfile import parse_job_file
from planners.perf.placement import array_spans, shares
from planners.perf.predict import geometry_for_speed, predict

GB = 10**9
RAND = "[global]\nrw=randread\nbs=4k\ndirect=1\nioengine=libaio\n"


@pytest.fixture(scope="module")
def pod():
    plan = example_pod()  # 3 x RAID6 of 15 under one linear LV
    result = geometry_for_speed(plan)
    return plan, result, build_ctx(plan, result)


def _job(text: str):
    [w] = parse_job_file(text).workloads
    return w


def test_a_file_that_fits_in_the_first_array_keeps_every_request_there(pod):
    plan, result, ctx = pod
    w = _job(RAND + "iodepth=128\nsize=10g\n[one]\n")
    assert shares(ctx, w) == {0: 1.0}
    [p] = predict(plan, result, [w])
    # All 128 requests wait on md0's 15 disks; the arrays beyond it see none (it was 128/3 each).
    assert any("md0: 128 requests in flight" in t.note for t in p.terms)
    spread = w.model_copy(update={"size": None})
    [whole] = predict(plan, result, [spread])
    assert any("42.7 requests in flight" in t.note for t in whole.terms)


def test_numjobs_files_lie_end_to_end_from_the_start(pod):
    _, _, ctx = pod
    four = _job(RAND + "iodepth=32\nsize=10g\nnumjobs=4\n[many]\n")
    assert four.files == 4 and shares(ctx, four) == {0: 1.0}  # 40 GB: all on md0
    (_, _, end0), (_, _, end1), _ = array_spans(ctx)
    # Files covering one and a half arrays: random I/O lands on each array as the span it holds.
    size = end0 * 3 // 2
    half = _job(RAND + f"size={size // 2}\nnumjobs=2\n[half]\n")
    got = shares(ctx, half)
    assert got[0] == pytest.approx(2 / 3) and got[1] == pytest.approx(1 / 3) and 2 not in got
    # Three streams, each over its own file of a third of the LV: one stream per array.
    seq = _job(f"[global]\nrw=read\nbs=1m\ndirect=1\nsize={end1 * 3 // 2 // 3}\nnumjobs=3\n[streams]\n")
    assert shares(ctx, seq) == pytest.approx({0: 1 / 3, 1: 1 / 3, 2: 1 / 3})


def test_clones_sharing_one_file_or_the_device_start_on_the_first_array(pod):
    _, _, ctx = pod
    shared = _job("[global]\nrw=read\nbs=1m\nfilename=/dev/pod/data\nnumjobs=3\nsize=100g\n[s]\n")
    assert shared.files == 1 and shares(ctx, shared) == {0: 1.0}
    whole = _job(RAND + "filename=/dev/pod/data\n[w]\n")
    assert shares(ctx, whole) == pytest.approx({0: 1 / 3, 1: 1 / 3, 2: 1 / 3})


def test_a_striped_lv_spreads_any_file_over_every_array(pod):
    plan, _, _ = pod
    striped = plan.model_copy(
        update={"lvm": plan.lvm.model_copy(update={"mode": "striped", "stripe_size": 512 * 1024})}
    )
    ctx = build_ctx(striped, geometry_for_speed(striped))
    w = _job(RAND + "size=10g\n[one]\n")
    assert shares(ctx, w) == pytest.approx({0: 1 / 3, 1: 1 / 3, 2: 1 / 3})
