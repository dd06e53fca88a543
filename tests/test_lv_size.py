"""An LV of a given size on a larger VG (the stride test's 10 GB LV on a 3 TB VG): `--lv-size` and
`[lvm] lv_size`, exact in extents as lvcreate makes it, with the filesystem mkfs makes on it."""

from __future__ import annotations

import argparse
import os

import pytest

from app.cli.flags import add_plan_flags, plan_from_args
from app.shared.planfile import plan_from_toml, plan_to_toml
from planners.compute import compute
from planners.errors import PlanError
from planners.example import example_pod
from planners.models import DiskSet, Filesystem, Lvm, MdGroup, Plan
from planners.results import VolumeResult
from planners.script.build import build_script
from runners.exec import have
from runners.probes import ext4 as ext4_probe
from runners.probes import xfs as xfs_probe
from runners.probes.lvm import probe_volume

KiB, MiB, GiB = 1 << 10, 1 << 20, 1 << 30
TB3 = 3_000_592_982_016  # a "3 TB" SATA drive


def stride_test(lv_size: int | str | None = 10 * 10**9, fs: str = "ext4", **lvm: object) -> Plan:
    """The seed's stride test: 3 disks of RAID5 under LVM, a 10 GB LV on the 6 TB VG."""
    return Plan(
        name="stride",
        disks=[DiskSet(count=3, size=TB3)],
        groups=[MdGroup(level=5, members=3, chunk=64 * KiB)],
        lvm=Lvm(enabled=True, lv_size=lv_size, **lvm),  # type: ignore[arg-type]
        filesystem=Filesystem(type=fs),  # type: ignore[arg-type]
    )


def flags(*argv: str) -> Plan:
    p = argparse.ArgumentParser()
    add_plan_flags(p)
    return plan_from_args(p.parse_args(list(argv)), None)


def test_the_lv_is_whole_extents_holding_the_size_and_the_rest_stays_free():
    r = compute(stride_test())
    v = r.volumes[0]
    assert v.lvm is not None
    extent = v.lvm.extent_bytes
    assert v.lvm.lv_extents == -(-10 * 10**9 // extent) and v.block_device_bytes == v.lvm.lv_extents * extent
    assert 10 * 10**9 <= v.block_device_bytes < 10 * 10**9 + extent
    assert v.lvm.vg_free_extents == v.lvm.vg_extents - v.lvm.lv_extents > 0
    assert "--extents" in v.lvm.lvcreate_options and str(v.lvm.lv_extents) in v.lvm.lvcreate_options
    steps = {s.key: s for s in r.capacity}
    assert steps["vg_free"].removed_bytes == v.lvm.vg_free_extents * extent
    assert steps["reserved"].remaining_bytes == r.usable_bytes == v.df_available_bytes
    whole = compute(stride_test(None))
    assert "vg_free" not in {s.key for s in whole.capacity}
    assert compute(stride_test("rest")).volumes[0] == whole.volumes[0]


def test_percent_of_the_vg_and_striped_rounding():
    v = compute(stride_test("25%")).volumes[0]
    assert v.lvm is not None and v.lvm.lv_extents == v.lvm.vg_extents * 25 // 100
    assert "25%VG" in v.lvm.lvcreate_options
    pod = example_pod()
    striped = pod.model_copy(update={"lvm": Lvm(enabled=True, mode="striped", lv_size=10 * 10**9)})
    s = compute(striped).volumes[0].lvm
    assert s is not None and s.lv_extents % 3 == 0  # lvcreate rounds a striped LV up to whole stripes
    assert s.lv_extents * s.extent_bytes >= 10 * 10**9 > (s.lv_extents - 3) * s.extent_bytes


def test_the_flag_the_file_and_the_script():
    plan = flags("--lv-size", "10GB", "--disks", "3", "--level", "5", "--disk-size", "3TB")
    assert plan.lvm.enabled and plan.lvm.lv_size == 10 * 10**9
    assert plan_from_toml(plan_to_toml(plan)) == plan
    assert flags("--lv-size", "rest").lvm.lv_size == "rest" and flags("--lv-size", "50 %").lvm.lv_size == "50%"
    r = compute(plan)
    text = build_script(plan, r)
    g = r.volumes[0].lvm
    assert g is not None
    assert f"run lvcreate -y --extents {g.lv_extents} -n data" in text
    assert f"= LV of {g.lv_bytes} bytes" in text


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--lv-size", "0"], "LV size"),
        (["--lv-size", "150%"], "1% to 100%"),
        (["--lv-size", "1PB"], "does not fit"),
        (["--no-lvm", "--lv-size", "1G"], "--no-lvm"),
        (["--lv-size", "lots"], "not a size"),
    ],
)
def test_bad_lv_sizes_are_one_line(argv, says):
    with pytest.raises(PlanError, match=None) as exc:
        compute(flags(*argv))
    assert says in exc.value.message and "\n" not in exc.value.message


def test_a_plan_file_with_an_lv_size_and_no_lvm_is_refused():
    with pytest.raises(PlanError, match="LVM is off"):
        plan_from_toml('name = "x"\n[[disks]]\nsize = "1TB"\n[lvm]\nlv_size = "10GB"\n')


def test_grow_refuses_a_sized_lv_in_one_line():
    from planners.grow import target_plan
    from planners.grow.model import GrowRequest

    with pytest.raises(PlanError, match="lvextend"):
        target_plan(stride_test(), GrowRequest(add_disks=1))


needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="needs root for loop devices")


@needs_root
@pytest.mark.skipif(not have("pvcreate"), reason="lvm2 is not installed")
@pytest.mark.parametrize("lv_size", [10 * 10**9 // 1000, "25%", 123_456_789])
def test_lvcreate_makes_the_lv_of_the_predicted_bytes(lv_size):
    """The VG over loop devices of the arrays' predicted sizes (small ones: the 3 TB VG's arithmetic
    is the same per extent), lvcreate with the script's options."""
    plan = Plan(
        name="small",
        disks=[DiskSet(count=3, size=700 * MiB)],
        groups=[MdGroup(level=5, members=3, chunk=64 * KiB)],
        lvm=Lvm(enabled=True, lv_size=lv_size),
        filesystem=Filesystem(type="ext4"),
    )
    r = compute(plan)
    v = r.volumes[0]
    assert v.lvm is not None
    m = probe_volume(
        [g.md.array_bytes for g in r.groups],
        pvcreate_options=v.lvm.pvcreate_options,
        vgcreate_options=v.lvm.vgcreate_options,
        lvcreate_options=v.lvm.lvcreate_options,
    )
    assert m.lv is not None and m.lv.lv_bytes == v.block_device_bytes


@pytest.mark.skipif(not (have("mkfs.xfs") and have("mke2fs")), reason="mkfs.xfs or mke2fs is not installed")
@pytest.mark.parametrize("fs", ["xfs", "ext4"])
def test_the_filesystem_on_the_sized_lv_is_what_mkfs_makes(fs):
    assert_mkfs_makes(compute(stride_test(fs=fs)).volumes[0])


def assert_mkfs_makes(v: VolumeResult) -> None:
    """mkfs.xfs -N or mke2fs -n, told what the script tells mkfs, reports the volume's filesystem."""
    a = v.alignment
    if v.xfs is not None:
        got = xfs_probe.probe(
            v.block_device_bytes, su_bytes=a.fs_stripe_unit_bytes, sw=a.fs_stripe_width_units, sector_size=4096
        )
        assert got == v.xfs
    else:
        assert v.ext4 is not None
        rep = ext4_probe.probe(v.ext4)
        assert (rep.block_count, rep.inode_count, rep.stride, rep.stripe_width) == (
            v.ext4.block_count,
            v.ext4.inode_count,
            v.ext4.stride,
            v.ext4.stripe_width,
        )


def test_the_form_writes_and_reads_the_lv_size():
    from app.tui.form_model import FormError, plan_from_values, values_from_plan

    base = example_pod()
    values = values_from_plan(base)
    assert values["lv_size"] == ""
    for text, want in (("10G", 10 * GiB), ("25%", "25%"), ("rest", "rest")):
        plan = plan_from_values(base, {**values, "lv_size": text})
        assert plan.lvm.lv_size == want
        assert values_from_plan(plan)["lv_size"] == text and plan_from_values(plan, values_from_plan(plan)) == plan
    sized = plan_from_values(base, {**values, "lv_size": "10G"})
    assert plan_from_values(sized, {**values_from_plan(sized), "lv_size": ""}).lvm.lv_size is None
    assert plan_from_values(sized, {**values_from_plan(sized), "lvm": False}).lvm.lv_size is None
    with pytest.raises(PlanError) as exc:
        plan_from_values(base, {**values, "lv_size": "150%"})
    assert exc.value.field == "lv_size" and isinstance(exc.value, (FormError, PlanError))
