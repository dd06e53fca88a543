"""`podplan grow`: before -> after for every figure, the steps, JSON, --save/--to round trip, the
script file; bad input is one line and exit status 2 (run as the user runs it, in a subprocess)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from app.shared.planfile import load_plan
from planners.grow import GrowRequest, growth_between, target_plan

RAID10_FAR = """
name = "far"
[[disks]]
count = 4
size = "4TB"
[[groups]]
level = 10
layout = "f2"
members = 4
"""

RAID5 = """
name = "r5"
[[disks]]
count = 5
size = "4TB"
[[groups]]
level = 5
members = 5
[filesystem]
type = "ext4"
"""


def podplan(*args: str, cwd=None, umask: int = -1) -> subprocess.CompletedProcess:
    env = {**os.environ, "COLUMNS": "200"}
    return subprocess.run(
        [sys.executable, "-m", "app.cli.main", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
        env=env,
        umask=umask,
    )


def test_grow_shows_every_figure_before_and_after():
    res = podplan("grow", "--add-disks", "1")
    assert res.returncode == 0, res.stderr
    from planners.example import example_pod

    p = example_pod()
    g = growth_between(p, target_plan(p, GrowRequest(add_disks=1)))
    for v in (
        g.arrays[0].array_bytes_before,
        g.arrays[0].array_bytes_after,
        g.lv_bytes_before,
        g.lv_bytes_after,
        g.df_size_bytes_before,
        g.df_size_bytes_after,
        g.df_available_bytes_before,
        g.df_available_bytes_after,
    ):
        assert f"{v:,}" in res.stdout
    for needle in (
        "backup file: not needed",
        "reshape: about",
        "limited by",
        "Alignment after the growth",
        "mdadm --grow /dev/md/md2 --raid-devices=16",
        "pvresize /dev/md/md2",
        "xfs_growfs /srv/pod45",
    ):
        assert needle in res.stdout, needle


def test_both_modes_are_shown_where_both_work():
    res = podplan("grow", "--add-disks", "15")
    assert res.returncode == 0, res.stderr
    assert "grow by reshape" in res.stdout and "also possible: --mode new-array" in res.stdout


def test_json_and_save_and_to_round_trip(tmp_path):
    res = podplan(
        "grow",
        "--add-disks",
        "2",
        "--json",
        "--save",
        str(tmp_path / "new.toml"),
        "--script",
        str(tmp_path / "grow.sh"),
    )
    assert res.returncode == 0, res.stderr
    data = json.loads(res.stdout)
    g = data["growth"]
    assert g["mode"] == "reshape" and g["arrays"][0]["members_after"] == 17
    assert g["df_available_bytes_after"] > g["df_available_bytes_before"]
    assert os.access(tmp_path / "grow.sh", os.X_OK)
    assert (tmp_path / "grow.sh").read_text().startswith("#!/usr/bin/env bash")
    assert load_plan(tmp_path / "new.toml").groups[-1].members == 17
    (tmp_path / "old.toml").write_text(
        subprocess.run([sys.executable, "-m", "app.cli.main", "example"], capture_output=True, text=True).stdout
    )
    again = podplan("grow", str(tmp_path / "old.toml"), "--to", str(tmp_path / "new.toml"), "--json")
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["growth"] == g
    refused = podplan("grow", "--add-disks", "2", "--save", str(tmp_path / "new.toml"))
    assert refused.returncode == 2 and "already exists" in refused.stderr


def test_saved_files_take_the_umask_as_any_new_file_does(tmp_path):
    """A grown layout for the team to read is 0644 under umask 022, not mkstemp's 0600; the script 0755."""
    res = podplan(
        "grow",
        "--add-disks",
        "2",
        "--save",
        str(tmp_path / "new.toml"),
        "--script",
        str(tmp_path / "grow.sh"),
        umask=0o022,
    )
    assert res.returncode == 0, res.stderr
    assert oct((tmp_path / "new.toml").stat().st_mode & 0o7777) == oct(0o644)
    assert oct((tmp_path / "grow.sh").stat().st_mode & 0o7777) == oct(0o755)
    res = podplan("grow", "--add-disks", "2", "--save", str(tmp_path / "private.toml"), umask=0o077)
    assert oct((tmp_path / "private.toml").stat().st_mode & 0o7777) == oct(0o600)


def test_raid5_to_raid6(tmp_path):
    (tmp_path / "r5.toml").write_text(RAID5)
    res = podplan("grow", str(tmp_path / "r5.toml"), "--add-disks", "1", "--to-level", "6")
    assert res.returncode == 0, res.stderr
    assert "md0 level" in res.stdout and "RAID6" in res.stdout
    assert "--level=6" in res.stdout and "tune2fs" not in res.stdout  # same data disks: the stripe is unchanged


@pytest.mark.parametrize(
    "args,needle",
    [
        (["grow", "{far}", "--add-disks", "2"], "RAID10 far layout (f2) cannot be reshaped"),
        (["grow", "--add-disks", "1", "--size", "1TB"], "added disks are too small"),
        (["grow"], "nothing to grow"),
        (["grow", "--add-disks", "-1"], "greater than or equal to 0"),
        (["grow", "--add-disks", "2", "--devices", "/dev/sdx"], "2 disks to add but 1 device paths given"),
        (["grow", "--add-disks", "1", "--devices", "/dev/sdx;reboot"], "not allowed"),
        (["grow", "--add-disks", "1", "--group", "md7"], "no md array named 'md7'"),
        (["grow", "--add-disks", "1", "--to-level", "5"], "RAID6 to RAID5"),
        (["grow", "--add-disks", "3", "--mode", "new-array"], "takes 15 disks"),
        (["grow", "--add-disks", "1", "--to", "{far}"], "not both"),
        (["grow", "--add-disks", "1", "--size", "2XB"], "2XB"),
        (["grow", "--to", "{shrunk}"], "fewer arrays"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path, args, needle):
    from app.shared.planfile import save_plan
    from planners.example import example_pod

    (tmp_path / "far.toml").write_text(RAID10_FAR)
    pod = example_pod()
    save_plan(pod.model_copy(update={"groups": pod.groups[:2]}), tmp_path / "shrunk.toml")
    argv = [a.format(far=tmp_path / "far.toml", shrunk=tmp_path / "shrunk.toml") for a in args]
    res = podplan(*argv)
    assert res.returncode == 2, res.stdout
    assert res.stderr.count("\n") == 1 and res.stderr.startswith("podplan: "), res.stderr
    assert needle in res.stderr
    assert "Traceback" not in res.stderr


@pytest.mark.parametrize("extra", [[], ["--json"], ["--mode", "new-array"]])
def test_a_btrfs_on_md_is_refused_in_one_line_not_a_traceback(tmp_path, extra):
    """Its growth after a reshape would be btrfs resize's, which the md growth figures (XFS, ext4) are not."""
    (tmp_path / "bmd.toml").write_text(podplan("example", "btrfsmd").stdout)
    res = podplan("grow", str(tmp_path / "bmd.toml"), "--add-disks", "2", *extra)
    assert res.returncode == 2 and "Traceback" not in res.stderr, res.stderr
    assert res.stderr.startswith("podplan: growing a btrfs on md or LVM is not planned yet")
