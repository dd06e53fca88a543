"""Plans without md: LVM straight on disks or hardware RAID LUNs, or a filesystem on one disk.

The arithmetic is held against the real tools as for md stacks: pvcreate/vgcreate/lvcreate on
loop devices of the disks' sizes (pvcreate made to see the LUN's queue limits, as the kernel
reports a controller's strip and full stripe), `mkfs.xfs -N` and `mke2fs -n` on files of the
device's size, and a real mkfs + mount + `df -B1`.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planners.compute import compute
from planners.errors import PlanError
from planners.hardware.disks import DiskSpec, Lun
from planners.hardware.machine import Hardware
from planners.models import DiskSet, Filesystem, Lvm, Plan
from planners.script.build import build_script, placeholders
from runners.exec import have, run
from runners.probes import ext4 as ext4_probe
from runners.probes import xfs as xfs_probe
from runners.probes.loopdev import sparse_loops
from runners.probes.lvm import probe_volume
from tests.script_helpers import assert_clean_script, devices_ok
from tests.test_chain_real_tools import df_of_volume

KiB, MiB, GiB = 1 << 10, 1 << 20, 1 << 30


def _luns(
    n: int,
    size: int,
    *,
    disks: int = 7,
    level: int = 5,
    strip: int = 128 * KiB,
    lvm: Lvm | None = None,
    fs: str = "ext4",
    devices: list[str] | None = None,
    **fs_kw: object,
) -> Plan:
    hw = Hardware(disk=DiskSpec(lun=Lun(disks=disks, level=level, strip=strip)))  # type: ignore[arg-type]
    return Plan(
        name="luns",
        disks=[DiskSet(count=n, size=size, devices=devices or [])],
        lvm=lvm or Lvm(enabled=n > 1),
        filesystem=Filesystem(type=fs, **fs_kw),
        hardware=hw,
    )  # type: ignore[arg-type]


def _plain(
    n: int,
    size: int,
    *,
    lvm: Lvm | None = None,
    fs: str = "xfs",
    physical: int = 4096,
    devices: list[str] | None = None,
) -> Plan:
    return Plan(
        name="disks",
        disks=[DiskSet(count=n, size=size, physical_sector=physical, devices=devices or [])],
        lvm=lvm or Lvm(enabled=n > 1),
        filesystem=Filesystem(type=fs),
    )  # type: ignore[arg-type]


# ---- the planner --------------------------------------------------------------------------------


def test_eight_luns_under_a_striped_lv():
    """The issue's pod: 8 LUNs, each 7 disks of RAID5 with a 128K strip, one LV striped at 128K, ext4."""
    r = compute(_luns(8, 10**13, lvm=Lvm(enabled=True, mode="striped")))
    a = r.volumes[0].alignment
    assert a.under == "lun" and a.lun_strip_bytes == 128 * KiB
    assert (a.md_io_min_bytes, a.md_io_opt_bytes) == (128 * KiB, 6 * 128 * KiB)
    assert a.lv_stripes == 8 and a.lv_stripe_bytes == 128 * KiB  # 768K is no power of two: the strip
    assert a.pe_start_bytes == 1536 * KiB  # the first 768K multiple past the 1 MiB metadata area
    assert (a.ext4_stride_blocks, a.ext4_stripe_width_blocks) == (32, 256)
    assert r.groups == [] and r.volumes[0].disks == [""] * 8 and placeholders(r) == 8
    assert r.array_bytes == 8 * 10**13 and r.unassigned_bytes == 0
    steps = {s.key: s.removed_bytes for s in r.capacity}
    assert not {"unassigned", "spares", "md_metadata", "md_redundancy", "md_remainder"} & steps.keys()  # no md
    assert steps["lvm"] == 8 * 10**13 - r.volumes[0].block_device_bytes
    text = " ".join(f.message for f in r.findings)
    assert "read-modify-write in the controller's RAID5" in text and "not a power of two" in text


def test_striped_lv_over_raid0_luns_is_aligned_by_the_strip():
    r = compute(_luns(4, 2 * 10**12, disks=8, level=0, strip=64 * KiB, lvm=Lvm(enabled=True, mode="striped")))
    a = r.volumes[0].alignment
    assert a.lv_stripe_bytes == 512 * KiB  # the LUN full stripe, a power of two within an extent
    assert a.pe_start_bytes == MiB
    assert [f for f in r.findings if f.layer in ("lvm", "disks")] == []


def test_filesystem_straight_on_one_lun_takes_its_stripe():
    r = compute(_luns(1, 24 * 10**12, disks=24, level=10, strip=256 * KiB, fs="xfs"))
    v = r.volumes[0]
    assert v.lvm is None and v.block_device_bytes == 24 * 10**12
    assert (v.alignment.xfs_su_bytes, v.alignment.xfs_sw) == (256 * KiB, 12)
    assert v.device == "/dev/disk/by-id/FILL-IN-disk01"
    assert [f.severity for f in r.findings if f.layer == "plan"] == []


def test_plain_disk_gives_no_stripe_and_warns_it_has_no_redundancy():
    r = compute(_plain(1, 2 * 10**12))
    a = r.volumes[0].alignment
    assert a.under == "disk" and a.fs_stripe_unit_bytes == 0 and r.volumes[0].xfs is not None
    assert r.volumes[0].xfs.sector_size == 4096
    assert any("loses the volume" in f.message for f in r.findings)


def test_linear_lv_over_luns_names_the_seam_off_the_stripe():
    # A fixed 4 MiB extent is not whole 768K LUN stripes: the seams between LUNs fall inside one.
    r = compute(_luns(3, 2 * 10**12, fs="xfs", lvm=Lvm(enabled=True, extent_size=4 * MiB)))
    seam = [f for f in r.findings if f.field == "lvm.extent_size"]
    assert len(seam) == 1 and "768K" in seam[0].message
    # An extent of whole LUN stripes keeps every seam aligned, and with none given podplan picks one.
    ok = compute(_luns(3, 2 * 10**12, fs="xfs", lvm=Lvm(enabled=True, extent_size=6 * MiB)))
    assert not [f for f in ok.findings if f.field == "lvm.extent_size"]
    auto = compute(_luns(3, 2 * 10**12, fs="xfs"))
    assert auto.volumes[0].lvm is not None and auto.volumes[0].lvm.extent_bytes == 6 * 768 * KiB
    assert all(o % (768 * KiB) == 0 for o in auto.volumes[0].lvm.pv_lv_offset_bytes)
    assert not [f for f in auto.findings if f.field == "lvm.extent_size"]


def test_several_disks_without_md_need_lvm():
    with pytest.raises(ValueError, match="one disk"):
        _plain(2, 10**12, lvm=Lvm(enabled=False))


def test_stripe_size_over_one_disk_is_refused():
    with pytest.raises(PlanError, match="one stripe"):
        compute(_plain(1, 10**12, lvm=Lvm(enabled=True, mode="striped", stripe_size=64 * KiB)))


# ---- the build script ---------------------------------------------------------------------------

SCRIPT_PLANS = {
    "luns striped ext4": _luns(8, 10**13, lvm=Lvm(enabled=True, mode="striped")),
    "one lun xfs": _luns(1, 10**13, fs="xfs", devices=["/dev/disk/by-id/scsi-3600508b1001c"]),
    "plain disks linear": _plain(3, 4 * 10**12, devices=["/dev/sdb", "/dev/sdc", "/dev/sdd"]),
}


@pytest.mark.parametrize("plan", SCRIPT_PLANS.values(), ids=SCRIPT_PLANS.keys())
def test_script_without_md_is_clean_bash(tmp_path, plan):
    text = build_script(plan, compute(plan))
    body = text[text.index("\nchecks() {") :]  # the shared functions before it know mdadm; the plan's part does not
    assert "mdadm" not in body and "md_free" not in body
    assert_clean_script(tmp_path / "b.sh", text)


def test_script_on_one_lun_makes_the_filesystem_on_the_disk():
    text = build_script(SCRIPT_PLANS["one lun xfs"], compute(SCRIPT_PLANS["one lun xfs"]))
    assert "DISKS=(/dev/disk/by-id/scsi-3600508b1001c)" in text
    assert "su=256k,sw=6" in text.replace("262144", "256k") or "su=128k,sw=6" in text
    assert "run mkfs.xfs" in text and text.count("/dev/disk/by-id/scsi-3600508b1001c") >= 3
    assert 'SYMLINK=="disk/by-id/scsi-3600508b1001c"' in text and "pvcreate" not in text


def test_script_guards_disks_without_md(tmp_path):
    if os.geteuid() != 0 or not have("losetup") or not have("wipefs"):
        pytest.skip("needs root, losetup and wipefs for loop devices")
    env = {**os.environ, "PATH": os.environ.get("PATH", "") + ":/usr/sbin:/sbin"}
    with sparse_loops([64 * MiB] * 2) as devs:
        plan = _plain(2, 64 * MiB, devices=devs, fs="ext4", physical=512)
        path = tmp_path / "b.sh"
        path.write_text(build_script(plan, compute(plan)))
        ok = run(["bash", str(path)], env=env, check=False, input="")
        assert ok.returncode == 0, ok.stdout + ok.stderr
        assert len(devices_ok(ok.stdout)) == 2 and "+ pvcreate" in ok.stdout and "+ mdadm" not in ok.stdout
        run(["mke2fs", "-q", "-F", "-t", "ext4", devs[1]], env=env)
        refused = run(["bash", str(path)], env=env, check=False, input="")
        assert refused.returncode != 0 and f"REFUSED {devs[1]}: carries a signature" in refused.stdout
        assert "+ pvcreate" not in refused.stdout


# ---- against the real tools ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def tools() -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root for loop devices")
    for tool in ("pvcreate", "mkfs.xfs", "mke2fs", "losetup", "unshare"):
        if not have(tool):
            pytest.skip(f"{tool} is not installed (scripts/dev.sh setup installs it)")


def _check_lvm(plan: Plan) -> None:
    """pvcreate seeing the LUN's queue limits by itself, and the script's own options, give the plan's LV."""
    r = compute(plan)
    v = r.volumes[0]
    assert v.lvm is not None
    a = v.alignment
    sizes = [d.size for d in plan.disk_list()]
    m = probe_volume(
        sizes,
        pvcreate_options=v.lvm.pvcreate_options,
        vgcreate_options=v.lvm.vgcreate_options,
        lvcreate_options=v.lvm.lvcreate_options,
    )
    assert [p.pe_start_bytes for p in m.pvs] == [v.lvm.pe_start_bytes] * len(sizes)
    assert m.lv is not None and m.lv.lv_bytes == v.block_device_bytes
    detected = probe_volume(sizes[:1], queue_limits=(a.md_io_min_bytes, a.md_io_opt_bytes, 0), vgcreate_options=None)
    assert detected.pvs[0].pe_start_bytes == v.lvm.pe_start_bytes


def _check_mkfs(plan: Plan) -> None:
    v = compute(plan).volumes[0]
    if v.xfs is not None:
        a = v.alignment
        got = xfs_probe.probe(
            v.block_device_bytes,
            su_bytes=a.fs_stripe_unit_bytes,
            sw=a.fs_stripe_width_units,
            sector_size=v.xfs.sector_size,
        )
        assert got == v.xfs
    else:
        assert v.ext4 is not None
        rep = ext4_probe.probe(v.ext4)
        e = v.ext4
        assert (rep.block_count, rep.inode_count, rep.block_groups, rep.stride, rep.stripe_width) == (
            e.block_count,
            e.inode_count,
            e.block_groups,
            e.stride,
            e.stripe_width,
        )


lun_shapes = st.sampled_from(
    [
        (7, 5, 128 * KiB),
        (8, 0, 64 * KiB),
        (24, 10, 256 * KiB),
        (6, 6, 64 * KiB),
        (4, 5, 1 * MiB),
        (2, 1, 64 * KiB),
        (12, 6, 512 * KiB),
    ]
)


@pytest.mark.root
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    shape=lun_shapes,
    n=st.integers(2, 5),
    size_mib=st.integers(400, 4096),
    striped=st.booleans(),
    fs=st.sampled_from(["xfs", "ext4"]),
)
def test_lvm_over_luns_matches_lvm_and_mkfs(tools, shape, n, size_mib, striped, fs):
    disks, level, strip = shape
    size = size_mib * MiB + 7 * 512  # LUNs are rarely a whole number of MiB
    plan = _luns(
        n,
        size,
        disks=disks,
        level=level,
        strip=strip,
        fs=fs,
        lvm=Lvm(enabled=True, mode="striped" if striped else "linear"),
    )
    _check_lvm(plan)
    _check_mkfs(plan)


@pytest.mark.root
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    size=st.integers(600 * MiB // 4096, 8 * GiB * 1024 // 4096).map(lambda b: b * 4096),
    lun=st.one_of(st.none(), lun_shapes),
    fs=st.sampled_from(["xfs", "ext4", "ext3"]),
)
def test_filesystem_on_one_disk_matches_mkfs(tools, size, lun, fs):
    plan = _plain(1, size, fs=fs) if lun is None else _luns(1, size, disks=lun[0], level=lun[1], strip=lun[2], fs=fs)
    _check_mkfs(plan)


DF_PLANS = [
    _plain(1, 700 * MiB, fs="ext4"),
    _luns(1, 900 * MiB + 4096, fs="xfs"),
    _luns(1, 1200 * MiB, disks=24, level=10, strip=256 * KiB, fs="ext4"),
]


@pytest.mark.root
@pytest.mark.parametrize("plan", DF_PLANS, ids=["plain-ext4", "lun-xfs", "lun10-ext4"])
def test_df_after_mount_matches(tools, plan):
    v = compute(plan).volumes[0]
    assert df_of_volume(v) == (v.df_size_bytes, v.df_available_bytes)


# ---- the TUI and the command line ---------------------------------------------------------------


async def test_tui_turns_md_off_with_zero_groups() -> None:
    from textual.widgets import Input

    from app.tui.app import PodplanApp
    from planners.example import example_pod
    from tests.tui_helpers import SIZE, text_of

    app = PodplanApp(example_pod())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        app.screen.query_one("#groups").focus()
        await pilot.pause()
        await pilot.press("end", *["backspace"] * len(app.screen.query_one("#groups", Input).value), "0")
        await pilot.pause()
        assert app.result is not None and app.result.groups == []
        want = compute(example_pod().model_copy(update={"groups": []}))
        assert app.result.usable_bytes == want.usable_bytes
        assert f"{want.usable_bytes:,} B" in text_of(app, "#summary")
        assert app.screen.query_one("#level").disabled and app.screen.query_one("#chunk").disabled
        assert not app.screen.query_one("#arrays").display


def test_cli_no_md_flag_and_plan_files(tmp_path, capsys):
    from app.cli.main import main

    assert main(["plan", "--disks", "4", "--no-md", "--lvm-mode", "striped", "--json"]) == 0
    import json

    out = json.loads(capsys.readouterr().out)
    assert out["plan"]["groups"] == [] and out["result"]["volumes"][0]["alignment"]["lv_stripes"] == 4
    assert main(["plan", "--disks", "2", "--no-md", "--no-lvm"]) == 2
    assert "one disk" in capsys.readouterr().err
    assert main(["plan", "--no-md", "--level", "6"]) == 2
    assert "--no-md takes no md flag" in capsys.readouterr().err
    path = tmp_path / "luns.toml"
    path.write_text(
        'name = "luns"\n[[disks]]\ncount = 8\nsize = "10TB"\n[lvm]\nenabled = true\nmode = "striped"\n'
        '[filesystem]\ntype = "ext4"\n[hardware.disk.lun]\ndisks = 7\nlevel = 5\nstrip = 131072\n'
    )
    for cmd in ("plan", "script", "predict", "sweep"):
        assert main([cmd, str(path)]) == 0, cmd
    out = capsys.readouterr().out
    assert "LUN" in out and "no md striped" not in out.split("layouts of")[0]
    assert main(["sweep", str(path), "--all", "--top", "0"]) == 0
    assert "no md striped" in capsys.readouterr().out


def test_every_example_stack_plans_scripts_and_predicts(tmp_path, capsys):
    from app.cli.main import main
    from planners.example import EXAMPLES

    assert main(["example", "--list"]) == 0
    listed = capsys.readouterr().out
    assert all(name in listed for name in EXAMPLES) and "no md" in listed
    for name in EXAMPLES:
        path = tmp_path / f"{name}.toml"
        capsys.readouterr()
        assert main(["example", name]) == 0
        path.write_text(capsys.readouterr().out)
        for cmd in ("plan", "predict"):
            assert main([cmd, str(path)]) == 0, (name, cmd)
        assert main(["script", str(path), "-o", str(tmp_path / f"{name}.sh")]) == 0
        assert_clean_script(tmp_path / f"{name}.sh", (tmp_path / f"{name}.sh").read_text())
    capsys.readouterr()
    assert main(["example", "nope"]) == 2
    assert "no example named" in capsys.readouterr().err


def test_growing_a_plan_without_md_is_refused_in_one_line(capsys):
    from app.cli.main import main
    from planners.example import example_luns
    from planners.grow import growth_between

    with pytest.raises(PlanError, match="without md"):
        growth_between(example_luns(), example_luns())
    import tempfile

    with tempfile.NamedTemporaryFile("w", suffix=".toml") as f:
        from app.shared.planfile import plan_to_toml

        f.write(plan_to_toml(example_luns()))
        f.flush()
        assert main(["grow", f.name, "--add-disks", "1"]) == 2
    err = capsys.readouterr().err
    assert "without md" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
