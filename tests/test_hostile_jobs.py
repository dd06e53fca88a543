"""Hostile fio job files and plans through the real command line: thousands of sections, section
names fio would make unsafe files from, lines fio splits, and a sweep over more disks than one md
array holds. Each ends in a safe answer or one line and exit 2, never a traceback or a hang."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from planners.errors import PlanError
from planners.example import example_pod
from planners.layouts.sweep import MAX_MEMBERS, TOO_WIDE, layouts, sweep
from planners.models import DiskSet, MdGroup, Plan
from planners.perf.concurrent import predict_job_file
from planners.perf.jobfile import parse_job_file
from planners.perf.jobtext import MAX_JOBS, MAX_LINE_BYTES, MAX_NAME_BYTES, MAX_TEXT_CHARS, name_fault
from planners.perf.predict import geometry_for_speed
from runners.fio.jobs import Target, Timing, user_workload

ROOT = Path(__file__).resolve().parent.parent
HEAD = "[global]\nioengine=libaio\ndirect=1\nbs=4k\nrw=randread\nsize=1g\n"  # six lines


def podplan(*argv: str, timeout: float = 120, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """podplan as a user runs it: its own process, with a timeout so a hang fails the test."""
    return subprocess.run(
        [sys.executable, "-m", "app.cli.main", *argv],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd or ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


def one_line(r: subprocess.CompletedProcess[str]) -> str:
    """The refusal: exit 2, nothing on stdout, one line on stderr and no traceback."""
    assert "Traceback" not in r.stderr, r.stderr
    assert r.returncode == 2 and r.stdout == "" and r.stderr.count("\n") == 1, (r.returncode, r.stdout, r.stderr)
    return r.stderr


def sections(n: int, extra: str = "") -> str:
    return HEAD + extra + "".join(f"[job{i}]\n" for i in range(n))


def test_ten_thousand_sections_are_refused_by_count_at_once(tmp_path):
    job = tmp_path / "many.fio"
    job.write_text(sections(10_000))
    start = time.perf_counter()
    err = one_line(podplan("predict", "--no-host-cpu", "--job", str(job), timeout=60))
    assert time.perf_counter() - start < 30
    line = 6 + MAX_JOBS + 1  # the first section past fio's limit
    assert f"many.fio:{line}: more than 4,088 job sections: fio runs at most 4,088 jobs" in err


def test_as_many_sections_as_fio_runs_are_predicted_in_seconds(tmp_path):
    job = tmp_path / "most.fio"
    job.write_text(sections(MAX_JOBS))
    start = time.perf_counter()
    r = podplan("predict", "--no-host-cpu", "--job", str(job), timeout=90)
    took = time.perf_counter() - start
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    assert "job0 +4,087 alike" in r.stdout
    assert "job0 +4,087 alike: job1, job2, job3, job4, job5 and 4,082 more predict the same figures" in r.stdout
    assert "sections run together: job0, job1, job2, job3, job4 and 4,083 more" in r.stdout
    assert took < 30, took  # about 3 s on a quiet machine; the quadratic notes took minutes


def test_numjobs_clones_count_against_fios_limit(tmp_path):
    job = tmp_path / "clones.fio"
    job.write_text(sections(MAX_JOBS // 2 + 1, "numjobs=2\n"))
    err = one_line(podplan("predict", "--no-host-cpu", "--job", str(job)))
    assert "clones.fio: 4,090 jobs with numjobs' clones: fio runs at most 4,088 jobs" in err


def test_a_line_longer_than_fio_reads_is_refused(tmp_path):
    job = tmp_path / "long.fio"
    job.write_text("[a]\nrw=read\ndescription=" + "x" * MAX_LINE_BYTES + "\n")
    err = one_line(podplan("predict", "--no-host-cpu", "--job", str(job)))
    assert f"long.fio:3: a line of {MAX_LINE_BYTES + 12:,} bytes: fio reads at most 8191 a line" in err


HOSTILE = [
    ("[global]\nrw=read\n[../../x]\n", "h.fio:3: section [../../x] refused: its name holds '/' or '..'"),
    ("[/etc/foo]\nrw=read\n", "h.fio:1: section [/etc/foo] refused: its name holds '/' or '..'"),
    ("[..]\nrw=read\n", "h.fio:1: section [..] refused: its name holds '/' or '..'"),
    ("[a\x00b]\nrw=read\n", r"h.fio:1: section [a\x00b] refused: its name holds a control"),
    ("[a\x1bb]\nrw=read\n", r"h.fio:1: section [a\x1bb] refused: its name holds a control"),
    ("[a\rb]\nrw=read\n", "h.fio:1: "),  # the reader may end the line at the \r: refused either way
    (
        "[" + "n" * 300 + "]\nrw=read\n",
        "h.fio:1: section ["
        + "n" * 40
        + "... (300 bytes)] refused: its name is 300 bytes long: fio keeps the first 254",
    ),
]


@pytest.mark.parametrize(("text", "needle"), HOSTILE)
def test_hostile_section_names_are_refused_by_predict(tmp_path, text, needle):
    (tmp_path / "h.fio").write_text(text, newline="")
    err = one_line(podplan("predict", "--no-host-cpu", "--job", "h.fio", cwd=tmp_path))
    assert err.startswith("podplan: ") and needle in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["h.fio"]


@pytest.mark.parametrize(("text", "needle"), HOSTILE)
def test_hostile_section_names_are_refused_by_validate_before_fio_runs(tmp_path, text, needle):
    (tmp_path / "h.fio").write_text(text, newline="")
    target = tmp_path / "target"
    target.mkdir()
    err = one_line(podplan("validate", "--job", "h.fio", str(target), cwd=tmp_path, timeout=60))
    assert needle in err
    assert list(target.iterdir()) == [] and sorted(p.name for p in tmp_path.iterdir()) == ["h.fio", "target"]


@pytest.mark.parametrize(
    ("name", "fault"),
    [
        ("job1", ""),
        ("rand read 4k (70:30)", ""),
        ("é" * (MAX_NAME_BYTES // 2), ""),  # fio counts bytes: 127 two-byte letters fit
        ("n" * MAX_NAME_BYTES, ""),
        ("n" * (MAX_NAME_BYTES + 1), "is 255 bytes long"),
        ("é" * (MAX_NAME_BYTES // 2 + 1), "is 256 bytes long"),
        ("a/b", "'/' or '..'"),
        ("a..b", "'/' or '..'"),
        (".", "'/' or '..'"),
        ("tab\there", "control"),
        ("nl\nhere", "control"),
        ("c1\x85here", "control"),
        ("line\u2028sep", "control"),
        ("bidi\u202eflip", "control"),  # a format character: printed, it reorders what follows
        ("a]b", "bracket"),
    ],
)
def test_the_job_name_rule(name, fault):
    got = name_fault(name)
    assert (fault in got and got) if fault else got == ""


def test_a_section_whose_name_starts_with_global_sets_defaults_as_fio_reads_it():
    # fio: global = !strncmp(name, "global", 6)
    jf = parse_job_file("[globals]\nrw=write\n[a]\n")
    assert [w.name for w in jf.workloads] == ["a"] and jf.workloads[0].rw == "write"


def test_lines_and_the_text_are_bounded():
    ok = "[a]\nrw=read\n;" + "x" * (MAX_LINE_BYTES - 1) + "\n"
    assert parse_job_file(ok).workloads
    with pytest.raises(PlanError, match="a line of 8,192 bytes"):
        parse_job_file(ok.replace(";", ";x"))
    with pytest.raises(PlanError, match="podplan reads job files of up to"):
        parse_job_file("[a]\n" + ("; padding\n" * (MAX_TEXT_CHARS // 10 + 1)))


def test_the_notes_of_sections_at_once_stay_a_line():
    """Each section's note names six of the others and counts the rest: naming all of them made
    the notes of n sections n^2 long (8,000 sections: 600 MB)."""
    plan = example_pod()
    jf = parse_job_file(sections(500))
    preds = predict_job_file(plan, geometry_for_speed(plan), jf)
    assert len(preds) == 500 and all(p.binding == "sections at once" for p in preds)
    assert all(len(p.terms[0].note) < 300 for p in preds)
    assert "runs at once with job1, job2, job3, job4, job5 and 494 more" in preds[0].terms[0].note


def test_a_verifying_section_leaves_no_state_file_named_after_it(tmp_path):
    """fio saves a verifying writer's state as local-NAME-N-verify.state where it runs; validate
    turns that off, so nothing named after a section lands in the directory podplan runs in."""
    if shutil.which("fio") is None:
        pytest.skip("fio is not installed (scripts/dev.sh setup installs it)")
    (w,) = parse_job_file("[v]\nrw=write\nbs=4k\nsize=1m\nverify=crc32c\n").workloads
    target = Target(path=str(tmp_path / "data"), kind="file", size_bytes=1024 * 1024, direct=False, ioengine="psync")
    job = user_workload(w, target, Timing(runtime_s=1, ss_duration_s=1, ss_ramp_s=0, ss_slope_pct=2.0)).job
    assert "verify_state_save=0" in job.text
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    (tmp_path / "v.fio").write_text(job.text)
    subprocess.run(["fio", "--output-format=json", str(tmp_path / "v.fio")], cwd=cwd, timeout=120, capture_output=True)
    assert list(cwd.iterdir()) == []


def pod(n: int, groups: int) -> Plan:
    members = n // groups
    return Plan(
        name="big",
        disks=[DiskSet(count=n, size=2_000_398_934_016)],
        groups=[MdGroup(name=f"md{i}", level=6, members=members) for i in range(groups)],
    )


def test_layouts_past_mds_members_are_counted_not_built():
    skips: dict[str, int] = {}
    built = layouts(pod(1024, 64), skips)
    assert built and all(g.members <= MAX_MEMBERS for _, groups, _ in built for g in groups)
    # one array (1 chunk size x 2, RAID0 once) and two arrays (x2 LVM modes) of every level that
    # cannot be 384 members or fewer
    assert skips[TOO_WIDE] > 0 and set(skips) == {TOO_WIDE}


def test_sweep_of_1024_disks_in_64_arrays_ranks_what_it_can_and_says_what_it_skipped():
    s = sweep(pod(1024, 64), max_loss=1.0, max_rebuild_loss=1.0)
    assert s.rows and s.skipped == sum(s.skips.values()) and s.skips[TOO_WIDE]
    assert s.skipped_line.startswith(f"{s.skipped} layouts skipped: {s.skips[TOO_WIDE]} {TOO_WIDE}")


def test_sweep_cli_on_1024_disks_and_64_arrays(tmp_path):
    argv = ["sweep", "--disks", "1024", "--disk-size", "2TB", "--groups", "64", "--level", "6", "--no-host-cpu"]
    r = podplan(*argv, "--all", "--top", "5", timeout=300)
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    assert len(re.findall(r"^ *\d+[*~! ]* +(?:\d+x )?(?:RAID|no md)", r.stdout, re.MULTILINE)) == 5
    skip = re.search(
        r"^(\d+) layouts skipped: (\d+) with more than 384 members in an array \(md's limit\).*$",
        r.stdout,
        re.MULTILINE,
    )
    assert skip and int(skip.group(1)) >= int(skip.group(2)) > 0
    doc = json.loads(podplan(*argv, "--json", timeout=300).stdout)
    assert doc["rows"] and doc["skipped"] == int(skip.group(1)) == sum(doc["skips"].values())
