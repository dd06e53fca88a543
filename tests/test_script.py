"""The build script: valid bash, clean under shellcheck, and its guards hold on real loop devices.

The guards are run for real (dry run, and --run up to the confirmation), against loop
devices that are clean, carry an ext4 signature, or are mounted. The host kernel has no
md, so nothing past the guards runs here; the VM lab runs the rest.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import struct
import subprocess
import tempfile

import pytest

from app.cli.flags import plan_from_args
from app.cli.main import build_parser
from planners.compute import compute
from planners.example import example_pod
from planners.models import DiskSet, Plan
from planners.script.build import build_script
from runners.probes.loopdev import sparse_loops
from tests.script_helpers import assert_clean_script, devices_ok

MiB = 1024**2


def _plan(*flags: str) -> Plan:
    args = build_parser().parse_args(["plan", *flags])
    return plan_from_args(args, None)


PLANS = {
    "example pod": example_pod(),
    "one raid6 xfs": _plan(
        "--disks", "45", "--disk-size", "2000398934016", "--level", "6", "--chunk", "256K", "--fs", "xfs"
    ),
    "raid6 groups striped ext4": _plan(
        "--disks", "24", "--groups", "3", "--lvm-mode", "striped", "--stripe-size", "512K", "--fs", "ext4"
    ),
    "raid10 f2 with spares": _plan("--disks", "9", "--level", "10", "--layout", "f2", "--spares", "1", "--fs", "ext4"),
    "raid1 pair ext3": _plan("--disks", "2", "--level", "1", "--fs", "ext3", "--disk-size", "4TB"),
    "two groups no lvm": _plan("--disks", "12", "--groups", "2", "--level", "5", "--no-lvm"),
    "raid0 with devices": _plan(
        "--disks",
        "3",
        "--level",
        "0",
        "--devices",
        "/dev/disk/by-id/ata-ST2000DM001_Z1E5Q4A8,/dev/sdc,/dev/disk/by-path/pci-0000:00:1f.2-ata-1",
    ),
}


@pytest.mark.parametrize("plan", PLANS.values(), ids=PLANS.keys())
def test_script_is_valid_bash_and_shellcheck_clean(tmp_path, plan):
    assert_clean_script(tmp_path / "build.sh", build_script(plan, compute(plan)))


def test_script_states_every_assumption():
    plan = example_pod()
    text = build_script(plan, compute(plan))
    for needle in (
        "mdadm 4.2",
        "lvm2 2.03.16",
        "xfsprogs 6.1.0",
        "--bitmap=internal",
        "mdadm.conf",
        "/etc/fstab",
        "udev",
        "stripe_cache_size",
        "--dataalignment",
        "su=512k,sw=13",
    ):
        assert needle in text, needle
    # every command that carries a number is preceded by a comment saying where it comes from
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith(("run mkfs", "run pvcreate", "run mdadm --create")):
            assert lines[i - 1].startswith("#"), line


def test_script_extent_puts_every_array_on_a_full_stripe():
    plan = example_pod()
    r = compute(plan)
    text = build_script(plan, r)
    assert "run vgcreate --physicalextentsize 6656k pod /dev/md/md0 /dev/md/md1 /dev/md/md2" in text
    starts = r.volumes[0].lvm.pv_lv_offset_bytes
    assert (
        f"# -s 6656K: chosen by podplan, the md full stripe (6815744 bytes): each array starts on a full stripe "
        f"of the LV (md1 at byte {starts[1]}, md2 at byte {starts[2]})."
    ) in text
    assert all(s % 6815744 == 0 for s in starts)
    fixed = plan.model_copy(update={"lvm": plan.lvm.model_copy(update={"extent_size": 4 * 2**20})})
    text = build_script(fixed, compute(fixed))
    assert "run vgcreate --physicalextentsize 4096k" in text
    assert "md1 and md2 will start inside a full stripe of the LV (podplan plan warns of it)" in text


def test_cli_script_matches_library(tmp_path, capsys):
    from app.cli.main import main

    out = tmp_path / "b.sh"
    assert main(["script", "--disks", "4", "--level", "5", "-o", str(out)]) == 0
    assert os.access(out, os.X_OK)
    plan = _plan("--disks", "4", "--level", "5")
    assert out.read_text() == build_script(plan, compute(plan))
    assert main(["script", "--disks", "4", "--level", "5", "-o", str(out)]) == 2  # no silent overwrite
    capsys.readouterr()


def _need_root_tools():
    if os.geteuid() != 0:
        pytest.skip("the guard tests need root to create loop devices")
    for tool in ("losetup", "lsblk", "wipefs", "findmnt", "mke2fs", "mount"):
        if (
            shutil.which(tool) is None
            and not os.path.exists(f"/usr/sbin/{tool}")
            and not os.path.exists(f"/sbin/{tool}")
        ):
            pytest.skip(f"{tool} is not installed")


def _script_for(devs: list[str], tmp_path, size: int = 64 * MiB, sector: int = 512) -> str:
    """The build script of a RAID5 over `devs`, planned as disks of `size` bytes with `sector`-byte
    logical and physical sectors (a loop device's physical sector is its logical one)."""
    plan = Plan(
        name="guardtest",
        disks=[DiskSet(count=len(devs), size=size, logical_sector=sector, physical_sector=sector, devices=devs)],
        groups=[{"level": 5, "members": len(devs), "chunk": 64 * 1024}],
        filesystem={"type": "ext4"},
    )
    path = tmp_path / "build.sh"
    path.write_text(build_script(plan, compute(plan)))
    return str(path)


def _run_script(path: str, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PATH": os.environ.get("PATH", "") + ":/usr/sbin:/sbin"}
    return subprocess.run(
        ["bash", path, *args], capture_output=True, text=True, stdin=subprocess.DEVNULL, env=env, timeout=60
    )


def _signature(dev: str) -> str:
    return subprocess.run(["wipefs", "-n", "--noheadings", dev], capture_output=True, text=True).stdout


def test_guards_on_loop_devices(tmp_path):
    _need_root_tools()
    with sparse_loops([64 * MiB] * 3) as devs:
        path = _script_for(devs, tmp_path)

        clean = _run_script(path)
        assert clean.returncode == 0, clean.stderr
        assert len(devices_ok(clean.stdout)) == 3
        assert "+ mdadm --create /dev/md/md0" in clean.stdout
        assert "dry run: nothing was changed" in clean.stdout
        assert all(_signature(d) == "" for d in devs)
        if "stripe_cache_size" in clean.stdout:  # parity arrays: the array has no kernel name before it exists
            assert "/sys/block/<kernel name of /dev/md/md0>/md/stripe_cache_size" in clean.stdout
        assert "/sys/block//" not in clean.stdout

        subprocess.run(["mke2fs", "-q", "-F", "-t", "ext4", devs[1]], check=True)
        before = _signature(devs[1])
        refused = _run_script(path)
        assert refused.returncode != 0
        assert f"REFUSED {devs[1]}: carries a signature" in refused.stdout
        assert "nothing was changed" in refused.stderr
        assert "+ mdadm" not in refused.stdout  # stopped before printing or doing any change
        assert _signature(devs[1]) == before and "ext4" in before

        # --run stops at the guards too, and leaves the disk as it was
        refused_run = _run_script(path, "--run", "--yes")
        assert refused_run.returncode != 0 and "REFUSED" in refused_run.stdout
        assert _signature(devs[1]) == before

        overridden = _run_script(path, "--override", devs[1])
        assert overridden.returncode == 0, overridden.stderr
        assert f"OVERRIDE {devs[1]}" in overridden.stdout

        # a typo in the override names another device: still refused
        typo = _run_script(path, "--override", devs[1] + "9")
        assert typo.returncode != 0

        mnt = tempfile.mkdtemp(prefix="podplan-guard-")
        subprocess.run(["mount", devs[1], mnt], check=True)
        try:
            mounted = _run_script(path)
            assert mounted.returncode != 0
            assert "mounted" in mounted.stdout
        finally:
            subprocess.run(["umount", mnt], check=False)
            os.rmdir(mnt)


def test_run_without_terminal_needs_yes(tmp_path):
    _need_root_tools()
    with sparse_loops([64 * MiB] * 3) as devs:
        path = _script_for(devs, tmp_path)
        p = _run_script(path, "--run")
        assert p.returncode != 0
        assert "pass --yes" in p.stderr
        assert all(_signature(d) == "" for d in devs)


def test_placeholders_are_refused(tmp_path):
    plan = _plan("--disks", "4", "--level", "5")
    path = tmp_path / "b.sh"
    path.write_text(build_script(plan, compute(plan)))
    p = _run_script(str(path))
    assert p.returncode != 0
    assert "placeholder" in p.stderr and "--devices" in p.stderr


def test_unknown_script_option(tmp_path):
    plan = _plan("--disks", "4", "--level", "5")
    path = tmp_path / "b.sh"
    path.write_text(build_script(plan, compute(plan)))
    p = _run_script(str(path), "--frobnicate")
    assert p.returncode == 2


def test_root_disk_is_refused(tmp_path):
    _need_root_tools()
    src = subprocess.run(["findmnt", "-n", "-o", "SOURCE", "/"], capture_output=True, text=True).stdout.strip()
    disks = subprocess.run(["lsblk", "-n", "-s", "-r", "-o", "PATH,TYPE", src], capture_output=True, text=True).stdout
    root = next((line.split()[0] for line in disks.splitlines() if line.endswith(" disk")), None)
    if root is None:
        pytest.skip(f"the root filesystem ({src or 'unknown'}) is not on a block device here")
    with sparse_loops([64 * MiB] * 2) as devs:
        path = _script_for([root, *devs], tmp_path)
        p = _run_script(path)
        assert p.returncode != 0
        assert f"REFUSED {root}:" in p.stdout and "holds the root filesystem" in p.stdout


def test_guards_work_when_root_is_not_a_block_device(tmp_path):
    """Initramfs, container and VM roots ("rootfs", "overlay") have no disk behind them: the
    guards must carry on (this once stopped every rehearsal with lsblk's exit status 32)."""
    _need_root_tools()
    with sparse_loops([64 * MiB] * 3) as devs:
        path = _script_for(devs, tmp_path)
        with open(path) as f:
            text = f.read()
        needle = "src=$(findmnt -n -o SOURCE / 2>/dev/null || true)"
        assert needle in text
        with open(path, "w") as f:
            f.write(text.replace(needle, "src=rootfs"))
        p = _run_script(path)
        assert p.returncode == 0, p.stderr
        assert len(devices_ok(p.stdout)) == 3


def _refused_before_any_change(p: subprocess.CompletedProcess) -> None:
    assert p.returncode == 1, p.stdout
    assert "nothing was changed" in p.stderr
    assert "+ mdadm" not in p.stdout and "\n== create" not in p.stdout


def test_disks_smaller_than_the_plan_are_refused_with_both_sizes(tmp_path):
    """A plan of 4 TB disks against 64 MiB loop devices: once printed `ok` for each."""
    _need_root_tools()
    four_tb = 4000787030016
    with sparse_loops([64 * MiB] * 3) as devs:
        path = _script_for(devs, tmp_path, size=four_tb)
        for args in ((), ("--run", "--yes"), tuple(a for d in devs for a in ("--override", d))):
            p = _run_script(path, *args)
            _refused_before_any_change(p)
            for d in devs:
                assert f"REFUSED {d}: {64 * MiB} bytes, smaller than the plan's disk of {four_tb} bytes\n" in p.stdout
            assert devices_ok(p.stdout) == []
        assert all(_signature(d) == "" for d in devs)


def test_a_larger_disk_is_accepted_with_the_bytes_left_unused(tmp_path):
    _need_root_tools()
    with sparse_loops([96 * MiB, 64 * MiB, 64 * MiB]) as devs:
        p = _run_script(_script_for(devs, tmp_path))
        assert p.returncode == 0, p.stdout + p.stderr
        assert (
            f"  note    {devs[0]}: {96 * MiB} bytes; the plan's figures use {64 * MiB} of them "
            f"and leave {32 * MiB} unused\n"
        ) in p.stdout
        assert p.stdout.count("  note ") == 1 and len(devices_ok(p.stdout)) == 3


def test_other_sector_sizes_than_the_plans_are_refused(tmp_path):
    _need_root_tools()
    with sparse_loops([64 * MiB] * 3, sector=4096) as devs:
        p = _run_script(_script_for(devs, tmp_path))
        _refused_before_any_change(p)
        for d in devs:
            assert f"REFUSED {d}: 4096-byte logical sectors, the plan's disk has 512\n" in p.stdout
            assert f"REFUSED {d}: 4096-byte physical sectors, the plan's disk has 512\n" in p.stdout
        # the same disks planned as 4Kn pass
        native = _run_script(_script_for(devs, tmp_path, sector=4096))
        assert native.returncode == 0, native.stdout + native.stderr
        assert len(devices_ok(native.stdout)) == 3


def _major_minor(dev: str) -> str:
    st = os.stat(dev)
    return f"{os.major(st.st_rdev)}:{os.minor(st.st_rdev)}"


def test_one_disk_under_two_paths_is_refused(tmp_path):
    """A device and a symlink to it: md would get the same disk twice."""
    _need_root_tools()
    with sparse_loops([64 * MiB] * 3) as devs:
        link = f"/dev/podplan-alias-{os.getpid()}-{os.path.basename(devs[0])}"  # plans take paths under /dev only
        os.symlink(devs[0], link)
        try:
            path = _script_for([*devs, link], tmp_path)
            for args in ((), ("--override", link)):
                p = _run_script(path, *args)
                _refused_before_any_change(p)
                assert (
                    f"REFUSED {link}: the same device as {devs[0]} (major:minor {_major_minor(devs[0])})\n" in p.stdout
                )
                assert p.stdout.count("REFUSED") == 1
        finally:
            os.unlink(link)


@contextlib.contextmanager
def _partitioned_loop(size: int, first_sector: int, sectors: int):
    """A loop device over a file with an MBR of one partition, and that partition's device
    (added with partx: a loop attached without --partscan shows no partitions by itself)."""
    with sparse_loops([size]) as (dev,):
        entry = struct.pack("<B3sB3sII", 0, b"\0\0\0", 0x83, b"\0\0\0", first_sector, sectors)
        with open(dev, "r+b") as f:
            f.seek(446)
            f.write(entry)
            f.seek(510)
            f.write(b"\x55\xaa")
        env = {**os.environ, "PATH": os.environ.get("PATH", "") + ":/usr/sbin:/sbin"}
        subprocess.run(["partx", "-a", dev], check=True, env=env)
        try:
            name = os.path.basename(dev)
            part = next(f"/dev/{p}" for p in os.listdir(f"/sys/class/block/{name}") if p.startswith(name))
            yield dev, part
        finally:
            subprocess.run(["partx", "-d", dev], check=False, env=env)


def test_a_disk_and_its_partition_are_refused(tmp_path):
    _need_root_tools()
    if shutil.which("partx") is None and not os.path.exists("/usr/bin/partx") and not os.path.exists("/usr/sbin/partx"):
        pytest.skip("partx (util-linux) is not installed: it adds the partition's device")
    with _partitioned_loop(64 * MiB, 2048, 65536) as (disk, part), sparse_loops([64 * MiB]) as (other,):
        path = _script_for([disk, part, other], tmp_path, size=32 * MiB)
        # --override covers the partition table wipefs finds on the disk, not the overlap
        p = _run_script(path, "--override", disk)
        _refused_before_any_change(p)
        assert f"OVERRIDE {disk}: carries a signature" in p.stdout
        assert f"REFUSED {part}: a partition of {disk}\n" in p.stdout
        assert p.stdout.count("REFUSED") == 1
