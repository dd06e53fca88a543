"""A LUN that exports no geometry (cciss/hpsa on a Smart Array P800: io_min and io_opt 0).

The kernel then keeps its 128 KiB readahead and mkfs sees no stripe: podplan predicts what mkfs does
on such a device (sunit 0, stride 0) unless the plan gives a stripe, which the script then passes.
Witnessed as the other stacks are: `mkfs.xfs -N` and `mke2fs -n` on files (which export no geometry
either, like the LUN), pvcreate on loop devices made to show no geometry. The kernel's readahead
is its default (FACTS: 128 KiB); a loop device is no witness of it (the loop driver sets its own).
"""

from __future__ import annotations

import os

import pytest

from app.shared.planfile import plan_from_toml, plan_to_toml
from planners.compute import compute
from planners.hardware.disks import DiskSpec, Lun
from planners.hardware.machine import Hardware
from planners.models import DiskSet, Filesystem, Lvm, Plan
from planners.script.build import build_script
from runners.exec import have
from runners.probes import ext4 as ext4_probe
from runners.probes import xfs as xfs_probe
from runners.probes.lvm import probe_volume

KiB, MiB, GiB = 1 << 10, 1 << 20, 1 << 30


@pytest.fixture(scope="module")
def tools() -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root for loop devices")
    for tool in ("pvcreate", "losetup", "unshare", "blockdev"):
        if not have(tool):
            pytest.skip(f"{tool} is not installed (scripts/dev.sh setup installs it)")


P800 = Lun(disks=7, level=5, strip=64 * KiB, exports_geometry=False)


def p800(fs: str = "xfs", *, n: int = 1, size: int = 900 * MiB, lvm: Lvm | None = None, **fs_kw: object) -> Plan:
    return Plan(
        name="p800",
        disks=[DiskSet(count=n, size=size, model="P800 RAID5 LUN")],
        lvm=lvm or Lvm(enabled=n > 1),
        filesystem=Filesystem(type=fs, **fs_kw),  # type: ignore[arg-type]
        hardware=Hardware(disk=DiskSpec(lun=P800)),
    )


def test_the_lun_field_reads_back_from_a_plan_file():
    plan = p800()
    again = plan_from_toml(plan_to_toml(plan))
    assert again == plan and again.hardware is not None and again.hardware.disk.lun == P800
    assert "exports_geometry = false" in plan_to_toml(plan)


@pytest.mark.parametrize("fs", ["xfs", "ext4"])
def test_no_geometry_means_no_stripe_and_the_kernels_readahead(fs):
    r = compute(p800(fs))
    v = r.volumes[0]
    a = v.alignment
    assert a.under == "lun" and a.lun_strip_bytes == 64 * KiB
    assert (a.top_io_min_bytes, a.top_io_opt_bytes) == (4096, 0)  # the sector: what the kernel shows, not the strip
    assert (a.fs_stripe_unit_bytes, a.fs_stripe_width_units) == (0, 0)
    assert a.kernel_readahead_bytes == 128 * KiB
    (warn,) = [f for f in r.findings if f.field == "filesystem.stripe_unit"]
    assert warn.severity == "warning" and "exports no geometry" in warn.message
    assert 'stripe_unit = "64K" and stripe_width = 6' in warn.message
    # The same LUN exporting its geometry: mkfs adopts the strip and six data disks.
    lun = P800.model_copy(update={"exports_geometry": True})
    exported = compute(p800(fs).model_copy(update={"hardware": Hardware(disk=DiskSpec(lun=lun))}))
    assert exported.volumes[0].alignment.fs_stripe_unit_bytes == 64 * KiB
    assert exported.volumes[0].alignment.kernel_readahead_bytes == 2 * 6 * 64 * KiB


def test_the_script_says_no_stripe_or_passes_the_plans():
    none = p800("xfs")
    text = build_script(none, compute(none))
    assert "-d noalign" in text and "the LUN exports no geometry" in text
    given = p800("xfs", stripe_unit=64 * KiB, stripe_width=6)
    r = compute(given)
    assert (r.volumes[0].alignment.xfs_su_bytes, r.volumes[0].alignment.xfs_sw) == (64 * KiB, 6)
    mkfs = next(x for x in build_script(given, r).splitlines() if x.startswith("run mkfs.xfs"))
    assert "-d su=64k,sw=6" in mkfs
    assert not [f for f in r.findings if f.severity == "warning" and "exports no geometry" in f.message]
    ext4 = p800("ext4", stripe_unit=64 * KiB, stripe_width=6)
    mke2fs = next(x for x in build_script(ext4, compute(ext4)).splitlines() if x.startswith("run mke2fs"))
    assert "-E stride=16,stripe_width=96" in mke2fs


def test_a_striped_lv_over_such_luns_still_stripes_by_its_own_stripe():
    r = compute(p800("xfs", n=4, size=GiB, lvm=Lvm(enabled=True, mode="striped")))
    a = r.volumes[0].alignment
    assert a.lv_stripes == 4 and a.xfs_su_bytes == a.lv_stripe_bytes  # device-mapper exports the LV's stripe
    assert any(f.severity == "info" and "exports no geometry" in f.message for f in r.findings)


@pytest.mark.skipif(not have("mkfs.xfs"), reason="mkfs.xfs is not installed")
@pytest.mark.parametrize("size", [900 * MiB, 3 * GiB + 4096, 40 * GiB])
def test_mkfs_xfs_on_a_device_without_geometry_makes_the_predicted_filesystem(size):
    """mkfs.xfs told nothing (a file exports no stripe, as the LUN does) and with the plan's su/sw."""
    v = compute(p800("xfs", size=size)).volumes[0]
    assert xfs_probe.probe(size, sector_size=v.xfs.sector_size) == v.xfs and v.xfs.sunit_blocks == 0
    given = compute(p800("xfs", size=size, stripe_unit=64 * KiB, stripe_width=6)).volumes[0]
    got = xfs_probe.probe(size, su_bytes=64 * KiB, sw=6, sector_size=given.xfs.sector_size)
    assert got == given.xfs and (got.sunit_blocks, got.swidth_blocks) == (16, 96)


@pytest.mark.skipif(not have("mke2fs"), reason="mke2fs is not installed")
@pytest.mark.parametrize("fs", ["ext4", "ext3"])
def test_mke2fs_on_a_device_without_geometry_makes_the_predicted_filesystem(fs):
    e = compute(p800(fs, size=3 * GiB)).volumes[0].ext4
    assert e is not None and (e.stride, e.stripe_width) == (0, 0)
    plain = ext4_probe.probe(e, explicit=False)  # -t and -b alone: what mke2fs takes from a device without geometry
    assert (plain.block_count, plain.inode_count, plain.stride, plain.stripe_width) == (
        e.block_count,
        e.inode_count,
        0,
        0,
    )
    g = compute(p800(fs, size=3 * GiB, stripe_unit=64 * KiB, stripe_width=6)).volumes[0].ext4
    assert g is not None
    rep = ext4_probe.probe(g)
    assert (rep.block_count, rep.stride, rep.stripe_width) == (g.block_count, 16, 96)


@pytest.mark.root
def test_pvcreate_on_a_lun_without_geometry_takes_podplans_alignment(tools):
    """pvcreate sees no stripe (queue limits 512 / 0), so the script's --dataalignment is what
    puts the first extent on the controller's full stripe."""
    plan = p800("xfs", n=2, size=2 * GiB + 7 * 512, lvm=Lvm(enabled=True))
    v = compute(plan).volumes[0]
    assert v.lvm is not None and v.lvm.pe_start_bytes % (6 * 64 * KiB) == 0
    m = probe_volume(
        [d.size for d in plan.disk_list()],
        pvcreate_options=v.lvm.pvcreate_options,
        vgcreate_options=v.lvm.vgcreate_options,
        lvcreate_options=v.lvm.lvcreate_options,
        queue_limits=(512, 0, 0),
    )
    assert [p.pe_start_bytes for p in m.pvs] == [v.lvm.pe_start_bytes] * 2
    assert m.lv is not None and m.lv.lv_bytes == v.block_device_bytes
