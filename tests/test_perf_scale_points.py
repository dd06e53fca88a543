"""Every point of a `--scale` sweep is the job file with that value written in it, predicted as such."""

from __future__ import annotations

import json

import pytest

from app.cli.main import main
from planners.errors import PlanError
from planners.example import example_luns, example_nvme, example_pod
from planners.perf.concurrent import predict_job_file
from planners.perf.jobfile import parse_job_file
from planners.perf.predict import WorkloadPrediction, geometry_for_speed
from planners.perf.scale import parse_scale, sweep_job
from tests.test_perf_scale import JOB as TWO_PHASES  # two sections in two phases, clones sharing one file

# The issue's case: one clone's 1 GiB of buffered random writes fits the page cache; 48 clones' 48 GiB do not.
BUFFERED_RANDWRITE = "[rw]\nrw=randwrite\nbs=4k\nsize=1g\nioengine=psync\n"
DIRECT_READ = "[rd]\nrw=randread\nbs=4k\nsize=20g\nioengine=libaio\ndirect=1\niodepth=4\n"
# number_ios counts requests, so the bytes a run moves follow bs; offset_increment spreads the clones.
BUFFERED_STREAM = "[st]\nrw=read\nbs=128k\nsize=4g\nnumber_ios=2000\noffset_increment=8g\nfilename=/srv/pod/big\n"
AXES = ("numjobs=1,2,8,48", "iodepth=1,4,32", "bs=4k,64k,1m")


def written(text: str, key: str, value: int) -> str:
    """`text` with `key=value` as the last line of every job section (after anything [global] set)."""
    out: list[str] = []
    inside = False
    for line in text.splitlines():
        if line.startswith("[") and inside:
            out.append(f"{key}={value}")
        if line.startswith("["):
            inside = not line.startswith("[global")
        out.append(line)
    if inside:
        out.append(f"{key}={value}")
    return "\n".join(out) + "\n"


def same(point: WorkloadPrediction, alone: WorkloadPrediction) -> None:
    """Every figure of the prediction equal; the sweep may add why many jobs are outside the model."""
    for field in WorkloadPrediction.model_fields:
        if field != "outside_model":
            assert getattr(point, field) == getattr(alone, field), field
    assert point.outside_model.startswith(alone.outside_model)


@pytest.mark.parametrize("plan", [example_pod(), example_luns(), example_nvme()], ids=["pod45", "luns8", "nvme"])
@pytest.mark.parametrize("text", [BUFFERED_RANDWRITE, DIRECT_READ, BUFFERED_STREAM, TWO_PHASES])
@pytest.mark.parametrize("axis", AXES)
def test_each_scale_point_is_the_job_file_edited_to_it(plan, text: str, axis: str) -> None:
    result = geometry_for_speed(plan)
    scale = parse_scale(axis)
    points = sweep_job(plan, result, parse_job_file(text), [scale])
    at = {}
    for p in points:
        at.setdefault(p.point[scale.key], []).append(p)
    for value in scale.values:
        alone = predict_job_file(plan, result, parse_job_file(written(text, scale.key, value)))
        assert len(at[value]) == len(alone)
        for p, a in zip(at[value], alone, strict=True):
            same(p, a)


def test_48_buffered_clones_of_a_gigabyte_are_no_longer_one_clone_in_the_page_cache(tmp_path, capsys) -> None:
    """The issue's figures: 28,800 MB/s from one clone's footprint where the file with numjobs=48 says 6 MB/s."""
    job, edited = tmp_path / "j.fio", tmp_path / "j48.fio"
    job.write_text(BUFFERED_RANDWRITE)
    edited.write_text(written(BUFFERED_RANDWRITE, "numjobs", 48))
    assert main(["predict", "--no-host-cpu", "--job", str(job), "--scale", "numjobs=1,48", "--json"]) == 0
    swept = json.loads(capsys.readouterr().out)["predictions"]
    assert main(["predict", "--no-host-cpu", "--job", str(edited), "--json"]) == 0
    alone = json.loads(capsys.readouterr().out)["predictions"][0]
    assert swept[1]["point"] == {"numjobs": 48}
    assert swept[1]["mb_s"] == alone["mb_s"] and swept[1]["binding"] == alone["binding"]
    assert swept[1]["mb_s"] < swept[0]["mb_s"] / 10  # 48 GiB dirty reach the disks; 1 GiB stays in memory


def test_a_point_fio_would_refuse_is_one_line() -> None:
    plan = example_pod()
    # 2 sections x 4088 clones: more jobs than fio runs
    with pytest.raises(PlanError, match=r"at numjobs=4088: .*fio runs at most 4,088 jobs"):
        sweep_job(plan, geometry_for_speed(plan), parse_job_file(TWO_PHASES), [parse_scale("numjobs=1,4088")])


def test_a_point_past_fio_s_job_limit_is_refused_or_ends_a_curve_nobody_asked_for():
    """300 sections at numjobs=16 are 4,800 jobs, past the 4,088 fio runs: `--scale` names the point, and the
    Perf tab's own numjobs curve (the user asked for no point) ends at the last point fio would run."""
    from app.shared.curves import suite_curves

    plan = example_pod()
    result = geometry_for_speed(plan)
    sections = "".join(f"[j{i}]\nrw=randread\nbs=4k\nstonewall\n" for i in range(300))
    job = parse_job_file("[global]\nioengine=libaio\ndirect=1\nsize=1g\n" + sections)
    with pytest.raises(PlanError, match="4,800 jobs"):
        sweep_job(plan, result, job, [parse_scale("numjobs=1,16")])
    ran = sweep_job(plan, result, job, [parse_scale("numjobs=1,13,14,16")], runnable_only=True)
    assert {p.point["numjobs"] for p in ran} == {1, 13}  # 13 x 300 = 3,900 jobs; 14 x 300 = 4,200
    big = [c for c in suite_curves(plan, result, job, {}) if c.section.startswith("j")]
    assert big and all(max(p.x for p in c.points) * 300 <= 4088 for c in big)
