"""Several LVs on one VG ([[lvm.volumes]]): each with its name, size (bytes, N% of the VG or the rest)
and filesystem; exact in extents as lvcreate allocates them one after another, each filesystem what
mkfs makes on it, and a build script that makes the VG once and each LV, filesystem and mount."""

from __future__ import annotations

import os
import subprocess

import pytest

from app.cli.main import main
from app.shared.planfile import plan_from_toml, plan_to_toml
from planners.compute import compute
from planners.errors import PlanError
from planners.lv_model import LogicalVolume
from planners.lvm.volumes import volume_plans
from planners.models import DiskSet, Filesystem, Lvm, MdGroup, Plan
from planners.script.build import build_script
from runners.exec import have
from runners.probes.lvm import probe_volume
from tests.test_lv_size import assert_mkfs_makes

KiB, MiB, GiB = 1 << 10, 1 << 20, 1 << 30

MULTI = """
name = "multi"
[[disks]]
count = 3
size = "3TB"
[[groups]]
name = "md0"
level = 5
members = 3
chunk = "64K"
[lvm]
enabled = true
[[lvm.volumes]]
name = "stride"
size = "10GB"
fs = "ext4"
mount_point = "/srv/stride"
[[lvm.volumes]]
name = "scratch"
size = "25%"
[[lvm.volumes]]
name = "bulk"
size = "rest"
label = "bulk"
[filesystem]
type = "xfs"
mount_point = "/srv/multi"
"""


def multi() -> Plan:
    return plan_from_toml(MULTI)


def small(volumes: list[LogicalVolume], mode: str = "linear", groups: int = 1) -> Plan:
    """Small arrays, so that real lvcreate runs on loop devices of their sizes."""
    return Plan(
        name="small",
        disks=[DiskSet(count=3 * groups, size=700 * MiB + 7 * 512)],
        groups=[MdGroup(name=f"md{i}", level=5, members=3, chunk=64 * KiB) for i in range(groups)],
        lvm=Lvm(enabled=True, mode=mode, volumes=volumes),  # type: ignore[arg-type]
        filesystem=Filesystem(type="ext4", mount_point="/srv/small"),  # XFS takes 300 MiB at least
    )


def test_each_lv_is_exact_in_extents_and_allocated_after_the_ones_before():
    r = compute(multi())
    stride, scratch, bulk = r.volumes
    assert [v.device for v in r.volumes] == ["/dev/pod/stride", "/dev/pod/scratch", "/dev/pod/bulk"]
    assert [v.mount_point for v in r.volumes] == ["/srv/stride", "/srv/multi/scratch", "/srv/multi/bulk"]
    assert (stride.ext4, scratch.xfs, bulk.xfs) != (None, None, None) and bulk.label == "bulk"
    g = [v.lvm for v in r.volumes]
    assert all(x is not None for x in g)
    extent, total = g[0].extent_bytes, g[0].vg_extents  # type: ignore[union-attr]
    assert g[0].lv_extents == -(-10 * 10**9 // extent)  # type: ignore[union-attr]
    assert g[1].lv_extents == total * 25 // 100  # type: ignore[union-attr]
    assert g[2].lv_extents == total - g[0].lv_extents - g[1].lv_extents  # type: ignore[union-attr]
    assert [v.block_device_bytes for v in r.volumes] == [x.lv_extents * extent for x in g]  # type: ignore[union-attr]
    assert r.usable_bytes == sum(v.df_available_bytes for v in r.volumes)
    assert "vg_free" not in {s.key for s in r.capacity}  # the last takes the rest
    sized = multi().model_copy(update={"lvm": multi().lvm.model_copy(update={"volumes": multi().lvm.volumes[:2]})})
    free = {s.key: s for s in compute(sized).capacity}["vg_free"]
    assert free.removed_bytes == (total - g[0].lv_extents - g[1].lv_extents) * extent  # type: ignore[union-attr]


def test_each_lv_has_its_own_filesystem_and_a_one_lv_plan_is_itself():
    subs = volume_plans(multi())
    assert [(s.lvm.lv, s.filesystem.type, s.filesystem.mount_point) for s in subs] == [
        ("stride", "ext4", "/srv/stride"),
        ("scratch", "xfs", "/srv/multi/scratch"),
        ("bulk", "xfs", "/srv/multi/bulk"),
    ]
    one = Plan(name="one", disks=[DiskSet(count=1, size=10**12)], lvm=Lvm(enabled=True))
    assert volume_plans(one) == [one]


def test_the_plan_file_round_trips():
    assert plan_from_toml(plan_to_toml(multi())) == multi()


@pytest.mark.parametrize(
    ("edit", "says"),
    [
        (('name = "scratch"', 'name = "stride"'), "distinct"),
        (('size = "25%"', 'size = "rest"'), "only the last LV"),
        (('name = "scratch"', 'name = "scratch"\nmount_point = "/srv/stride"'), "same directory"),
        (("enabled = true", "enabled = false"), "LVM is off"),
        (("enabled = true", 'enabled = true\nlv_size = "1TB"'), "give each its size"),
        (('size = "25%"', 'size = "150%"'), "1% to 100%"),
        (('name = "scratch"', 'name = "scr atch"'), "not allowed"),
        (('fs = "ext4"', 'fs = "btrfs"'), "lvm.volumes"),
    ],
)
def test_bad_volumes_are_one_line(edit, says):
    with pytest.raises(PlanError) as exc:
        compute(plan_from_toml(MULTI.replace(*edit, 1)))
    assert says in exc.value.message and "\n" not in exc.value.message


def test_a_volume_that_does_not_fit_is_one_line():
    with pytest.raises(PlanError, match="does not fit"):
        compute(plan_from_toml(MULTI.replace('size = "10GB"', 'size = "7TB"', 1)))


def test_the_script_makes_the_vg_once_and_each_lv_filesystem_and_mount(tmp_path):
    plan = multi()
    r = compute(plan)
    text = build_script(plan, r)
    lines = text.splitlines()
    assert (
        sum(x.startswith("run pvcreate") for x in lines) == 1 and sum(x.startswith("run vgcreate") for x in lines) == 1
    )
    creates = [x for x in lines if x.startswith("run lvcreate")]
    assert creates == [
        f"run lvcreate -y --extents {r.volumes[0].lvm.lv_extents} -n stride --readahead 2048 pod",  # type: ignore[union-attr]
        "run lvcreate -y --extents 25%VG -n scratch --readahead 2048 pod",
        "run lvcreate -y --extents 100%FREE -n bulk --readahead 2048 pod",
    ]
    mkfs = [x for x in lines if x.startswith(("run mke2fs", "run mkfs"))]
    assert [x.split()[1] for x in mkfs] == ["mke2fs", "mkfs.xfs", "mkfs.xfs"]
    assert [x.split()[-1] for x in mkfs] == ["/dev/pod/stride", "/dev/pod/scratch", "/dev/pod/bulk"]
    assert "-L bulk" in mkfs[2]
    for lv in ("stride", "scratch", "bulk"):
        assert f"  lvm_free pod {lv}" in lines
    for mount in ("/srv/stride", "/srv/multi/scratch", "/srv/multi/bulk"):
        assert f"  mount_point_free {mount}" in lines and f"fstab_has {mount}" in text
    path = tmp_path / "build.sh"
    path.write_text(text)
    assert subprocess.run(["bash", "-n", str(path)], check=False).returncode == 0


@pytest.mark.parametrize("command", [["grow", "--add-disks", "3"], ["rehearse"], ["check", "/"], ["validate", "/"]])
def test_what_takes_one_lv_refuses_several_in_one_line(capsys, tmp_path, command):
    path = tmp_path / "multi.toml"
    path.write_text(MULTI)
    argv = (
        [command[0], str(path), *command[1:]] if command[0] in ("grow", "rehearse") else [*command, "--plan", str(path)]
    )
    code = main(argv)
    _, err = capsys.readouterr()
    assert code == 2 and "(lvm.volumes): not planned yet" in err and len(err.strip().splitlines()) == 1


def test_the_sweep_ranks_whole_vg_layouts():
    from planners.layouts.sweep import sweep

    rows = sweep(multi()).rows
    assert rows and all(not r.plan.lvm.volumes for r in rows)


LAYOUTS = [
    [
        LogicalVolume(name="a", size=100 * 10**6),
        LogicalVolume(name="b", size="30%"),
        LogicalVolume(name="c", size="rest"),
    ],
    [LogicalVolume(name="a", size="50%"), LogicalVolume(name="b", size=123_456_789)],
]


@pytest.mark.skipif(os.geteuid() != 0 or not have("pvcreate"), reason="needs root and lvm2 for loop devices")
# A striped LV needs two arrays (podplan refuses a stripe of one), so striped comes with two groups only.
@pytest.mark.parametrize(("mode", "groups"), [("linear", 1), ("linear", 2), ("striped", 2)])
@pytest.mark.parametrize("volumes", LAYOUTS, ids=["bytes-pct-rest", "pct-bytes"])
def test_lvcreate_one_after_another_makes_each_lv_of_the_predicted_bytes(volumes, mode, groups):
    plan = small(volumes, mode, groups)
    r = compute(plan)
    sizes = [g.md.array_bytes for g in r.groups]
    for i, v in enumerate(r.volumes):
        assert v.lvm is not None
        m = probe_volume(
            sizes,
            pvcreate_options=v.lvm.pvcreate_options,
            vgcreate_options=v.lvm.vgcreate_options,
            lvcreate_options=v.lvm.lvcreate_options,
            earlier_lvs=[x.lvm.lvcreate_options for x in r.volumes[:i]],  # type: ignore[union-attr]
        )
        assert m.lv is not None and (m.lv.extents, m.lv.lv_bytes) == (v.lvm.lv_extents, v.block_device_bytes)


@pytest.mark.skipif(not (have("mkfs.xfs") and have("mke2fs")), reason="mkfs.xfs or mke2fs is not installed")
def test_each_filesystem_is_what_mkfs_makes_on_its_lv():
    for v in compute(multi()).volumes:
        assert_mkfs_makes(v)


async def test_the_tui_shows_every_lv_and_its_own_filesystem(tmp_path, monkeypatch) -> None:
    """The form edits the shared [filesystem]; the results show each LV with its own figures."""
    from app.tui.app import PodplanApp
    from tests.tui_helpers import rendered

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    app = PodplanApp(multi())
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        several = rendered(app, "#filesystems")
        assert "3 filesystems" in several and "/srv/stride on /dev/pod/stride" in several
        await pilot.press("f8")  # the alignment tab: each volume's tables
        await pilot.pause()
        assert app.screen.query_one("#result-tabs").active == "tab-alignment"
        tables = rendered(app, "#alignment")
        assert "Volume /dev/pod/stride on /srv/stride" in tables and "ext4 blocks" in tables
        assert "Volume /dev/pod/bulk on /srv/multi/bulk" in tables and "XFS agcount" in tables
        assert not app.error
