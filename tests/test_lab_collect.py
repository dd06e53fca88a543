"""Parsers of the guest's collection, on files recorded from a real boot (mdadm 4.2, LVM 2.03.16,
xfsprogs 6.1, e2fsprogs 1.47.0, kernel 6.1), and the recorded figures held against the planner."""

import json
import pathlib

import pytest

from planners.md.geometry import md_geometry
from planners.units import KiB, MiB
from runners.lab.collect import parse_block_lines, parse_collection, parse_df, parse_examine
from runners.lab.fio import parse_fio_json

BOOT = pathlib.Path(__file__).parent / "fixtures" / "lab" / "boot" / "scenarios"


def collection(name: str):
    base = BOOT / name / "collect"
    return parse_collection({str(p.relative_to(base)): p.read_text() for p in base.rglob("*") if p.is_file()})


def test_raid5_with_xfs_mounted():
    c = collection("r5xfs")
    md = c.md_array("md0")
    assert (md.level, md.raid_devices, md.chunk_bytes, md.layout, md.metadata) == (
        "raid5",
        3,
        512 * KiB,
        "left-symmetric",
        "1.2",
    )
    assert md.array_bytes == 415236096 and md.component_bytes == 202752 * KiB
    assert [m.device for m in md.members] == ["sda", "sdb", "sdc"]
    assert {m.data_offset_sectors for m in md.members} == {4096}  # headroom halved on 200 MiB members
    assert md.stripe_cache_size == 256 and md.bitmap is None
    assert md.export["MD_LEVEL"] == "raid5" and md.export["MD_DEVICES"] == "3"
    dev = c.block["md0"]
    assert (dev.io_min, dev.io_opt, dev.ra_sectors, dev.read_ahead_kb) == (512 * KiB, MiB, 4096, 2048)
    assert c.block["sda"].size_bytes == 200 * MiB and c.block["sda"].ra_sectors == 256
    fs = c.filesystem("md0")
    assert fs.fstype == "xfs" and fs.mountpoint == "/mnt/a"
    # mkfs.xfs dropped the stripe unit on this small volume (it said so on stderr).
    assert fs.xfs.sunit_blocks == 0 and fs.xfs.agcount == 4
    assert fs.df_size is not None and fs.df_avail < fs.df_size
    assert c.pvs == () and c.lvs == () and "md0 : active raid5" in c.mdstat


def test_lvm_on_raid10_with_ext4():
    c = collection("r10lvext4")
    md = c.md_array("md0")
    assert md.level == "raid10" and md.layout == "near=2" and md.chunk_bytes == 64 * KiB
    (pv,) = c.pvs
    (vg,) = c.vgs
    (lv,) = c.lvs
    assert pv.name == "/dev/md0" and pv.dev_bytes == md.array_bytes
    assert vg.extent_bytes == 4 * MiB and lv.extents == vg.extent_count and lv.lv_bytes == lv.extents * 4 * MiB
    assert c.block["dm-0"].dm_name == "vg0-lv0" and c.block["dm-0"].size_bytes == lv.lv_bytes
    fs = c.filesystem("dm-0")
    assert fs.fstype == "ext4" and fs.mountpoint == "/mnt/b"
    assert fs.ext.block_count * fs.ext.block_size == lv.lv_bytes
    # A "small" filesystem gets 1 KiB blocks; stride and stripe width come from the LV's io_min/io_opt.
    assert fs.ext.block_size == 1024
    assert (fs.ext.stride * 1024, fs.ext.stripe_width * 1024) == (c.block["dm-0"].io_min, c.block["dm-0"].io_opt)


def test_two_md_groups_under_a_striped_lv():
    c = collection("striped")
    md1, md2, md3 = c.md
    assert md1.bitmap == "Internal" and md1.level == "raid6"
    assert md2.metadata == "1.0" and md2.layout == "far=2" and md2.spares == 1
    assert {m.data_offset_sectors for m in md2.members} == {0}
    assert md2.members[-1].state == "spare"
    assert md3.chunk_bytes == 0 and md3.level == "raid1"
    pv1, pv2 = c.pvs
    assert pv1.pe_start_bytes == MiB
    assert pv2.pe_start_bytes == 1179648  # 1 MiB is no multiple of md2's 192 KiB stripe: pe_align = io_opt * 6
    (lv,) = c.lvs
    assert (lv.stripes, lv.stripe_bytes) == (2, 128 * KiB)
    (ra,) = c.lv_readahead
    assert ra.setting == "auto" and ra.kernel_bytes == 512 * KiB and ra.dm_path == "/dev/mapper/vgs-big"
    assert c.block["dm-0"].ra_sectors * 512 == ra.kernel_bytes
    unmounted = c.filesystem("md3")
    assert unmounted.mountpoint is None and unmounted.df_size is None
    assert (unmounted.ext.stride, unmounted.ext.stripe_width) == (16, 32)
    assert not c.block["sdp"].rotational and c.block["sdh"].rotational


@pytest.mark.parametrize(
    "scenario,name,sizes,kwargs",
    [
        ("r5xfs", "md0", [200 * MiB] * 3, dict(level=5, bitmap="none")),
        ("r10lvext4", "md0", [96 * MiB] * 4, dict(level=10, chunk_bytes=64 * KiB, bitmap="none")),
        ("striped", "md1", [256 * MiB] * 4, dict(level=6, chunk_bytes=64 * KiB, bitmap="internal")),
        # the kernel keeps a whole number of far_copies chunks per member: 130944 KiB where mdadm asked 131008 KiB
        (
            "striped",
            "md2",
            [128 * MiB] * 3,
            dict(level=10, layout="f2", chunk_bytes=64 * KiB, metadata="1.0", bitmap="none"),
        ),
    ],
)
def test_recorded_arrays_match_the_planner(scenario, name, sizes, kwargs):
    md = collection(scenario).md_array(name)
    g = md_geometry(sizes, **kwargs)
    assert md.array_bytes == g.array_bytes
    assert md.component_bytes == g.kernel_component_bytes
    assert md.members[0].data_offset_sectors == g.data_offset_sectors
    dev = collection(scenario).block[name]
    assert (dev.io_min, dev.io_opt) == (g.io_min_bytes, g.io_opt_bytes)


def test_block_and_df_lines():
    dev = parse_block_lines(
        "dev=dm-3 io_min=4096 io_opt=0 read_ahead_kb=128 logical=512 physical=4096 "
        "rotational=0 dm_name=vg-lv stripe_cache_size= size=1048576 ra=256\n"
    )["dm-3"]
    assert dev.dm_name == "vg-lv" and dev.stripe_cache_size is None and not dev.rotational
    df = parse_df("Filesystem Type 1B-blocks Used Avail Mounted on\n/dev/md0 xfs 100 10 90 /mnt/a\n")
    assert df == {"/dev/md0": ("/mnt/a", 100, 10, 90)}


def test_examine_without_superblock():
    assert parse_examine("mdadm: No md superblock detected on /dev/sda.") == {
        "data_offset_sectors": None,
        "super_offset_sectors": None,
        "avail_dev_sectors": None,
    }


def test_fio_json_recorded_in_the_guest():
    doc = parse_fio_json((BOOT / "fio" / "fio.json").read_text())
    (job,) = doc["jobs"]
    assert job["jobname"] == "seqread" and job["read"]["bw_bytes"] > 0 and job["read"]["io_bytes"] > 0
    assert doc["disk_util"][0]["name"] == "md0"


def test_fio_notes_before_json_and_status_objects():
    objs = [{"jobs": [], "n": 1}, {"jobs": [], "n": 2}]
    text = "note: both iodepth >= 1 and synchronous I/O engine are selected\n" + "\n".join(map(json.dumps, objs))
    assert parse_fio_json(text)["n"] == 2
    with pytest.raises(ValueError, match="fio wrote no JSON"):
        parse_fio_json("fio: no json\n")


def test_a_stopped_array_left_in_sysfs_is_no_array():
    """After one scenario stops its array, the next scenario's collector can still find the node with no
    raid_disks: it is not reported (it used to end the parse with a KeyError)."""
    from runners.lab.collect import parse_collection

    c = parse_collection({"md/md127.sysfs": "metadata_version none\narray_state clear\n", "block.txt": ""})
    assert c.md == ()
