"""Inventory parsers on recorded output (lsblk on the host, mdstat and mdadm from the lab's kernel)
and the host collector on real loop devices."""

from __future__ import annotations

import os
import pathlib

import pytest

from runners.exec import have, run
from runners.host.inventory import disks, gather_files, parse_lsblk, parse_mdstat
from runners.lab.collect import parse_collection, parse_key_values
from runners.probes.loopdev import mounted, sparse_loops

FIX = pathlib.Path(__file__).parent / "fixtures"
BOOT = FIX / "lab" / "boot" / "scenarios"
MiB = 1024**2


def test_lsblk_loops_one_mounted():
    devs = parse_lsblk((FIX / "lsblk" / "loops_ext4_mounted.json").read_text())
    assert len(devs) == 2
    ext4, empty = devs
    assert ext4.type == "loop" and ext4.size_bytes == 64 * MiB
    # Recorded without udev: lsblk knows no fstype then, which is why the write guard asks wipefs.
    assert ext4.fstype == "" and ext4.in_use_by == "mounted at /tmp/lsm"
    assert empty.in_use_by == "" and empty.mountpoints == () and empty.logical_sector == 512
    assert empty.read_ahead_bytes == 2560 * 1024


def test_mdstat_levels_spares_and_bitmap_lines():
    arrays = {a.name: a for a in parse_mdstat((BOOT / "striped" / "collect" / "mdstat.txt").read_text())}
    assert set(arrays) == {"md1", "md2", "md3"}
    assert arrays["md2"].level == "raid10" and arrays["md2"].spares == ("sdo",) and len(arrays["md2"].members) == 4
    assert arrays["md1"].level == "raid6" and arrays["md1"].action == ""
    assert arrays["md3"].members == ("sdp",)


def test_mdstat_resync_in_progress():
    text = (
        "Personalities : [raid6] [raid5] [raid4]\n"
        "md127 : active raid6 sdh[7] sdg[6] sdf[5](F) sde[4] sdd[3] sdc[2] sdb[1] sda[0]\n"
        "      1566720 blocks super 1.2 level 6, 512k chunk, algorithm 2 [8/7] [UUUUU_UU]\n"
        "      [=>...................]  resync =  8.4% (22016/261120) finish=0.3min speed=11008K/sec\n"
        "      \n"
        "md1 : inactive sdz[0](S)\n      1000 blocks\n\nunused devices: <none>\n"
    )
    a, b = parse_mdstat(text)
    assert (a.name, a.level, a.action, a.progress_pct, a.failed) == ("md127", "raid6", "resync", 8.4, ("sdf",))
    assert (b.state, b.level, b.spares) == ("inactive", "", ("sdz",))
    recorded = FIX / "inventory" / "lab_mdstat_resync.txt"
    if recorded.exists():
        (arr,) = parse_mdstat(recorded.read_text())  # caught by the lab at 96.4 % of its initial resync
        assert arr.level == "raid6" and len(arr.members) == 8
        assert arr.action == "resync" and arr.progress_pct == 96.4


def test_lab_md_export():
    export = parse_key_values((FIX / "inventory" / "lab_md_export.txt").read_text())
    assert export["MD_LEVEL"] == "raid6" and export["MD_DEVICES"] == "8" and export["MD_NAME"].endswith(":md0")


def test_lab_lsblk_when_recorded():
    recorded = FIX / "inventory" / "lab_lsblk.json"
    if not recorded.exists():
        pytest.skip("recorded by tests/test_lab_validate.py on its first run")
    devs = parse_lsblk(recorded.read_text())
    (md,) = [d for d in devs if d.type == "raid6"]
    assert md.io_opt == 6 * md.io_min and md.children  # the LV sits on it
    assert sum(1 for d in devs if d.children == (md.name,)) == 8


@pytest.mark.skipif(os.geteuid() != 0 or not have("losetup"), reason="needs root for loop devices")
def test_host_collector_sees_a_mounted_ext4_loop():
    with sparse_loops([64 * MiB]) as (dev,):
        run(["mkfs.ext4", "-q", "-F", dev], timeout=60)
        with mounted(dev) as mnt:
            found = {d.path: d for d in disks()}
            assert found[dev].in_use_by == f"mounted at {mnt}"
            files = gather_files()
    c = parse_collection(files)
    assert "mdstat.txt" in files and files["lsblk.json"].lstrip().startswith("{")
    assert all(a.name.startswith("md") for a in c.md)
