"""The grow script: valid bash, clean under shellcheck, every step in order, and its first check
refuses a system that is not the old plan (this host has no md arrays, so a dry run stops there).
The VM lab runs it to the end."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from planners.example import example_pod
from planners.grow import GrowRequest, growth_between, target_plan
from planners.models import DiskSet, Filesystem, Lvm, MdGroup, Plan
from planners.script.grow import grow_script
from planners.units import KiB
from tests.script_helpers import assert_clean_script

TB = 10**12
BY_ID = "/dev/disk/by-id/scsi-0QEMU_QEMU_HARDDISK_g-"


def _plan(level=6, members=6, *, lvm=False, fs="xfs", metadata="1.2", groups=1, devices=True, disk=2 * TB) -> Plan:
    n = members * groups
    return Plan(
        name="lab",
        disks=[DiskSet(count=n, size=disk, devices=[f"{BY_ID}{i}" for i in range(n)] if devices else [])],
        groups=[
            MdGroup(name=f"md{i}", level=level, members=members, chunk=512 * KiB, metadata=metadata)
            for i in range(groups)
        ],
        lvm=Lvm(enabled=lvm),
        filesystem=Filesystem(type=fs, mount_point="/srv/lab"),
    )


CASES = {
    "example-reshape": (example_pod(), GrowRequest(add_disks=1)),
    "example-new-array": (example_pod(), GrowRequest(add_disks=15, mode="new-array")),
    "xfs-no-lvm": (_plan(), GrowRequest(add_disks=2, devices=[f"{BY_ID}6", f"{BY_ID}7"])),
    "ext4-no-lvm": (_plan(fs="ext4"), GrowRequest(add_disks=2)),
    "ext4-lvm": (_plan(fs="ext4", lvm=True, groups=2, disk=TB // 2), GrowRequest(add_disks=1, group="md0")),
    "raid5-to-6-backup": (_plan(level=5, metadata="1.0"), GrowRequest(add_disks=1, to_level=6)),
}


def _script(old: Plan, req: GrowRequest) -> str:
    return grow_script(old, growth_between(old, target_plan(old, req)))


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_grow_script_is_valid_bash_and_shellcheck_clean(tmp_path, case):
    assert_clean_script(tmp_path / "grow.sh", _script(*case))


def test_steps_come_in_order_with_the_given_devices():
    old = _plan(lvm=True, groups=2)
    text = _script(old, GrowRequest(add_disks=1, group="md1", devices=[f"{BY_ID}12"]))
    order = [
        "expect_md /dev/md/md0 6 6 ",
        f"expect_member /dev/md/md1 {BY_ID}11",
        "expect_lv pod/data ",
        "expect_fs /srv/lab xfs /dev/pod/data ",
        f"MD_md1_ADDED=({BY_ID}12)",
        "\nconfirm\n",
        f"run mdadm --add /dev/md/md1 {BY_ID}12",
        "run mdadm --grow /dev/md/md1 --raid-devices=7",
        "wait_idle /dev/md/md1",
        "expect_size /dev/md/md1 ",
        "record_array /dev/md/md1",
        "run pvresize /dev/md/md1",
        "run lvextend --extents +100%FREE pod/data",
        "expect_size /dev/pod/data ",
        "run xfs_growfs /srv/lab",
        "  df -B1 /srv/lab\n",
    ]
    at = [text.index(s) for s in order]
    assert at == sorted(at)
    assert "--backup-file" not in text


def test_backup_file_only_when_mdadm_needs_it():
    text = _script(*CASES["raid5-to-6-backup"])
    assert "run mdadm --grow /dev/md/md0 --raid-devices=7 --level=6 --backup-file=/root/podplan-grow-md0.backup" in text


def test_ext4_gets_its_stripe_width_and_readahead_online():
    text = _script(*CASES["ext4-no-lvm"])
    assert "run tune2fs -E stride=128,stripe_width=768 /dev/md/md0" in text
    assert "run blockdev --setra" in text and "read_ahead_kb" in text
    assert text.index("run resize2fs /dev/md/md0") < text.index("run tune2fs")


def _run(text: str, tmp_path, *args: str) -> subprocess.CompletedProcess:
    path = tmp_path / "grow.sh"
    path.write_text(text)
    return subprocess.run(
        ["bash", str(path), *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin"},
    )


def test_help_and_unknown_option(tmp_path):
    text = _script(*CASES["xfs-no-lvm"])
    assert _run(text, tmp_path, "--help").returncode == 0
    bad = _run(text, tmp_path, "--frobnicate")
    assert bad.returncode == 2 and "unknown option" in bad.stderr


@pytest.mark.parametrize("args", [(), ("--run", "--yes")])
def test_a_system_that_is_not_the_plan_is_refused_before_anything_changes(tmp_path, args):
    if shutil.which("mdadm") is None:
        pytest.skip("mdadm is not installed: the check reads the arrays with it")
    res = _run(_script(*CASES["xfs-no-lvm"]), tmp_path, *args)
    assert res.returncode == 1
    assert "MISMATCH /dev/md/md0: no such array" in res.stdout
    assert "nothing is mounted on /srv/lab" in res.stdout
    assert "difference(s) from the plan; nothing was changed" in res.stderr
    assert "mdadm --add" not in res.stdout  # stopped before printing, let alone running, any change


def test_added_disks_pass_the_build_scripts_size_and_duplicate_guards(tmp_path):
    """The grow script checks its added disks with the build script's own guard: too small for the
    plan, or one disk under two paths, is refused before anything changes. This host has no md
    arrays, so the test lets the script past its check of the running system to reach that guard."""
    import os

    from runners.probes.loopdev import sparse_loops

    if os.geteuid() != 0 or (shutil.which("losetup") is None and not os.path.exists("/usr/sbin/losetup")):
        pytest.skip("the guard needs root and losetup to make loop devices")
    with sparse_loops([64 << 20]) as (dev,):
        alias = f"/dev/podplan-alias-{os.getpid()}-{os.path.basename(dev)}"
        os.symlink(dev, alias)
        try:
            text = _script(_plan(), GrowRequest(add_disks=2, devices=[dev, alias]))
            system_check = '[ "$MISMATCHES" -eq 0 ] || die'
            assert system_check in text
            res = _run(text.replace(system_check, ": ||"), tmp_path)
        finally:
            os.unlink(alias)
    assert res.returncode == 1
    for path in (dev, alias):
        assert f"REFUSED {path}: {64 << 20} bytes, smaller than the plan's disk of {2 * TB} bytes\n" in res.stdout
    assert f"REFUSED {alias}: the same device as {dev} (major:minor " in res.stdout
    assert "refusal(s); nothing was changed" in res.stderr
    assert "mdadm --add" not in res.stdout
