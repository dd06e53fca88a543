"""fio's clones of one job on one target (planners.perf.clones): buffered sequential readers that
start at one offset read one stream of pages; direct writers of one start on parity RAID are
outside the model; offset_increment or a file per clone keeps them apart."""

from __future__ import annotations

import pytest

from planners.example import example_pod
from planners.perf.clones import share_one_stream
from planners.perf.concurrent import predict_job_file
from planners.perf.jobfile import parse_job_file
from planners.perf.predict import geometry_for_speed, predict
from planners.perf.workloads import Workload
from planners.units import GiB, MiB

READER = Workload(name="r", rw="read", bs=MiB, direct=False, ioengine="psync", numjobs=1)


def _one(plan, w: Workload):  # type: ignore[no-untyped-def]
    (p,) = predict(plan, workloads=[w])
    return p


def test_clones_of_one_buffered_stream_each_count_every_page() -> None:
    plan = example_pod()
    one = _one(plan, READER)
    four = _one(plan, READER.model_copy(update={"numjobs": 4}))
    # the array reads the stream once; each of the four clones copies every page of it
    assert four.mb_s == pytest.approx(4 * one.mb_s)
    assert four.binding == one.binding and "4 clones that start at one offset" in next(
        t.note for t in four.terms if t.name == four.binding
    )
    # the clones' own copies bound them at last: one copy rate per core, and memory's bandwidth
    many = _one(plan, READER.model_copy(update={"numjobs": 4096}))
    assert many.binding in ("CPU copy", "memory") and many.mb_s < 4096 * one.mb_s


@pytest.mark.parametrize(
    "apart",
    [
        {"direct": True},  # O_DIRECT: no page cache to share
        {"files": 4},  # a file per clone (fio without filename=)
        {"clone_step": GiB},  # offset_increment
        {"rw": "randread"},  # each clone draws its own offsets
    ],
)
def test_clones_kept_apart_read_on_their_own(apart: dict) -> None:
    w = READER.model_copy(update={"numjobs": 4, **apart})
    assert not share_one_stream(w)
    assert not any("start at one offset" in t.note for t in _one(example_pod(), w).terms)


def test_the_job_file_says_whether_clones_share_a_start() -> None:
    text = (
        "[global]\nrw=read\nbs=1m\nioengine=psync\nnumjobs=4\nsize=1g\n"
        "[named]\nfilename=/srv/pod/f\n"
        "[apart]\nfilename=/srv/pod/g\noffset_increment=2g\n"
        "[own]\ndirectory=/srv/pod\n"
    )
    jf = parse_job_file(text)
    named, apart, own = jf.workloads
    assert share_one_stream(named) and not share_one_stream(apart) and not share_one_stream(own)
    assert apart.clone_step == 2 * GiB and ("offset_increment", str(2 * GiB)) in apart.fio_extras()
    # the offset_increment round-trips through the job podplan writes for validate
    (again,) = parse_job_file(apart.fio_job(filename="/srv/pod/g")).workloads
    assert again.clone_step == apart.clone_step


def test_direct_clones_of_one_start_on_parity_raid_are_outside_the_model() -> None:
    plan = example_pod()  # RAID6
    result = geometry_for_speed(plan)
    text = "[w]\nfilename=/dev/pod/data\nrw=write\nbs=1m\ndirect=1\nioengine=libaio\niodepth=2\nnumjobs={n}\n{extra}"
    one, four, apart = (
        predict_job_file(plan, result, parse_job_file(text.format(n=n, extra=extra)))[0]
        for n, extra in ((1, ""), (4, ""), (4, "offset_increment=10g\n"))
    )
    assert not one.outside_model and not apart.outside_model
    assert "fio starts the 4 clones at one offset" in four.outside_model
    raid0 = plan.model_copy(update={"groups": [g.model_copy(update={"level": 0}) for g in plan.groups]})
    (w,) = predict_job_file(raid0, geometry_for_speed(raid0), parse_job_file(text.format(n=4, extra="")))
    assert not w.outside_model  # no parity: no stripe to complete
