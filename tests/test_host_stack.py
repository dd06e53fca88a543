"""The stack under a check target, read from a sysfs tree and LVM reports: only what leads to the target."""

from __future__ import annotations

import json
import os
import pathlib

from runners.host.stack import kernel_name, lvm_within, stack_under


def _sysfs(root: pathlib.Path) -> tuple[str, str]:
    """An LV on md127 (over loop1, loop2) and sdb1; md126 on loop3, loop4 beside it; a btrfs on loop5, loop6."""
    block, btrfs = root / "class" / "block", root / "btrfs"
    for name, slaves in {
        "dm-0": ["md127", "sdb1"],
        "md127": ["loop1", "loop2"],
        "md126": ["loop3", "loop4"],
        "dm-1": ["md126"],
    }.items():
        (block / name / "slaves").mkdir(parents=True)
        for s in slaves:
            (block / name / "slaves" / s).touch()
    for name in ("loop1", "loop2", "loop3", "loop4", "loop5", "loop6", "sdb"):
        (block / name).mkdir(parents=True)
    part = root / "devices" / "sdb" / "sdb1"
    part.mkdir(parents=True)
    (part / "partition").write_text("1\n")
    os.symlink(part, block / "sdb1")
    for name in ("loop5", "loop6"):
        (btrfs / "0b1c" / "devices").mkdir(parents=True, exist_ok=True)
        (btrfs / "0b1c" / "devices" / name).touch()
    return str(block), str(btrfs)


def test_the_stack_is_what_lies_under_the_target(tmp_path):
    block, btrfs = _sysfs(tmp_path)
    assert stack_under(["dm-0"], sys_block=block, sys_btrfs=btrfs) == {"dm-0", "md127", "loop1", "loop2", "sdb1", "sdb"}
    assert stack_under(["md126"], sys_block=block, sys_btrfs=btrfs) == {"md126", "loop3", "loop4"}
    assert stack_under(["loop6"], sys_block=block, sys_btrfs=btrfs) == {"loop5", "loop6"}
    assert stack_under(["loop1"], sys_block=block, sys_btrfs=btrfs) == {"loop1"}  # a member: nothing above it
    assert stack_under(["nvme9n1"], sys_block=block, sys_btrfs=btrfs) == {"nvme9n1"}


def _report(kind: str, rows: list[dict]) -> str:
    return json.dumps({"report": [{kind: rows}]})


def test_lvm_reports_keep_the_targets_lv_and_all_its_vgs_pvs():
    names = {"/dev/mapper/pod-data": "dm-0", "/dev/mapper/other-root": "dm-1"}
    names |= {f"/dev/{n}": n for n in ("md127", "md125", "sda2")}
    pvs = _report(
        "pv",
        [
            {"pv_name": "/dev/md127", "vg_name": "pod"},
            {"pv_name": "/dev/md125", "vg_name": "pod"},  # in the VG, no extent of the LV on it yet
            {"pv_name": "/dev/sda2", "vg_name": "other"},
        ],
    )
    vgs = _report("vg", [{"vg_name": "pod"}, {"vg_name": "other"}])
    lvs = _report(
        "seg",
        [
            {"lv_name": "data", "vg_name": "pod", "lv_dm_path": "/dev/mapper/pod-data"},
            {"lv_name": "data", "vg_name": "other", "lv_dm_path": "/dev/mapper/other-root"},
        ],
    )
    p, v, lv, pv_names = lvm_within(frozenset({"dm-0", "md127"}), pvs, vgs, lvs, names.get)
    assert [r["pv_name"] for r in json.loads(p)["report"][0]["pv"]] == ["/dev/md127", "/dev/md125"]
    assert [r["vg_name"] for r in json.loads(v)["report"][0]["vg"]] == ["pod"]
    assert [r["vg_name"] for r in json.loads(lv)["report"][0]["seg"]] == ["pod"]
    assert pv_names == {"md127", "md125"}
    # A target with no LV under it keeps no LVM at all; a complaint instead of a report passes as it was.
    assert lvm_within(frozenset({"loop1"}), pvs, vgs, "  No device-mapper", names.get)[3] == frozenset()
    p, v, lv, _ = lvm_within(frozenset({"loop1"}), pvs, vgs, lvs, names.get)
    assert json.loads(p)["report"][0]["pv"] == [] and json.loads(lv)["report"][0]["seg"] == []


def test_kernel_name_is_the_devices_own_name():
    assert kernel_name("/dev/null") is None  # a character device
    assert kernel_name("/nonexistent/disk") is None
    loops = [n for n in sorted(os.listdir("/dev")) if n.startswith("loop") and os.path.isdir(f"/sys/class/block/{n}")]
    if loops:
        assert kernel_name(f"/dev/{loops[0]}") == loops[0]
