"""The build script's dry run against what a real host can hold: every collision and every bad path
ends in one `REFUSED` line naming it and why, all listed before the script stops; a run that stops
half-way says how to undo what it did; the transcript is never written through a link.

Real conditions where this host can make them (loop devices, a tmpfs mount, a VG made by LVM
itself under a private LVM_SYSTEM_DIR, /dev/md/NAME). The host kernel has no md, so no array can
be running: the `mdadm --detail --scan` answer is the one stub here (a fake mdadm first on PATH).
The host's /etc/fstab and mdadm.conf are never touched: the script's FSTAB and MDADM_CONF lines
are pointed at copies.
"""

from __future__ import annotations

import contextlib
import os
import pty
import select
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from planners.compute import compute
from planners.models import DiskSet, Plan
from planners.script.build import build_script
from planners.script.fstab import DEVICE_TIMEOUT
from planners.script.preamble import PREAMBLE
from runners.probes.loopdev import sparse_loops
from runners.probes.lvm import lvm_conf
from tests.script_helpers import assert_clean_script
from tests.test_script import MiB, _need_root_tools, _run_script, _signature

ENV = {**os.environ, "PATH": os.environ.get("PATH", "") + ":/usr/sbin:/sbin"}
TAG = f"hst{os.getpid() % 100000}"


def _script(tmp_path: Path, devs: list[str], *, fstab: str = "", mdadm_conf: str = "", **plan: object) -> str:
    """A RAID5 build script over `devs` whose fstab and mdadm.conf are files under tmp_path."""
    fields: dict = {
        "name": "guardtest",
        "disks": [DiskSet(count=len(devs), size=64 * MiB, logical_sector=512, physical_sector=512, devices=devs)],
        "groups": [{"level": 5, "members": len(devs), "chunk": 64 * 1024, "name": TAG}],
        "filesystem": {"type": "ext4", "mount_point": f"/srv/podplan-{TAG}"},
        **plan,
    }
    text = build_script(Plan(**fields), compute(Plan(**fields)))
    (tmp_path / "fstab").write_text(fstab)
    (tmp_path / "mdadm.conf").write_text(mdadm_conf)
    for name, path in (("FSTAB", "/etc/fstab"), ("MDADM_CONF", "/etc/mdadm/mdadm.conf")):
        assert f"\n{name}={path}\n" in text
        text = text.replace(f"\n{name}={path}\n", f"\n{name}={tmp_path / name.lower().replace('_', '.')}\n")
    path = tmp_path / "build.sh"
    assert_clean_script(path, text)
    return str(path)


def _refusals(p: subprocess.CompletedProcess) -> list[str]:
    """The REFUSED lines, after checking the script stopped before any change, saying so."""
    assert p.returncode == 1, p.stdout + p.stderr
    assert "nothing was changed" in p.stderr and "podplan: FAILED" not in p.stderr
    assert "\n== create" not in p.stdout
    return [line.strip() for line in p.stdout.splitlines() if line.startswith("  REFUSED ")]


@contextlib.contextmanager
def _mount_point(content: bool = False, mounted: bool = False) -> Iterator[str]:
    path = f"/srv/podplan-{TAG}"
    os.makedirs(path)
    try:
        if mounted:
            subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "podplan-test", path], check=True)
        if content:
            Path(path, "keep.txt").write_text("data\n")
        yield path
    finally:
        if mounted:
            subprocess.run(["umount", path], check=False)
        shutil.rmtree(path, ignore_errors=True)


def test_a_mount_point_already_mounted_is_refused(tmp_path):
    _need_root_tools()
    with sparse_loops([64 * MiB] * 3) as devs, _mount_point(mounted=True) as mp:
        refused = _refusals(_run_script(_script(tmp_path, devs)))
    assert refused == [f"REFUSED {mp}: already a mount point (findmnt --mountpoint {mp}: podplan-test tmpfs)"]


def test_a_mount_point_that_is_not_empty_is_refused(tmp_path):
    _need_root_tools()
    with sparse_loops([64 * MiB] * 3) as devs, _mount_point(content=True) as mp:
        refused = _refusals(_run_script(_script(tmp_path, devs)))
    assert refused == [f"REFUSED {mp}: not empty (holds keep.txt and maybe more): the mount would hide it"]


def test_an_empty_mount_point_and_a_free_host_pass(tmp_path):
    _need_root_tools()
    with sparse_loops([64 * MiB] * 3) as devs, _mount_point() as mp:
        p = _run_script(_script(tmp_path, devs))
    assert p.returncode == 0, p.stdout + p.stderr
    assert f"  ok      {mp}: an empty directory, not a mount point\n" in p.stdout
    assert f"  ok      /dev/md/{TAG}: no array of that name, running or in {tmp_path / 'mdadm.conf'}\n" in p.stdout
    assert f"  ok      {tmp_path / 'fstab'}: the line it adds for {mp} passes findmnt --verify\n" in p.stdout
    line = f"UUID=<uuid of /dev/md/{TAG}> {mp} ext4 noatime,nofail,{DEVICE_TIMEOUT} 0 2"
    assert f"+ echo '{line}' >> /etc/fstab\n" in p.stdout
    assert f"+ mount -o noatime /dev/md/{TAG} {mp}\n" in p.stdout  # nofail is for the boot, not this mount


def test_a_device_in_a_missing_directory_is_one_line_and_the_rest_still_checked(tmp_path):
    """Once exit 1 and no word: readlink -f failed under set -e inside a function."""
    _need_root_tools()
    missing = f"/dev/disk/by-id-{TAG}/ata-ST2000DM001_Z1E5Q4A8"
    with sparse_loops([64 * MiB] * 2) as devs:
        (tmp_path / "fstab").write_text("")
        p = _run_script(_script(tmp_path, [missing, *devs]))
        refused = _refusals(p)
    assert refused == [
        f"REFUSED {missing}: no such directory {os.path.dirname(missing)} (a mistyped path, or no udev to make it on this host)"
    ]
    assert [line for line in p.stdout.splitlines() if line.startswith("  ok      /dev/loop")] == [
        f"  ok      {d}" for d in devs
    ]


def test_a_missing_device_and_a_dangling_link_are_named(tmp_path):
    _need_root_tools()
    link = f"/dev/podplan-{TAG}-dangling"
    os.symlink(f"/dev/podplan-{TAG}-nothing", link)
    try:
        with sparse_loops([64 * MiB] * 2) as devs:
            refused = _refusals(_run_script(_script(tmp_path, [f"/dev/podplan-{TAG}-absent", link, *devs[:1]])))
    finally:
        os.unlink(link)
    assert refused == [
        f"REFUSED /dev/podplan-{TAG}-absent: no such device",
        f"REFUSED {link}: a broken symbolic link (to /dev/podplan-{TAG}-nothing)",
    ]


def test_an_existing_dev_md_name_is_refused(tmp_path):
    """/dev/md/NAME as udev makes it for an assembled array: a link to the md device (a loop device here)."""
    _need_root_tools()
    made_dir = not os.path.isdir("/dev/md")
    with sparse_loops([64 * MiB] * 4) as devs:
        os.makedirs("/dev/md", exist_ok=True)
        os.symlink(devs[3], f"/dev/md/{TAG}")
        try:
            refused = _refusals(_run_script(_script(tmp_path, devs[:3])))
        finally:
            os.unlink(f"/dev/md/{TAG}")
            if made_dir:
                os.rmdir("/dev/md")
    assert refused == [
        f"REFUSED /dev/md/{TAG}: exists already (an array of that name is assembled: mdadm --detail /dev/md/{TAG})"
    ]


def test_a_running_array_of_that_name_is_refused(tmp_path):
    """No md in this kernel, so no array runs: mdadm --detail --scan answers from a stub first on PATH."""
    _need_root_tools()
    stub = tmp_path / "bin"
    stub.mkdir()
    line = f"ARRAY /dev/md127 metadata=1.2 name=otherhost:{TAG} UUID=3f1c2b6a:8e0d4c21:9a7b5e10:c4d2f8e1"
    (stub / "mdadm").write_text(f"#!/bin/sh\n[ \"$*\" = '--detail --scan' ] && echo '{line}'\n")
    (stub / "mdadm").chmod(0o755)
    with sparse_loops([64 * MiB] * 3) as devs:
        path = _script(tmp_path, devs)
        env = {**ENV, "PATH": f"{stub}:{ENV['PATH']}"}
        p = subprocess.run(
            ["bash", path], capture_output=True, text=True, stdin=subprocess.DEVNULL, env=env, timeout=60
        )
    assert _refusals(p) == [f"REFUSED /dev/md/{TAG}: a running array is named {TAG} (mdadm --detail --scan: {line})"]


def test_an_array_of_that_name_in_mdadm_conf_is_refused(tmp_path):
    _need_root_tools()
    conf = (
        f"# mdadm.conf\nDEVICE partitions\nARRAY /dev/md/{TAG} metadata=1.2 UUID=3f1c2b6a:8e0d4c21:9a7b5e10:c4d2f8e1\n"
    )
    with sparse_loops([64 * MiB] * 3) as devs:
        refused = _refusals(_run_script(_script(tmp_path, devs, mdadm_conf=conf)))
    assert refused == [
        (
            f"REFUSED /dev/md/{TAG}: {tmp_path / 'mdadm.conf'} already has an array of that name (line 3: "
            f"ARRAY /dev/md/{TAG} metadata=1.2 UUID=3f1c2b6a:8e0d4c21:9a7b5e10:c4d2f8e1); remove the line if that array is gone"
        )
    ]


@contextlib.contextmanager
def _private_lvm(devs: list[str]) -> Iterator[dict[str, str]]:
    """An environment whose LVM sees only `devs` and keeps its locks and backups to itself."""
    with tempfile.TemporaryDirectory(prefix="podplan-lvm-") as d:
        Path(d, "lvm.conf").write_text(lvm_conf(devs, d))
        yield {**ENV, "LVM_SYSTEM_DIR": d}


def _lvm(env: dict[str, str], *argv: str) -> None:
    subprocess.run(list(argv), check=True, capture_output=True, env=env, timeout=60)


def test_an_existing_volume_group_is_refused(tmp_path):
    _need_root_tools()
    vg = f"vg{TAG}"
    with sparse_loops([64 * MiB] * 4) as devs, _private_lvm(devs) as env:
        _lvm(env, "pvcreate", "-q", devs[3])
        _lvm(env, "vgcreate", "-q", vg, devs[3])
        try:
            path = _script(tmp_path, devs[:3], lvm={"enabled": True, "vg": vg, "lv": "data"})
            p = subprocess.run(
                ["bash", path], capture_output=True, text=True, stdin=subprocess.DEVNULL, env=env, timeout=60
            )
        finally:
            _lvm(env, "vgremove", "-q", "-f", vg)
            _lvm(env, "pvremove", "-q", devs[3])
    assert _refusals(p) == [f"REFUSED VG {vg}: a volume group of that name exists (vgs {vg})"]


def test_an_fstab_that_mounts_something_there_already_is_refused(tmp_path):
    _need_root_tools()
    mp = f"/srv/podplan-{TAG}"
    fstab = (
        f"# a comment naming {mp} is no mount\nUUID=1234 /srv/other ext4 defaults 0 2\nLABEL=old {mp} xfs defaults 0 2"
    )
    with sparse_loops([64 * MiB] * 3) as devs:
        refused = _refusals(_run_script(_script(tmp_path, devs, fstab=fstab)))  # and no final newline
    assert refused == [
        f"REFUSED {mp}: {tmp_path / 'fstab'} already mounts something there (line 3: LABEL=old {mp} xfs defaults 0 2)"
    ]


def _guard_script(tmp_path: Path, *lines: str) -> str:
    """The preamble and the given lines, as a script of their own."""
    path = tmp_path / "steps.sh"
    body = ["#!/usr/bin/env bash", "set -euo pipefail", "export LC_ALL=C", "PLAN_NAME=t", PREAMBLE, *lines, ""]
    assert_clean_script(path, "\n".join(body))
    return str(path)


def test_findmnt_verify_refuses_a_broken_line_and_ignores_the_hosts_old_ones(tmp_path):
    """findmnt --verify on a copy: the placeholder source and the mount point the run will make are
    expected; a line findmnt cannot parse is refused, an old broken line of the host's is not ours."""
    _need_root_tools()
    copy = tmp_path / "fstab"
    copy.write_text("garbage\n")
    path = _guard_script(
        tmp_path,
        f"FSTAB={copy}",
        f"fstab_verify '/dev/podplan-not-made-yet /srv/podplan-{TAG} ext4 noatime,nofail 0 2'",
        f"fstab_verify 'UUID=x /srv/podplan-{TAG}-b'",
        'say "problems: $PROBLEMS"',
    )
    p = subprocess.run(["bash", path], capture_output=True, text=True, env=ENV, timeout=60)
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines()[-3:] == [
        f"  ok      {copy}: the line it adds for /srv/podplan-{TAG} passes findmnt --verify",
        (
            f"  REFUSED {copy}: the line it would add for /srv/podplan-{TAG}-b fails findmnt --verify: "
            "parse error (findmnt reads no line there)"
        ),
        "problems: 1",
    ]
    assert copy.read_text() == "garbage\n"


def test_lines_added_to_a_file_without_a_final_newline_stay_lines(tmp_path):
    conf = tmp_path / "fstab"
    conf.write_text("UUID=1 / ext4 defaults 0 1")  # no newline at the end
    path = _guard_script(tmp_path, f"add_lines {conf} '# note' 'UUID=2 /srv/x ext4 nofail 0 2'", "false")
    p = subprocess.run(["bash", path, "--run"], capture_output=True, text=True, env=ENV, timeout=60)
    assert conf.read_text() == "UUID=1 / ext4 defaults 0 1\n# note\nUUID=2 /srv/x ext4 nofail 0 2\n"
    assert f"  sed -i '2,3d' {conf}\n" in p.stderr


def test_a_run_that_stops_half_way_lists_what_it_did_and_the_undo_in_reverse(tmp_path):
    path = _guard_script(
        tmp_path,
        'step "first"',
        "did 'created /dev/md/x' 'mdadm --stop /dev/md/x && mdadm --zero-superblock /dev/sdb /dev/sdc'",
        "did 'reshaped it' ''",
        "initramfs_updated",
        'step "second"',
        "did 'mounted /dev/md/x on /srv/x' 'umount /srv/x'",
        "run false",
    )
    p = subprocess.run(["bash", path, "--run"], capture_output=True, text=True, env=ENV, timeout=60)
    assert p.returncode == 1
    assert p.stderr.splitlines() == [
        'podplan: FAILED during step "second" (exit status 1); the steps after it did not run.',
        "podplan: done before it stopped:",
        "  created /dev/md/x",
        "  reshaped it",
        "  mounted /dev/md/x on /srv/x",
        'podplan: the step "second" may have done part of its work too; check it before undoing.',
        "podplan: to undo what was done, run in this order:",
        "  umount /srv/x",
        "  mdadm --stop /dev/md/x && mdadm --zero-superblock /dev/sdb /dev/sdc",
        "  update-initramfs -u",
    ]
    dry = subprocess.run(["bash", path], capture_output=True, text=True, env=ENV, timeout=60)
    assert dry.returncode == 0 and dry.stderr == ""  # a dry run does nothing, so has nothing to undo


def test_a_real_half_way_failure_prints_an_undo_that_works(tmp_path):
    """A plan of bare disks with LVM: pvcreate, vgcreate and lvcreate (activation off) succeed, and
    mkfs finds no LV device (no device-mapper here): the printed undo takes LVM off the disks again."""
    _need_root_tools()
    vg = f"vg{TAG}"
    with sparse_loops([64 * MiB] * 2) as devs, _private_lvm(devs) as env:
        path = _script(
            tmp_path,
            devs,
            groups=[],
            lvm={"enabled": True, "vg": vg, "lv": "data"},
            filesystem={"type": "ext4", "mount_point": f"/srv/podplan-{TAG}"},
        )
        p = subprocess.run(["bash", path, "--run", "--yes"], capture_output=True, text=True, env=env, timeout=120)
        assert p.returncode != 0
        err = p.stderr.splitlines()
        undo = err[err.index("podplan: to undo what was done, run in this order:") + 1 :]
        assert undo == [f"  lvremove -y {vg}/data", f"  vgremove {vg}", f"  pvremove {devs[0]} {devs[1]}"], p.stderr
        for command in undo:
            subprocess.run(["bash", "-c", command], check=True, capture_output=True, env=env, timeout=60)
        assert all(_signature(d) == "" for d in devs)


def _run_on_terminal(path: str, answer: str, meanwhile) -> tuple[int, str]:  # type: ignore[no-untyped-def]
    """Run the script with --run on a terminal; when it asks, call `meanwhile`, then answer."""
    pid, fd = pty.fork()
    if pid == 0:  # pragma: no cover - the child
        os.execvpe("bash", ["bash", path, "--run"], ENV)
    out, asked, deadline = b"", False, time.monotonic() + 60
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 1)
        if ready:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
        if not asked and b"Type the plan name" in out:
            meanwhile()
            os.write(fd, answer.encode() + b"\n")
            asked = True
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    return os.waitstatus_to_exitcode(status), out.decode(errors="replace").replace("\r\n", "\n")


def test_a_disk_changed_while_the_prompt_waits_is_refused_after_the_confirmation(tmp_path):
    _need_root_tools()
    with sparse_loops([64 * MiB] * 3) as devs:
        path = _script(tmp_path, devs)
        before = {d: _signature(d) for d in devs}
        code, out = _run_on_terminal(
            path, "guardtest", lambda: subprocess.run(["mke2fs", "-q", "-F", devs[1]], check=True)
        )
        assert code == 1, out
        assert "== check again, right before the first change" in out
        assert f"  REFUSED {devs[1]}: carries a signature (wipefs -n {devs[1]})\n" in out
        assert "1 refusal(s) on the check after the confirmation; nothing was changed" in out
        assert "== create" not in out and "+ mdadm" not in out
        assert [_signature(d) for d in (devs[0], devs[2])] == [before[devs[0]], before[devs[2]]]


def test_the_transcript_is_not_written_through_a_symbolic_link(tmp_path):
    _need_root_tools()
    target = tmp_path / "precious"
    target.write_text("keep me\n")
    with sparse_loops([64 * MiB] * 3) as devs:
        path = _script(tmp_path, devs)
        os.symlink(target, path + ".log")
        p = _run_script(path)
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stdout.splitlines()[0] == f"note: no transcript this time: {path}.log is a symbolic link (never followed)"
    assert target.read_text() == "keep me\n" and os.path.islink(path + ".log")


def test_the_transcript_is_private_and_rotated_past_a_mebibyte(tmp_path):
    _need_root_tools()
    with sparse_loops([64 * MiB] * 3) as devs:
        path = _script(tmp_path, devs)
        log = Path(path + ".log")
        assert _run_script(path).returncode == 0
        assert log.stat().st_mode & 0o777 == 0o600
        log.write_text("x" * (1024 * 1024 + 1))
        log.chmod(0o644)  # an older script's log: made private on the next run
        assert _run_script(path).returncode == 0
    assert Path(path + ".log.1").stat().st_size == 1024 * 1024 + 1
    assert log.stat().st_mode & 0o777 == 0o600 and 0 < log.stat().st_size < 100_000


def test_a_hard_linked_transcript_is_not_written(tmp_path):
    _need_root_tools()
    other = tmp_path / "other"
    other.write_text("keep me\n")
    path = _guard_script(tmp_path, "say finished")
    os.link(other, path + ".log")
    p = subprocess.run(["bash", path], capture_output=True, text=True, env=ENV, timeout=60)
    assert p.stdout == f"note: no transcript this time: {path}.log has other hard links\nfinished\n"
    assert other.read_text() == "keep me\n"
