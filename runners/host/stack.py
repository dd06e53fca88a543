"""The devices one target stands on: its filesystem's device, the LVs, PVs and md arrays under it, their members.

`podplan check TARGET` judges the stack under TARGET and nothing else: a second filesystem mounted on
another disk, another pod's arrays or /boot must never be compared with the plan. The stack is read
from sysfs (each md or dm device lists what it is built on in `slaves/`; a partition's parent is the
directory it sits in; a btrfs lists its devices under /sys/fs/btrfs), and LVM's reports add the PVs of
the target's VG that hold none of its extents yet (sysfs names only the PVs an LV uses).
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Callable, Iterable

SYS_CLASS_BLOCK = "/sys/class/block"
SYS_BTRFS = "/sys/fs/btrfs"


def kernel_name(path: str) -> str | None:
    """The kernel name of the block device at `path` (loop3, md127, dm-0), by its device numbers, so that
    /dev/md/NAME, /dev/mapper/VG-LV and /dev/disk/by-id links all name the device itself; None if none."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    if not stat.S_ISBLK(st.st_mode):
        return None
    found = os.path.realpath(f"/sys/dev/block/{os.major(st.st_rdev)}:{os.minor(st.st_rdev)}")
    return os.path.basename(found) if os.path.isdir(found) else None


def _listdir(path: str) -> list[str]:
    try:
        return sorted(os.listdir(path))
    except OSError:
        return []


def _below(name: str, sys_block: str) -> list[str]:
    """The devices `name` is built on: an md or dm device's slaves, a partition's disk."""
    base = os.path.join(sys_block, name)
    under = _listdir(os.path.join(base, "slaves"))
    if os.path.exists(os.path.join(base, "partition")):
        under.append(os.path.basename(os.path.dirname(os.path.realpath(base))))
    return under


def _btrfs_siblings(name: str, sys_btrfs: str) -> list[str]:
    """Every device of the btrfs that `name` belongs to: it is mounted from one of them, made on all."""
    for fs in _listdir(sys_btrfs):
        devices = _listdir(os.path.join(sys_btrfs, fs, "devices"))
        if name in devices:
            return devices
    return []


def stack_under(tops: Iterable[str], *, sys_block: str = SYS_CLASS_BLOCK, sys_btrfs: str = SYS_BTRFS) -> frozenset[str]:
    """The kernel names of `tops` and of every device beneath them, down to the disks."""
    seen: set[str] = set()
    todo = list(tops)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        todo += _below(name, sys_block) + _btrfs_siblings(name, sys_btrfs)
    return frozenset(seen)


def _rows(text: str) -> list[tuple[str, dict]]:
    try:
        doc = json.loads(text)
    except ValueError:
        return []
    return [(kind, row) for report in doc.get("report", []) for kind, rows in report.items() for row in rows]


def _report(text: str, keep: Callable[[dict], bool]) -> str:
    """An LVM JSON report with only the rows `keep` accepts (a complaint instead of JSON passes unchanged)."""
    try:
        doc = json.loads(text)
    except ValueError:
        return text
    for report in doc.get("report", []):
        for kind, rows in report.items():
            report[kind] = [r for r in rows if keep(r)]
    return json.dumps(doc)


def lvm_within(
    stack: frozenset[str], pvs: str, vgs: str, lvs: str, name_of: Callable[[str], str | None] = kernel_name
) -> tuple[str, str, str, frozenset[str]]:
    """The lvs report cut to the LVs in `stack`, pvs and vgs to those LVs' VGs, and the kernel names of
    all those VGs' PVs (a linear LV smaller than its VG stands on some PVs only; the plan made them all)."""

    def ours(row: dict) -> bool:
        return bool(row.get("lv_dm_path")) and name_of(row["lv_dm_path"]) in stack

    in_stack = {row.get("vg_name") for _, row in _rows(lvs) if ours(row)}
    pv_names = {n for _, row in _rows(pvs) if row.get("vg_name") in in_stack and (n := name_of(row.get("pv_name", "")))}
    return (
        _report(pvs, lambda r: r.get("vg_name") in in_stack),
        _report(vgs, lambda r: r.get("vg_name") in in_stack),
        _report(lvs, ours),
        frozenset(pv_names),
    )
