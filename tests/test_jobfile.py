"""fio job files as workloads: sections and [global] as fio reads them, sizes as fio itself parses them."""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.cli.main import main
from planners.errors import PlanError
from planners.perf.jobfile import parse_job_file
from planners.perf.jobvalues import fio_bytes

JOB = """\
; the options a storage admin writes
[global]
ioengine=libaio
direct=1
filename=/dev/md0   # the array
runtime=60
time_based
group_reporting

[seq-write]
rw=write
bs=1m
iodepth=16

[db-log]
rw=randwrite
bs=8k
numjobs=5

[global]
direct=0
ioengine=psync

[buffered-read]
rw=read
bs=4m
"""


def test_sections_inherit_the_global_options_in_force_where_they_stand():
    jf = parse_job_file(JOB, source="pod.fio")
    by = {w.name: w for w in jf.workloads}
    assert list(by) == ["seq-write", "db-log", "buffered-read"]
    assert by["seq-write"].rw == "write" and by["seq-write"].bs == 1024**2 and by["seq-write"].iodepth == 16
    assert by["seq-write"].direct and by["seq-write"].ioengine == "libaio" and by["seq-write"].target == "raw"
    assert by["db-log"].numjobs == 5 and by["db-log"].bs == 8192 and by["db-log"].iodepth == 1
    # The second [global] changes only the job after it.
    assert by["buffered-read"].direct is False and by["buffered-read"].ioengine == "psync"
    assert by["db-log"].direct is True


def test_every_ignored_option_is_said_once_with_its_reason():
    notes = parse_job_file(JOB, source="pod.fio").notes
    assert len(notes) == len(set(notes)) == 1
    assert notes[0].startswith("pod.fio:8: [global] group_reporting ignored: reporting only")


def test_run_length_and_end_fsync_reach_the_workload():
    by = {w.name: w for w in parse_job_file(JOB).workloads}
    assert by["seq-write"].runtime_s == 60 and by["seq-write"].time_based
    [w] = parse_job_file("[w]\nrw=write\nsize=5g\nruntime=2m\nend_fsync=1\n").workloads
    assert (w.runtime_s, w.time_based, w.end_fsync, w.size) == (120, False, True, 5 * 2**30)
    [w] = parse_job_file("[w]\nrw=write\nruntime=0\ntime_based\n").workloads
    assert w.runtime_s is None and not w.time_based  # runtime=0: no limit, as fio reads it
    assert "runtime" in refusal("[w]\nruntime=ten\n")
    # ramp_time: fio's units, and what the workload writes back is read the same again.
    [w] = parse_job_file("[w]\nrw=write\nramp_time=1500ms\nruntime=30\ntime_based\n").workloads
    assert w.ramp_s == 1.5 and w.runtime_s == 30
    [again] = parse_job_file(w.fio_job(filename="/dev/md0")).workloads
    assert again.ramp_s == 1.5
    assert parse_job_file("[w]\nrw=write\n").workloads[0].ramp_s == 0
    assert "ramp_time" in refusal("[w]\nramp_time=soon\n")


def test_fio_defaults_and_files():
    [w] = parse_job_file("[plain]\nsize=1g\nnumjobs=4\n").workloads
    # fio's own defaults: read, 4k, buffered, psync, one in flight; each clone gets a file of its own.
    assert (w.rw, w.bs, w.direct, w.ioengine, w.iodepth) == ("read", 4096, False, "psync", 1)
    assert w.target == "file" and w.size == 4 * 1024**3
    [raw] = parse_job_file("[r]\nfilename=/dev/sdb\nsize=1g\nnumjobs=4\n").workloads
    assert raw.target == "raw" and raw.size == 1024**3


def test_read_and_write_block_sizes():
    jf = parse_job_file("[r]\nrw=randread\nbs=4k,64k\n[w]\nrw=write\nbs=4k,64k\n")
    assert [w.bs for w in jf.workloads] == [4096, 65536]


@pytest.mark.parametrize(
    ("option", "words"),
    [
        ("rate_cycle=500", "rate_cycle refused: fio's pacing"),
        ("write_barrier=4", "write_barrier refused: a barrier write"),
        ("rw=randtrim", "rw=randtrim refused: trims"),
        ("bs=4k,8k\nrw=randrw", "different read and write block sizes"),
        ("rwmixread=170", "not a percentage"),
        ("sync=always", "fio takes 0/none, 1/sync or dsync"),
        ("bs=4k-64k", "range of block sizes"),
        ("ioengine=rbd", "ioengine=rbd refused"),
        ("frobnicate=3", "frobnicate refused: podplan does not know"),
        ("include other.fio", "include refused"),
        ("size=1.5g", "whole numbers only"),
        ("size=50%", "a share of the target is not modelled"),
    ],
)
def test_what_the_model_cannot_honour_is_refused_with_its_line(option, words):
    message = refusal(f"[global]\ndirect=1\n[job]\n{option}\n", source="x.fio")
    assert message.startswith("x.fio:4: [job] ") and words in message and "\n" not in message


def refusal(text: str, source: str = "job file") -> str:
    """The one refused section's reason; the file itself is still read."""
    jf = parse_job_file(text, source=source)
    [refused] = jf.refused
    return refused.reason


def test_an_empty_or_headless_file_is_refused():
    with pytest.raises(PlanError, match="no job section"):
        parse_job_file("[global]\nrw=read\n")
    with pytest.raises(PlanError, match=r"x.fio:1: an option before any \[section\]"):
        parse_job_file("rw=read\n[a]\n", source="x.fio")


SUFFIXES = ["", "b", "k", "K", "kb", "KB", "kib", "KiB", "m", "M", "mb", "MiB", "g", "G", "gb", "GiB"]


@pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed (scripts/dev.sh setup installs it)")
@settings(max_examples=6, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(1, 4096), st.sampled_from(SUFFIXES), st.sampled_from([1000, 1024])),
        min_size=10,
        max_size=30,
    )
)
def test_sizes_are_read_as_fio_itself_reads_them(tmp_path_factory, cases):
    """fio --parse-only --debug=parse prints the bytes it made of each size: the witness."""
    job = tmp_path_factory.mktemp("fio") / "sizes.fio"
    job.write_text(
        "".join(
            f"[j{i}]\nkb_base={base}\nsize={n}{suffix}\nfilename=/dev/null\n"
            for i, (n, suffix, base) in enumerate(cases)
        )
    )
    out = subprocess.run(["fio", "--parse-only", "--debug=parse", str(job)], capture_output=True, text=True, timeout=60)
    parsed = [int(x) for x in re.findall(r"handle_option=size, ptr=\S+\n.*?ret=0, out=(\d+)", out.stdout, re.S)]
    assert len(parsed) == len(cases), out.stdout[-2000:]
    for (n, suffix, base), theirs in zip(cases, parsed, strict=True):
        assert fio_bytes(f"{n}{suffix}", base) == theirs, (n, suffix, base)


def test_predict_takes_a_job_file(tmp_path, capsys):
    job = tmp_path / "pod.fio"
    job.write_text(JOB)
    assert main(["predict", "--job", str(job), "--no-host-cpu", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    preds = {p["workload"]: p for p in doc["predictions"]}
    assert list(preds) == ["seq-write", "db-log", "buffered-read"]
    for p in preds.values():
        assert p["mb_s"] > 0 and p["binding"] and p["terms"] and "runner_up" in p
    assert any("group_reporting ignored" in n for n in doc["job_notes"])
    # Five clones of a queue-depth-one job keep five requests in flight: more than one clone does.
    one = tmp_path / "one.fio"
    one.write_text(JOB.replace("numjobs=5", "numjobs=1"))
    assert main(["predict", "--job", str(one), "--no-host-cpu", "--json"]) == 0
    single = {p["workload"]: p for p in json.loads(capsys.readouterr().out)["predictions"]}
    assert preds["db-log"]["iops"] > single["db-log"]["iops"]


def test_a_block_size_mix_on_an_array_that_failed_gets_nothing(tmp_path, capsys):
    """A degraded RAID0 serves no size of a bssplit mix: the job gets 0 MB/s, bound by the failed
    array (it was a division by zero)."""
    job = tmp_path / "mix.fio"
    job.write_text("[mix]\nrw=randread\nbssplit=4k/50:64k/30:1m/20\ndirect=1\n")
    args = ["predict", "--disks", "4", "--disk-size", "2TB", "--level", "0", "--mode", "degraded"]
    assert main([*args, "--job", str(job), "--no-host-cpu", "--json"]) == 0
    [p] = json.loads(capsys.readouterr().out)["predictions"]
    assert (p["workload"], p["mb_s"], p["binding"]) == ("mix", 0.0, "array failed")


def test_a_job_file_with_nothing_to_predict_says_why_and_exits_1(tmp_path, capsys):
    bad = tmp_path / "bad.fio"
    bad.write_text("[a]\nrate_cycle=500\n")
    assert main(["predict", "--job", str(bad)]) == 1
    out = capsys.readouterr()
    assert out.err == "" and out.out.splitlines()[1].strip() == (
        f"[a] {bad}:2: [a] rate_cycle refused: fio's pacing of a capped or pausing job is not modelled"
    )
    assert main(["predict", "--job", str(tmp_path / "absent.fio")]) == 2
    assert "cannot read the job file" in capsys.readouterr().err


@pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed (scripts/dev.sh setup installs it)")
def test_validate_runs_the_sections_as_written(tmp_path):
    """The user's section, on podplan's target behind podplan's guards; the model is asked about what ran."""
    from runners.fio.jobs import Timing
    from runners.validate.compare import model_workloads
    from runners.validate.suite import validate

    jf = parse_job_file("[global]\nioengine=psync\n[my-read]\nrw=randread\nbs=16k\nnumjobs=2\n")
    fast = Timing(runtime_s=2, ss_duration_s=1, ss_ramp_s=0, ss_slope_pct=50.0)
    report = validate(str(tmp_path), jobs=[jf], timing=fast, file_size=16 * 1024**2)
    [ran] = report.workloads
    assert ran.name == "my-read" and ran.status in ("done", "partial") and ran.figures and ran.figures.iops > 0
    assert "rw=randread" in ran.job_file and "bs=16384" in ran.job_file and "numjobs=2" in ran.job_file
    [asked] = model_workloads(report)
    assert (asked.name, asked.rw, asked.bs, asked.numjobs, asked.ioengine) == ("my-read", "randread", 16384, 2, "psync")
    assert list(tmp_path.iterdir()) == []  # podplan's file, removed afterwards


def test_validate_job_files_run_here_only(tmp_path, capsys):
    job = tmp_path / "j.fio"
    job.write_text("[a]\nrw=read\n")
    assert main(["validate", str(tmp_path), "--job", str(job), "--hosts", "pod1"]) == 2
    assert "--job runs here only" in capsys.readouterr().err


def test_fios_default_fadvise_hint_doubles_a_buffered_readers_window():
    [hinted] = parse_job_file("[r]\nrw=read\nbs=1m\n").workloads
    [plain] = parse_job_file("[r]\nrw=read\nbs=1m\nfadvise_hint=0\n").workloads
    [direct] = parse_job_file("[r]\nrw=read\nbs=1m\ndirect=1\n").workloads
    assert hinted.fadvise_sequential and not plain.fadvise_sequential and not direct.fadvise_sequential


TWO = "[global]\nioengine=psync\nrw=randread\nbs=4k\n[first]\n[second]\n"


def test_sections_without_a_stonewall_run_together_and_a_stonewall_separates_them():
    together = parse_job_file(TWO)
    assert [p.sections for p in together.phases] == [["first", "second"]]
    assert together.grouping == "sections run together: first, second"
    walled = parse_job_file(TWO + "stonewall\n[third]\n[fourth]\nwait_for=first\n")
    assert [(p.sections, p.after) for p in walled.phases] == [
        (["first"], ""),
        (["second", "third", "fourth"], "stonewall"),
    ]
    assert walled.grouping == "sections run together: first; then second, third, fourth (stonewall)"
    # wait_for holds back its own section only, one phase after the section it names.
    waits = parse_job_file("[a]\n[b]\nwait_for=a\n[c]\n")
    assert waits.grouping == "sections run together: a, c; then b (wait_for=a)"
    alone = parse_job_file("[global]\nstonewall\n[a]\n[b]\n")
    assert alone.grouping == "sections run one after another: a; then b (stonewall)"
    assert parse_job_file("[a]\n").grouping == ""
    # new_group starts a reporting group only: fio still starts the section with the others.
    grouped = parse_job_file(TWO.replace("[second]\n", "[second]\nnew_group\n"))
    assert grouped.grouping == together.grouping
    assert not any("stonewall" in n for n in walled.notes)
    assert refusal("[b]\nwait_for=zz\n[zz]\n", source="x.fio").startswith(
        "x.fio:2: [b] wait_for=zz: no section of that name before it"
    )


def _predicted(text: str) -> dict:
    from planners.example import example_pod
    from planners.perf.concurrent import predict_job_file
    from planners.perf.predict import geometry_for_speed

    plan = example_pod()
    return {p.workload: p for p in predict_job_file(plan, geometry_for_speed(plan), parse_job_file(text))}


@pytest.mark.parametrize(
    "shape", ["rw=read\nbs=1m\niodepth=64", "rw=randread\nbs=4k\niodepth=128", "rw=write\nbs=1m\niodepth=64"]
)
def test_sections_that_run_together_share_the_array(shape):
    head = f"[global]\nfilename=/dev/md0\ndirect=1\nioengine=libaio\n{shape}\n"
    alone = _predicted(head + "[solo]\n")["solo"]
    both = _predicted(head + "[a]\n[b]\n")
    walled = _predicted(head + "[a]\n[b]\nstonewall\n")
    for name in ("a", "b"):
        # Each alone when a stonewall separates them; each slower than alone when they run at once.
        assert walled[name].mb_s == pytest.approx(alone.mb_s)
        assert both[name].mb_s < alone.mb_s
        assert both[name].binding == "sections at once"
    # Together they get no more than the array gives: the disks' ceiling of one of them.
    disks = min(t.mb_s for t in alone.terms if t.name == "disks")
    assert both["a"].mb_s + both["b"].mb_s <= disks * (1 + 1e-9)


def test_sections_that_leave_the_array_room_keep_their_figure():
    head = "[global]\nfilename=/dev/md0\ndirect=1\nioengine=psync\nrw=randread\nbs=4k\n"
    alone = _predicted(head + "[solo]\n")["solo"]
    both = _predicted(head + "[a]\n[b]\n")
    assert both["a"].mb_s == pytest.approx(alone.mb_s) and both["a"].binding == alone.binding


@pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed (scripts/dev.sh setup installs it)")
def test_validate_runs_sections_without_a_stonewall_at_the_same_time(tmp_path):
    """One fio run for both sections, each its own reporting group, overlapping in time: the run
    lasts less than their runtimes added up. With a stonewall, one run each."""
    from runners.fio.jobs import Timing
    from runners.fio.result import objects
    from runners.validate.suite import validate

    target, out = tmp_path / "target", tmp_path / "report"
    target.mkdir()
    fast = Timing(runtime_s=3, ss_duration_s=1, ss_ramp_s=0, ss_slope_pct=50.0)
    report = validate(str(target), jobs=[parse_job_file(TWO)], timing=fast, file_size=16 * 1024**2, report_dir=str(out))
    first, second = report.workloads
    assert first.run == second.run != "" and first.job_file == second.job_file
    assert "[first]" in first.job_file and "[second]" in first.job_file and "stonewall" not in first.job_file
    assert report.grouping == "sections run together: first, second"
    [ran] = [p for p in out.glob("*.json") if p.name != "report.json"]
    jobs = {j["jobname"]: j for j in objects(ran.read_text())[-1]["jobs"]}
    assert set(jobs) == {"first", "second"} and jobs["first"]["groupid"] != jobs["second"]["groupid"]
    assert all(j["job_runtime"] >= 2900 for j in jobs.values())
    assert first.elapsed_s < sum(j["job_runtime"] for j in jobs.values()) / 1000
    assert first.figures and second.figures and first.figures.iops > 0 and second.figures.iops > 0

    walled = validate(str(target), jobs=[parse_job_file(TWO + "stonewall\n")], timing=fast, file_size=16 * 1024**2)
    assert [w.run for w in walled.workloads] == ["", ""]
    assert walled.grouping == "sections run one after another: first; then second (stonewall)"


def test_predict_says_in_one_line_how_the_sections_were_grouped(tmp_path, capsys):
    job = tmp_path / "pod.fio"
    job.write_text(TWO + "[third]\nstonewall\n")
    assert main(["predict", "--job", str(job), "--no-host-cpu"]) == 0
    out = capsys.readouterr().out
    assert f"{job}: sections run together: first, second; then third (stonewall)" in " ".join(out.split())
    assert "stonewall ignored" not in out
    assert main(["predict", "--job", str(job), "--no-host-cpu", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["job_grouping"] == [f"{job}: sections run together: first, second; then third (stonewall)"]


def test_two_sections_of_one_name_both_share():
    from planners.example import example_pod
    from planners.perf.concurrent import predict_job_file
    from planners.perf.predict import geometry_for_speed

    plan = example_pod()
    head = "[global]\nfilename=/dev/md0\ndirect=1\nioengine=libaio\nrw=read\nbs=1m\niodepth=64\n"
    both = predict_job_file(plan, geometry_for_speed(plan), parse_job_file(head + "[same]\n[same]\n"))
    assert [p.binding for p in both] == ["sections at once"] * 2
