"""Whole disks and what uses them: recorded lsblk output (a lab guest, this kind of host), the rules
one by one, by-id names, and the reader against the real lsblk and blkid."""

from __future__ import annotations

import os
import pathlib
import stat
import struct

import pytest

from runners.exec import have, run
from runners.host.disks import InventoryError, pick_by_id, probe_signature, read_by_id, read_host_disks, whole_disks
from runners.host.inventory import DiskInfo, parse_lsblk
from runners.probes.loopdev import sparse_loops

FIX = pathlib.Path(__file__).parent / "fixtures"
MiB = 1024**2


def dev(
    name: str,
    kind: str = "disk",
    children: tuple[str, ...] = (),
    fstype: str = "",
    mounts: tuple[str, ...] = (),
    size: int = 4000 * MiB,
) -> DiskInfo:
    return DiskInfo(
        name=name,
        path=f"/dev/{name}",
        type=kind,
        size_bytes=size,
        rotational=True,
        logical_sector=512,
        physical_sector=4096,
        io_min=4096,
        io_opt=0,
        read_ahead_bytes=131072,
        scheduler="",
        model="M",
        serial="S",
        fstype=fstype,
        mountpoints=mounts,
        children=children,
    )


def uses(devs: list[DiskInfo], **kw: object) -> dict[str, tuple[str, ...]]:
    return {d.info.name: d.uses for d in whole_disks(devs, **kw)}  # type: ignore[arg-type]


def test_lab_guest_md_members_are_in_use_and_the_rest_free():
    found = whole_disks(parse_lsblk((FIX / "inventory" / "lab_lsblk.json").read_text()))
    by = {d.info.name: d for d in found}
    assert list(by) == [f"sd{c}" for c in "abcdefghijklmnop"] + ["vda", "vdb"]
    for c in "abcdefgh":  # eight members of md0, which carries the LV mounted at /srv/pod
        assert by[f"sd{c}"].uses == ("md member (md0)", "mounted at /srv/pod") and not by[f"sd{c}"].root
    assert all(by[f"sd{c}"].free and by[f"sd{c}"].info.size_bytes == 64 * MiB for c in "ijklmnop")
    assert by["vda"].free and not by["vda"].big_enough  # 1 MiB: listed, but md cannot use it
    assert by["vdb"].device == "/dev/vdb"  # no udev in the guest, so no by-id names


def test_host_root_disk_and_an_empty_ram_disk():
    """Recorded on a container host: zram0 of 0 bytes, the root filesystem straight on vda."""
    found = whole_disks(parse_lsblk((FIX / "lsblk" / "host_vda_root.json").read_text()))
    (vda,) = found
    assert vda.info.name == "vda" and vda.root and vda.uses == ("root disk", "mounted at /")


def test_each_kind_of_use_in_words():
    devs = [
        dev("sda", children=("sda1", "sda2")),
        dev("sda1", "part", fstype="vfat", mounts=("/boot/efi",)),
        dev("sda2", "part", fstype="LVM2_member", children=("vg-root", "vg-swap")),
        dev("vg-root", "lvm", fstype="ext4", mounts=("/",)),
        dev("vg-swap", "lvm", mounts=("[SWAP]",)),
        dev("sdb", fstype="LVM2_member"),
        dev("sdc", fstype="linux_raid_member"),
        dev("sdd", fstype="xfs"),
        dev("sde", children=("crypt0",)),
        dev("crypt0", "crypt"),
        dev("sdf", children=("md1",)),
        dev("md1", "linear"),
        dev("sdg"),
        dev("sdh"),
        dev("sdi", children=("sdi1",)),
        dev("sdi1", "part"),
        dev("zram0", mounts=("[SWAP]",)),
        dev("sr0", "rom"),
        dev("sdz", size=0),
        dev("loop0", "loop"),
    ]
    assert uses(devs, md_members={"sdh": "md127", "sdi1": "md126"}, signatures={"sdg": "gpt partition table"}) == {
        "sda": ("root disk", "LVM PV", "partitions sda1, sda2", "swap", "mounted at /boot/efi, /"),
        "sdb": ("LVM PV",),
        "sdc": ("md member",),
        "sdd": ("xfs signature",),
        "sde": ("holds crypt0",),
        "sdf": ("md member (md1)",),
        "sdg": ("gpt partition table signature",),
        "sdh": ("md member (md127)",),  # an inactive array lsblk does not show, from /proc/mdstat
        "sdi": ("md member (md126)", "partitions sdi1"),
    }


def test_by_id_names_a_person_can_read_win_and_partitions_never_count():
    links = {
        "wwn-0x5000c500a1b2c3d4": "sda",
        "ata-ST4000NM0035-1V4107_ZC11ABCD": "sda",
        "ata-ST4000NM0035-1V4107_ZC11ABCD-part1": "sda1",
        "nvme-eui.0025388b91b2c3d4": "nvme0n1",
        "nvme-Samsung_SSD_980_PRO_1TB_S5GXNF0R123456": "nvme0n1",
        "wwn-0x5000c500a1b2c3d5": "sdb",
        "usb-Generic_Card#Reader_000-0:0": "sdc",
    }
    assert pick_by_id(links) == {
        "sda": "/dev/disk/by-id/ata-ST4000NM0035-1V4107_ZC11ABCD",
        "nvme0n1": "/dev/disk/by-id/nvme-Samsung_SSD_980_PRO_1TB_S5GXNF0R123456",
        "sdb": "/dev/disk/by-id/wwn-0x5000c500a1b2c3d5",
    }  # sdc's only name has a '#', which a build script must not carry: /dev/sdc it is
    found = whole_disks([dev("sda"), dev("sdc")], by_id=pick_by_id(links))
    assert [d.device for d in found] == ["/dev/disk/by-id/ata-ST4000NM0035-1V4107_ZC11ABCD", "/dev/sdc"]


def test_read_by_id_follows_the_links(tmp_path: pathlib.Path):
    (tmp_path / "ata-X_1").symlink_to("../../sda")
    (tmp_path / "ata-X_1-part1").symlink_to("../../sda1")
    (tmp_path / "plain-file").write_text("")
    assert read_by_id(str(tmp_path)) == {"ata-X_1": "sda", "ata-X_1-part1": "sda1"}
    assert read_by_id(str(tmp_path / "absent")) == {}


@pytest.mark.skipif(os.geteuid() != 0 or not have("losetup") or not have("blkid"), reason="needs root for loop devices")
def test_blkid_finds_an_old_signature_on_a_device():
    with sparse_loops([64 * MiB, 64 * MiB]) as (fs, blank):
        run(["mkfs.ext4", "-q", "-F", fs], timeout=60)
        assert probe_signature(fs) == "ext4"
        assert probe_signature(blank) == ""
        with open(blank, "r+b") as f:  # an MBR with one partition, as fdisk would leave it
            mbr = bytearray(512)
            mbr[446:462] = struct.pack("<B3sB3sII", 0, b"\0" * 3, 0x83, b"\0" * 3, 2048, 4096)
            mbr[510:512] = b"\x55\xaa"
            f.write(mbr)
        assert probe_signature(blank) == "dos partition table"


@pytest.mark.skipif(not have("lsblk"), reason="lsblk is not installed")
def test_reads_this_machine():
    host = read_host_disks()
    expected = [d for d in parse_lsblk(run(["lsblk", "-J", "-b", "-O"]).stdout) if d.type == "disk"]
    assert {d.info.name for d in host.disks} <= {d.name for d in expected}
    assert all(d.info.type == "disk" and d.info.size_bytes > 0 for d in host.disks)


def test_no_lsblk_is_one_line(monkeypatch: pytest.MonkeyPatch, tmp_path: pathlib.Path):
    monkeypatch.setenv("PATH", str(tmp_path))
    if have("lsblk"):
        pytest.skip("lsblk is in an sbin directory, which is always searched")
    with pytest.raises(
        InventoryError,
        match=r"^Cannot list the disks: lsblk not found: install util-linux \(apt-get install util-linux\)$",
    ):
        read_host_disks()


def test_lsblk_failing_is_one_line(monkeypatch: pytest.MonkeyPatch, tmp_path: pathlib.Path):
    fake = tmp_path / "lsblk"
    fake.write_text("#!/bin/sh\necho 'lsblk: cannot open /sys/dev/block: Permission denied' >&2\nexit 32\n")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{tmp_path}:{os.environ['PATH']}")
    with pytest.raises(InventoryError) as err:
        read_host_disks()
    assert str(err.value) == (
        "Cannot list the disks: lsblk: exit status 32: lsblk: cannot open /sys/dev/block: Permission denied"
    )
