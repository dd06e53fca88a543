"""Plan-time filesystem warnings (ext4 online-growth ceiling, root reserve) and one label per
filesystem without LVM, each held to the real mke2fs, dumpe2fs and mkfs.xfs."""

from __future__ import annotations

import os

import pytest
from rich.console import Console

from app.shared.render import render_plan
from planners.compute import compute
from planners.example import example_pod
from planners.models import DiskSet, Filesystem, Lvm, MdGroup, Plan
from planners.script.build import build_script
from runners.exec import run
from runners.probes.ext4 import make_image, probe
from tests.test_ext4_helpers import need

TB2 = 2_000_398_934_016


def _ext4(plan: Plan, **fs: object) -> Plan:
    return plan.model_copy(update={"filesystem": plan.filesystem.model_copy(update={"type": "ext4", **fs})})


def _small(count: int, size: int, *, groups: int = 1, lvm: bool = False, fs: Filesystem | None = None) -> Plan:
    per = count // groups
    return Plan(
        name="f",
        disks=[DiskSet(count=count, size=size)],
        lvm=Lvm(enabled=lvm),
        groups=[MdGroup(name=f"md{i}", level=5, members=per) for i in range(groups)],
        filesystem=fs or Filesystem(type="ext4", label="pod45", mount_point="/srv/f"),
    )


def _finding(plan: Plan, needle: str):
    found = [f for f in compute(plan).findings if needle in f.message]
    assert len(found) == 1, [f.message for f in compute(plan).findings]
    return found[0]


def test_ext4_growth_ceiling_is_what_mke2fs_reserves_for():
    need("mke2fs")
    # 6 x 2 TB RAID5: 10 TB of ext4, whose reserved GDT blocks stop at 2^32 blocks (16 TiB).
    plan = _small(6, TB2)
    e = compute(plan).volumes[0].ext4
    ceiling = probe(e).max_fs_blocks * e.block_size  # mke2fs -n -v: "Maximum filesystem blocks="
    assert ceiling == e.online_grow_blocks * e.block_size == 2**32 * 4096
    f = _finding(plan, "can grow online to")
    assert f.severity == "warning" and f"{ceiling:,} bytes" in f.message and "meta_bg" in f.message
    assert f"{e.reserved_gdt_blocks} descriptor blocks" in f.message


def test_the_ceiling_is_where_podplans_grow_stops():
    from planners.errors import PlanError
    from planners.grow.fs import ext4_grown

    e = compute(_small(6, TB2)).volumes[0].ext4
    ceiling = e.online_grow_blocks * e.block_size
    assert ext4_grown(e, ceiling).block_count == e.online_grow_blocks
    with pytest.raises(PlanError, match="meta_bg"):
        ext4_grown(e, ceiling + e.blocks_per_group * e.block_size)


def test_ext4_growth_ceiling_matches_dumpe2fs_of_a_real_filesystem(tmp_path):
    need("mke2fs", "dumpe2fs")
    plan = _small(4, 256 * 2**20)
    e = compute(plan).volumes[0].ext4
    h = make_image(e, os.fspath(tmp_path / "fs.img"))
    assert h.reserved_gdt_blocks == e.reserved_gdt_blocks > 0
    desc_blocks = -(-h.block_count // h.blocks_per_group // (h.block_size // 64))
    limit = (h.reserved_gdt_blocks + desc_blocks) * (h.block_size // 64) * h.blocks_per_group
    assert limit == e.online_grow_blocks
    assert f"{limit * h.block_size:,} bytes" in _finding(plan, "can grow online to").message


def test_ext4_over_2_32_blocks_has_no_reserve_to_grow_with():
    need("mke2fs")
    plan = _ext4(example_pod())  # 78 TB: mke2fs drops resize_inode
    e = compute(plan).volumes[0].ext4
    told = probe(e)
    assert told.max_fs_blocks == 0 and told.block_groups == e.block_groups  # no reserve printed
    per = e.block_size // 64
    ceiling = -(-e.block_groups // per) * per * e.blocks_per_group * e.block_size
    f = _finding(plan, "no reserved descriptor blocks")
    assert f.severity == "warning" and f"{ceiling:,} bytes" in f.message
    # Bigger still, mke2fs makes it meta_bg: the kernel grows that without a reserve, podplan's grow does not.
    big = _ext4(example_pod().model_copy(update={"disks": [DiskSet(count=45, size=18 * 10**12)]}))
    assert compute(big).volumes[0].ext4.meta_bg
    assert _finding(big, "meta_bg").severity == "info"


def test_ext4_root_reserve_is_said_in_bytes_with_the_option_that_sets_it():
    need("mke2fs")
    big = _ext4(example_pod().model_copy(update={"disks": [DiskSet(count=45, size=18 * 10**12)]}))
    e = compute(big).volumes[0].ext4
    reserved = probe(e).reserved_blocks * e.block_size  # "N blocks (5.00%) reserved for the super user"
    assert reserved == 35_099_734_806_528
    f = _finding(big, "for root")
    assert f.severity == "warning" and f.field == "filesystem.reserved_percent"
    assert f"{reserved:,} bytes (35.10 TB, 1.9 disks' worth)" in f.message
    assert "-m" in f.message and "filesystem.reserved_percent" in f.message
    assert not any("for root" in x.message for x in compute(_ext4(big, reserved_percent=0.0)).findings)
    assert not any("for root" in x.message for x in compute(example_pod()).findings)  # XFS keeps no root reserve


def test_each_filesystem_without_lvm_gets_its_own_label():
    plan = example_pod().model_copy(update={"lvm": example_pod().lvm.model_copy(update={"enabled": False})})
    result = compute(plan)
    assert [v.label for v in result.volumes] == ["pod45-0", "pod45-1", "pod45-2"]
    script = build_script(plan, result)
    for i, v in enumerate(result.volumes):
        assert f"-L pod45-{i} {v.device}" in script
        assert f"'# LABEL=pod45-{i}: {v.device} of the podplan plan pod45'" in script  # the fstab line's note
    assert "-L pod45 " not in script
    console = Console(width=200, record=True)
    console.print(render_plan(plan, result))
    shown = console.export_text()
    assert all(f"/dev/md/md{i} │ /srv/pod45/md{i} │ pod45-{i}" in shown for i in range(3)), shown
    assert any("its own label (pod45-0 to pod45-2)" in f.message for f in result.findings)
    # One volume (LVM, or one array) keeps the plan's label as it is.
    assert compute(example_pod()).volumes[0].label == "pod45"


@pytest.mark.parametrize(
    "fs_type,label,groups,want",
    [
        ("ext4", "abcdefghijklmnop", 12, "abcdefghijklm-11"),  # mke2fs keeps 16 bytes
        ("xfs", "abcdefghijkl", 12, "abcdefghi-11"),  # mkfs.xfs refuses over 12
        ("xfs", "pod45", 3, "pod45-2"),
    ],
)
def test_labels_fit_what_mkfs_accepts(tmp_path, fs_type, label, groups, want):
    plan = _small(groups * 3, 2**30, groups=groups, fs=Filesystem(type=fs_type, label=label, mount_point="/srv/f"))
    labels = [v.label for v in compute(plan).volumes]
    assert labels[-1] == want and len(set(labels)) == groups
    img = os.fspath(tmp_path / "fs.img")
    if fs_type == "xfs":
        need("mkfs.xfs")
        for lab in labels:  # -N: checks every option and prints the geometry, writes nothing
            run(["mkfs.xfs", "-N", "-L", lab, "-d", f"file,name={img},size={300 * 2**20}"])
        return
    need("mke2fs", "dumpe2fs")
    with open(img, "wb") as f:
        f.truncate(64 * 2**20)
    for lab in labels:
        res = run(["mke2fs", "-F", "-q", "-t", "ext4", "-L", lab, img])
        assert "too long" not in res.stderr
        assert f"Filesystem volume name:   {lab}\n" in run(["dumpe2fs", "-h", img]).stdout


def test_ext3_is_told_its_32_bit_limit_not_a_meta_bg_conversion():
    """ext3 of 12 TB on LVM: its reserved descriptor blocks reach 2^32 blocks (mke2fs -n says so), so what
    stops it is ext3's 32-bit block numbers, not a meta_bg conversion past the reserved blocks."""
    plan = Plan(
        name="e3",
        disks=[DiskSet(count=1, size=12 * 10**12)],
        groups=[],
        lvm=Lvm(enabled=True),
        filesystem=Filesystem(type="ext3", reserved_percent=0.0),
    )
    f = _finding(plan, "can grow")
    assert "2^32 - 1" in f.message and "meta_bg" not in f.message and "no further" in f.message
    geometry = compute(plan).volumes[0].ext4
    assert geometry is not None and geometry.online_grow_blocks == 2**32 - 1
    need("mke2fs")
    assert probe(geometry).max_fs_blocks >= 2**32  # mke2fs reserves past what 32-bit block numbers reach


def test_a_filesystem_on_one_disk_or_lun_without_lvm_gets_no_online_growth_warning():
    """Nothing under it can grow (no md to reshape, no LVM to extend): its ceiling is never reached."""
    for fs in ("ext3", "ext4"):
        plan = Plan(
            name="one",
            disks=[DiskSet(count=1, size=4 * 10**12)],
            groups=[],
            lvm=Lvm(enabled=False),
            filesystem=Filesystem(type=fs),  # type: ignore[arg-type]
        )
        assert not [f.message for f in compute(plan).findings if "grow" in f.message]
        assert [f for f in compute(plan).findings if "for root" in f.message]  # the reserve is still said
