"""Hostile files, through the real command line: every file podplan writes refuses an existing file
or a planted link (and with --force replaces the link, never what it points to); every file it
reads is a regular file under a size cap. Each case ends in one line on stderr and a non-zero exit,
never a traceback or a hang, and leaves the file outside podplan's own files as it was."""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from runners.files import DOCUMENT_CAP

ROOT = Path(__file__).resolve().parent.parent
HOSTILE_TIMEOUT_S = 30  # a hang (a FIFO waited on) fails the test instead of blocking the suite
KEPT = '{"title": "t", "summary": ["s"], "axes": [], "curves": []}'


def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "app.cli.main", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=HOSTILE_TIMEOUT_S,
        env={**os.environ, **(env or {})},
    )


def refused(out: subprocess.CompletedProcess[str], says: str) -> None:
    """Exit 2, exactly one line on stderr that says `says`, no traceback."""
    assert out.returncode == 2, (out.returncode, out.stderr)
    assert "Traceback" not in out.stderr
    assert out.stderr.count("\n") == 1 and out.stderr.startswith("podplan: "), out.stderr
    assert says in out.stderr, out.stderr


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A file outside podplan's outputs, that a planted link points to (as /etc/something would)."""
    f = tmp_path / "outside" / "precious"
    f.parent.mkdir()
    f.write_text("keep me\n")
    return f


def plant(link: Path, target: Path) -> Path:
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(target)
    return link


def untouched(f: Path) -> None:
    assert f.read_text() == "keep me\n"


# -- outputs -------------------------------------------------------------------------------------


def test_predict_html_refuses_a_link_and_with_force_replaces_the_link_itself(tmp_path: Path, outside: Path) -> None:
    link = plant(tmp_path / "out" / "report.html", outside)
    args = ("predict", "--no-host-cpu", "--scale", "numjobs=1,2", "--html", str(link))
    refused(cli(*args), f"{link}: already exists (pass --force to overwrite)")
    untouched(outside)
    assert cli(*args, "--force").returncode == 0
    untouched(outside)
    assert not link.is_symlink() and link.read_text().startswith("<!DOCTYPE html>")


def test_predict_html_refuses_an_existing_file(tmp_path: Path) -> None:
    page = tmp_path / "page.html"
    page.write_text("mine\n")
    refused(
        cli("predict", "--no-host-cpu", "--scale", "numjobs=1", "--html", str(page)),
        "already exists (pass --force to overwrite)",
    )
    assert page.read_text() == "mine\n"


def test_report_dir_refuses_a_planted_page_link(tmp_path: Path, outside: Path) -> None:
    (tmp_path / "rep").mkdir()
    (tmp_path / "rep" / "curves.json").write_text(KEPT)
    link = plant(tmp_path / "rep" / "report.html", outside)
    refused(cli("report", str(tmp_path / "rep")), f"{link}: already exists")
    untouched(outside)
    assert cli("report", str(tmp_path / "rep"), "--force").returncode == 0
    untouched(outside)
    assert not link.is_symlink() and "<!DOCTYPE html>" in link.read_text()


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("{", "not the curves of a kept report: Invalid JSON"),
        ("[]", "not the curves of a kept report"),
        ('{"title": "t"}', "summary: required setting is missing"),
        ('{"title": "t", "summary": [], "curves": [{"section": 1}]}', "curves.0.section"),
        ('{"title": "t", "summary": [], "curves": [{"points": "x"}]}', "not the curves of a kept report"),
        ("[" * 100_000, "not the curves of a kept report"),
        (KEPT[:-1] + ', "bars": [{"workload": "w", "metric": "furlongs"}]}', "bars.0.metric"),
    ],
    ids=["truncated", "a list", "missing key", "wrong type", "points not a list", "deep nesting", "bad unit"],
)
def test_report_dir_refuses_a_malformed_curves_json(tmp_path: Path, text: str, says: str) -> None:
    (tmp_path / "curves.json").write_text(text)
    refused(cli("report", str(tmp_path), "-o", str(tmp_path / "p.html")), says)
    assert not (tmp_path / "p.html").exists()


def test_script_output_refuses_a_link_and_with_force_replaces_the_link(tmp_path: Path, outside: Path) -> None:
    link = plant(tmp_path / "build.sh", outside)
    refused(cli("script", "-o", str(link)), f"{link}: already exists (pass --force to overwrite)")
    untouched(outside)
    assert cli("script", "-o", str(link), "--force").returncode == 0
    untouched(outside)
    assert not link.is_symlink() and link.read_text().startswith("#!")


def test_grow_save_refuses_a_link(tmp_path: Path, outside: Path) -> None:
    link = plant(tmp_path / "grown.toml", outside)
    plan = tmp_path / "pod.toml"
    plan.write_text(cli("example").stdout)
    refused(cli("grow", str(plan), "--add-disks", "15", "--save", str(link)), "already exists")
    untouched(outside)


def test_validate_report_refuses_a_linked_or_used_directory_before_fio_runs(tmp_path: Path, outside: Path) -> None:
    target = tmp_path / "t"
    target.mkdir()
    link = plant(tmp_path / "rep", outside.parent)
    refused(cli("validate", str(target), "--report", str(link)), f"{link}: is a symbolic link")
    used = tmp_path / "used"
    used.mkdir()
    plant(used / "report.html", outside)
    refused(cli("validate", str(target), "--report", str(used)), f"{used}: already holds files")
    refused(cli("validate", str(target), "--scale", "numjobs=1", "--report", str(used)), "already holds files")
    untouched(outside)
    assert sorted(p.name for p in outside.parent.iterdir()) == ["precious"]


def test_validate_names_its_files_by_index_never_by_a_section(
    tmp_path: Path, outside: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A section named [report] and a planted report.html link in a directory reused with
    --force: every file stays in the run directory, and the link is replaced, not followed. (Run
    in-process, as test_validate_scale does, for the shortened suite timing.)"""
    from app.cli.main import main
    from runners.fio.jobs import Timing

    monkeypatch.setattr("runners.fio.jobs.QUICK", Timing(runtime_s=2, ss_duration_s=1, ss_ramp_s=0, ss_slope_pct=50.0))
    target, rep = tmp_path / "t", tmp_path / "a" / "b" / "rep"
    target.mkdir()
    rep.mkdir(parents=True)
    link = plant(rep / "report.html", outside)
    job = tmp_path / "j.fio"
    # Names with '/' or '..' are refused outright (test_hostile_jobs); a name fio takes can still
    # collide with podplan's own files: a section [report] named by itself would replace report.json.
    job.write_text("[global]\nioengine=psync\nsize=4m\nruntime=1\n[report]\nrw=randread\nbs=4k\n")
    assert main(["validate", str(target), "--job", str(job), "--report", str(rep), "--force", "--json"]) in (0, 1)
    doc = json.loads(capsys.readouterr().out)
    assert doc["report"]["workloads"][0]["name"] == "report"  # the name kept as data
    assert sorted(p.name for p in rep.iterdir()) == [
        "curves.json",
        "job-01.fio",
        "job-01.json",
        "report.html",
        "report.json",
    ]
    assert not list(tmp_path.rglob("report.fio"))
    untouched(outside)
    assert not link.is_symlink()


# -- inputs --------------------------------------------------------------------------------------


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    f = tmp_path / "fifo"
    os.mkfifo(f)
    return f


# (argv before the file, the file's kind, how the line names the file: --kernel-log's reasons
# read as a source's, "PATH absent", "PATH is a FIFO")
READERS = {
    "plan": (("plan",), "plan file", "{}: "),
    "job file": (("predict", "--no-host-cpu", "--job"), "job file", "{}: "),
    "kernel log": (("predict", "--kernel-log"), "kernel log", "--kernel-log: {} "),
}


@pytest.mark.parametrize("reader", READERS)
def test_a_fifo_is_refused_without_waiting(fifo: Path, reader: str) -> None:
    argv, what, named = READERS[reader]
    refused(cli(*argv, str(fifo)), named.format(fifo) + f"is a FIFO; a {what} is read from a regular file")


@pytest.mark.parametrize("reader", READERS)
def test_dev_zero_is_refused_without_reading(reader: str) -> None:
    argv, what, named = READERS[reader]
    refused(
        cli(*argv, "/dev/zero"),
        named.format("/dev/zero") + f"is a character device; a {what} is read from a regular file",
    )


@pytest.mark.parametrize("reader", ["plan", "job file"])
def test_a_file_past_the_cap_is_refused(tmp_path: Path, reader: str) -> None:
    argv, what, _ = READERS[reader]
    big = tmp_path / "big"
    with open(big, "wb") as f:
        f.truncate(DOCUMENT_CAP + 1)  # sparse: the size is what is refused, before a byte is read
    refused(cli(*argv, str(big)), f"{big}: 8 MiB, more than a {what} may hold (8 MiB)")


def test_a_kernel_log_past_its_cap_is_refused(tmp_path: Path) -> None:
    from runners.host.kernel_log import KERN_LOG_TAIL_BYTES

    big = tmp_path / "kern.log"
    with open(big, "wb") as f:
        f.truncate(KERN_LOG_TAIL_BYTES + 1)
    refused(cli("predict", "--kernel-log", str(big)), "more than a kernel log may hold (32 MiB)")


def test_deeply_nested_toml_is_one_line(tmp_path: Path) -> None:
    deep = tmp_path / "deep.toml"
    deep.write_text("a=" + "[" * 100_000)
    refused(cli("plan", str(deep)), f"{deep}: not valid TOML (nested deeper than podplan reads)")


def test_deeply_nested_keymap_is_one_line(tmp_path: Path) -> None:
    from app.tui.keys import read_keymap
    from planners.errors import KeymapError

    deep = tmp_path / "keys.toml"
    deep.write_text("a=" + "[" * 100_000)
    with pytest.raises(KeymapError, match="not a TOML keymap"):
        read_keymap(deep)
    os.unlink(deep)
    os.mkfifo(deep)
    with pytest.raises(KeymapError, match="is a FIFO"):
        read_keymap(deep)


def test_a_plan_that_is_not_utf8_is_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_bytes(b'name = "\xff"\n')
    refused(cli("plan", str(bad)), f"{bad}: not a text file (byte 8 is not UTF-8)")


# -- the transcript ------------------------------------------------------------------------------


def test_a_transcript_link_is_refused(tmp_path: Path, outside: Path) -> None:
    link = plant(tmp_path / "commands.log", outside)
    refused(cli("--transcript", str(link), "plan"), f"--transcript {link}: is a symbolic link")
    untouched(outside)


def test_the_default_transcript_is_never_appended_through_a_link(tmp_path: Path, outside: Path) -> None:
    state = tmp_path / "state"
    plant(state / "podplan" / "commands.log", outside)
    out = cli("predict", env={"XDG_STATE_HOME": str(state)})  # reads the kernel log: runs dmesg, a record
    assert out.returncode == 0, out.stderr
    untouched(outside)


def test_the_transcript_is_private_and_rotated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    state = tmp_path / "state"
    assert cli("predict", env={"XDG_STATE_HOME": str(state)}).returncode == 0
    log = state / "podplan" / "commands.log"
    assert json.loads(log.read_text().splitlines()[0])["argv"]
    assert stat.S_IMODE(log.stat().st_mode) == 0o600

    from runners import transcript

    monkeypatch.setattr(transcript, "ROTATE_BYTES", 1000)
    transcript.use(log)
    try:
        for i in range(40):
            transcript.record([f"cmd{i}"], 0.0, 0.0, 0, "x" * 50)
    finally:
        transcript.use(None)
    names = sorted(p.name for p in log.parent.iterdir())
    assert names == ["commands.log", "commands.log.1", "commands.log.2"]
    assert all(p.stat().st_size <= 1000 for p in log.parent.iterdir())
    assert "cmd39" in log.read_text() and all(stat.S_IMODE(p.stat().st_mode) == 0o600 for p in log.parent.iterdir())


# -- the page ------------------------------------------------------------------------------------


def test_a_section_named_like_markup_cannot_break_the_page() -> None:
    from app.shared.curves import Curve, CurvePoint, curves_doc
    from app.shared.report_html import render

    name = "<!--<script></script>&"
    doc = curves_doc("t", ["s"], [], [Curve(name, "", "numjobs", "IOPS", [CurvePoint(1, 1.0, 10.0, "disks")])])
    page = render(doc)
    (data,) = re.findall(r'<script type="application/json" id="podplan-data">(.*?)</script>', page, re.S)
    assert "<" not in data and ">" not in data and "&" not in data
    assert "\\u003c!--\\u003cscript\\u003e\\u003c/script\\u003e\\u0026" in data
    assert json.loads(data)[0]["datasets"][0]["label"] == f"{name}: predicted"  # JSON.parse reads it back
    assert page.count("<script") == 3  # Chart.js, the data, the drawing: no element opened by the name


def test_rehearse_keep_refuses_a_used_or_linked_directory_before_the_vm(tmp_path: Path, outside: Path) -> None:
    used = tmp_path / "kept"
    used.mkdir()
    plant(used / "build.sh", outside)
    refused(cli("rehearse", "--keep", str(used)), f"{used}: already holds files; name a new or empty directory\n")
    link = plant(tmp_path / "keeplink", outside.parent)
    refused(cli("rehearse", "--keep", str(link)), f"{link}: is a symbolic link")
    untouched(outside)
