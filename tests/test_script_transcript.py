"""The build and grow scripts keep their own transcript beside them (SCRIPT.log): one record per
command they run, or in a dry run would run, for the administrator who reads it afterwards."""

from __future__ import annotations

import re
import subprocess

from planners.script.preamble import PREAMBLE
from runners.probes.loopdev import sparse_loops
from tests.script_helpers import assert_clean_script
from tests.test_script import MiB, _need_root_tools, _run_script, _script_for

RECORD = re.compile(
    r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ) (dry-run edit:|dry-run|edit:|run exit=(\d+) (\d+\.\d{3})s) (.*)$"
)


def test_the_dry_run_writes_its_transcript_beside_the_script(tmp_path):
    _need_root_tools()
    with sparse_loops([64 * MiB] * 3) as devs:
        path = _script_for(devs, tmp_path)
        dry = _run_script(path)
        assert dry.returncode == 0, dry.stderr
    lines = (tmp_path / "build.sh.log").read_text().splitlines()
    assert lines[0].startswith("# ") and lines[0].endswith(f"dry run of {path}")
    records = [m for m in map(RECORD.match, lines[1:]) if m]
    assert len(records) == len(lines) - 1  # every line after the header is one record
    printed = [line[2:] for line in dry.stdout.splitlines() if line.startswith("+ ")]
    # The transcript holds each command the dry run printed, shell-quoted the same way, in order, and
    # each file or sysfs value a run would change (mdadm.conf, fstab, stripe_cache_size, the udev rule).
    assert [m.group(5) for m in records] == printed
    assert [m.group(5).split()[0] for m in records if m.group(2) == "dry-run"] == [
        "mdadm",
        "mke2fs",
        "mkdir",
        "mount",
        "blockdev",
    ]
    edits = [m.group(5) for m in records if m.group(2) == "dry-run edit:"]
    assert [e.split()[-1] for e in edits] == [
        "/etc/mdadm/mdadm.conf",
        "/etc/fstab",
        "/dev/md/md0>/md/stripe_cache_size",
        "/etc/udev/rules.d/65-podplan-guardtest.rules",
    ]
    # A second run appends: the first run's records are still there.
    _run_script(path, "--help")
    assert (tmp_path / "build.sh.log").read_text().splitlines()[: len(lines)] == lines


def test_a_command_run_for_real_is_recorded_with_status_time_and_stderr(tmp_path):
    script = tmp_path / "steps.sh"
    text = "\n".join(
        [
            "#!/usr/bin/env bash",
            "set -euo pipefail",
            "export LC_ALL=C",
            "PLAN_NAME=t",
            PREAMBLE,
            "run sh -c 'echo made it; echo careful >&2; sleep 0.2'",
            "run sh -c 'echo first >&2; echo it broke >&2; exit 3' || say \"went on after $?\"",
            "",
        ]
    )
    assert_clean_script(script, text)
    out = subprocess.run(["bash", str(script), "--run"], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["made it", "went on after 3"]
    assert out.stderr.splitlines() == ["careful", "first", "it broke"]  # still shown, as without the transcript
    lines = (tmp_path / "steps.sh.log").read_text().splitlines()
    assert lines[0].endswith(f" run of {script}")
    ok, failed = RECORD.match(lines[1]), RECORD.match(lines[3])
    assert ok and failed, lines
    assert ok.group(3) == "0" and 0.2 <= float(ok.group(4)) < 10 and ok.group(5).startswith("sh -c ")
    assert lines[2] == "  stderr: careful"
    assert failed.group(3) == "3" and lines[4:] == ["  stderr: first", "  stderr: it broke"]


def test_a_transcript_that_cannot_be_written_stops_nothing(tmp_path):
    script = tmp_path / "steps.sh"
    script.write_text("\n".join(["set -euo pipefail", "PLAN_NAME=t", PREAMBLE, "run true", "say done", ""]))
    (tmp_path / "steps.sh.log").mkdir()  # a directory where the log would go
    out = subprocess.run(["bash", str(script), "--run"], capture_output=True, text=True, timeout=30)
    log = tmp_path / "steps.sh.log"
    assert (out.returncode, out.stderr) == (0, "")
    assert out.stdout == f"note: no transcript this time: {log} is not a regular file\ndone\n"


def test_a_run_records_the_fstab_line_it_wrote_not_the_placeholder(tmp_path):
    """A real run of a one-disk ext4 plan on a loop device, every /etc file it touches moved under tmp_path:
    the transcript's fstab edit is the line in the fstab, with the filesystem's UUID."""
    import os

    from planners.compute import compute
    from planners.models import DiskSet, Lvm, Plan
    from planners.script.build import build_script

    _need_root_tools()
    mnt = tmp_path / "mnt"
    etc = tmp_path / "etc"
    (etc / "udev" / "rules.d").mkdir(parents=True)
    fstab = etc / "fstab"
    fstab.write_text("")
    with sparse_loops([64 * MiB]) as devs:
        plan = Plan(
            name="transcript",
            disks=[DiskSet(count=1, size=64 * MiB, logical_sector=512, physical_sector=512, devices=devs)],
            groups=[],
            lvm=Lvm(enabled=False),
            filesystem={"type": "ext4", "mount_point": str(mnt)},
        )
        text = build_script(plan, compute(plan)).replace("/etc/", f"{etc}/")
        path = tmp_path / "build.sh"
        assert_clean_script(path, text)
        try:
            p = _run_script(str(path), "--run", "--yes")
            assert p.returncode == 0, p.stdout + p.stderr
        finally:
            if os.path.ismount(mnt):
                subprocess.run(["umount", str(mnt)], check=False)
    (written,) = fstab.read_text().splitlines()
    assert written.startswith("UUID=") and "<uuid of" not in written and f" {mnt} ext4 " in written
    edits = [m.group(5) for m in map(RECORD.match, (tmp_path / "build.sh.log").read_text().splitlines()) if m]
    fstab_edits = [e for e in edits if e.endswith(f">> {fstab}")]
    assert len(fstab_edits) == 1 and "<uuid of" not in fstab_edits[0]
    assert (
        subprocess.run(
            ["bash", "-c", fstab_edits[0].removesuffix(f" >> {fstab}")], capture_output=True, text=True
        ).stdout
        == written + "\n"
    )
