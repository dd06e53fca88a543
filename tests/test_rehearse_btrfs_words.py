"""What a btrfs rehearsal says: no md steps where the plan has no md, and its devices in the kernel's order."""

from __future__ import annotations

from planners.compute import compute
from planners.models import DiskSet, Filesystem, MdGroup, Plan
from planners.script.build import build_script
from runners.lab.collect import BtrfsReport
from runners.lab.rehearse import _compare_btrfs, natural_key, prepare

TB = 10**12


def _btrfs(groups: list[MdGroup] | None = None) -> Plan:
    return Plan(
        name="btr",
        disks=[DiskSet(count=2, size=2 * TB), DiskSet(count=1, size=4 * TB)],
        groups=groups or [],
        filesystem=Filesystem(
            type="btrfs", data_profile=None if groups else "raid1", metadata_profile=None if groups else "raid1"
        ),
    )


def test_a_btrfs_rehearsal_has_no_md_resync_or_stripe_cache_step():
    scenario, _, _ = prepare(_btrfs())
    assert "resync" not in scenario.script and "raid" not in scenario.script
    script = scenario.files["build.sh"]
    assert "stripe cache" not in script and 'step "tuning"' in script and "btrfs reads ahead" in script
    # btrfs on an md RAID5 keeps the md steps: its resync and its stripe cache are real
    md = _btrfs([MdGroup(name="m0", level=5, members=3)])
    scenario, scaled, _ = prepare(md)
    assert "md resync" in scenario.script and "stripe_cache_size" in build_script(scaled, compute(scaled))


def test_btrfs_device_rows_are_in_the_kernels_order():
    assert sorted(["vdaa", "vdc", "vdb", "vdz"], key=natural_key) == ["vdb", "vdc", "vdz", "vdaa"]
    assert sorted(["loop10", "loop2", "loop1"], key=natural_key) == ["loop1", "loop2", "loop10"]
    b = compute(_btrfs()).volumes[0].btrfs
    assert b is not None
    rows: list[str] = []
    names = ["vdd", "vdb", "vdc"]  # the plan's order after the lab named its disks
    report = BtrfsReport(
        devices={n: (s, u) for n, s, u in zip(names, b.device_bytes, b.used_bytes, strict=True)}, free_estimated=None
    )
    _compare_btrfs(lambda layer, figure, *_: rows.append(figure), b, report, names)
    named = [r.split(" of ")[1].split(" ")[0] for r in rows if r.startswith("btrfs size of")]
    assert named == ["vdb", "vdc", "vdd"]
