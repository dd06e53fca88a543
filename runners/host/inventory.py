"""What is on this machine: disks and their queue limits, md arrays, LVM, filesystems, mounts.

The host is read into the same {file: text} shape the lab's guest collector writes, so one
set of pure parsers (runners.lab.collect) serves both, and `podplan check` judges a real
array exactly as a rehearsal judges a virtual one. `lsblk -J -b -O` and /proc/mdstat get
parsers of their own here for the disk list and for "who uses this disk".
"""

from __future__ import annotations

import json
import os
import re

from pydantic import BaseModel, ConfigDict, Field

from runners.exec import CommandError, have, run
from runners.host.stack import lvm_within, stack_under
from runners.lab.collect import LabCollection, parse_collection
from runners.probes.lvm import LV_FIELDS, PV_FIELDS, VG_FIELDS

_FROZEN = ConfigDict(frozen=True)
SYS_BLOCK = "/sys/block"
_QUEUE = (
    ("minimum_io_size", "io_min"),
    ("optimal_io_size", "io_opt"),
    ("read_ahead_kb", "read_ahead_kb"),
    ("logical_block_size", "logical"),
    ("physical_block_size", "physical"),
    ("rotational", "rotational"),
)


class DiskInfo(BaseModel):
    """One block device as lsblk reports it."""

    model_config = _FROZEN

    name: str = Field(description="Kernel name, e.g. sdb.")
    path: str = Field(description="Device node, e.g. /dev/sdb.")
    type: str = Field(description="lsblk TYPE: disk, part, raid6, lvm, loop, ...")
    size_bytes: int = Field(description="Size, in bytes.")
    rotational: bool = Field(description="True for a spinning disk.")
    logical_sector: int = Field(description="Logical sector size, in bytes.")
    physical_sector: int = Field(description="Physical sector size, in bytes.")
    io_min: int = Field(description="Minimum I/O size, in bytes.")
    io_opt: int = Field(description="Optimal I/O size, in bytes (0 none).")
    read_ahead_bytes: int = Field(description="Readahead, in bytes.")
    scheduler: str = Field(description="I/O scheduler in use ('' unknown).")
    model: str = Field(description="Model string ('' unknown).")
    serial: str = Field(description="Serial number ('' unknown).")
    fstype: str = Field(description="Signature type blkid found: xfs, ext4, linux_raid_member, LVM2_member, ''.")
    mountpoints: tuple[str, ...] = Field(description="Where it is mounted.")
    children: tuple[str, ...] = Field(description="Names of the devices stacked directly on it (partitions, md, dm).")

    @property
    def in_use_by(self) -> str:
        """Who uses the device, in a few words ('' if nobody)."""
        if self.mountpoints:
            return "mounted at " + ", ".join(self.mountpoints)
        if self.children:
            return "holds " + ", ".join(self.children)
        if self.fstype:
            return f"{self.fstype} signature"
        return ""


class MdStat(BaseModel):
    """One array as /proc/mdstat shows it."""

    model_config = _FROZEN

    name: str = Field(description="md0, md127, ...")
    state: str = Field(description="active, inactive, ...")
    level: str = Field(description="raid6, raid10, ... ('' for an inactive array).")
    members: tuple[str, ...] = Field(description="Member names, with md's (F)/(S) marks stripped.")
    failed: tuple[str, ...] = Field(description="Members marked (F).")
    spares: tuple[str, ...] = Field(description="Members marked (S).")
    action: str = Field(description="resync, recovery, check, reshape ... running; '' if none.")
    progress_pct: float | None = Field(description="Progress of that action, in percent.")


def _int(v: object, default: int = 0) -> int:
    if not isinstance(v, (str, int, float)):
        return default
    try:
        return int(v)
    except ValueError:
        return default


def parse_lsblk(text: str) -> list[DiskInfo]:
    """`lsblk -J -b -O` -> every device, children after their parents (a device under several
    parents, such as an md on many disks, is listed once)."""
    out: dict[str, DiskInfo] = {}

    def walk(node: dict) -> None:
        kids = node.get("children") or []
        mounts = tuple(m for m in (node.get("mountpoints") or [node.get("mountpoint")]) if m)
        name = str(node.get("name") or node.get("kname"))
        out.setdefault(
            name,
            DiskInfo(
                name=name,
                path=str(node.get("path") or f"/dev/{name}"),
                type=str(node.get("type") or ""),
                size_bytes=_int(node.get("size")),
                rotational=bool(node.get("rota")),
                logical_sector=_int(node.get("log-sec"), 512),
                physical_sector=_int(node.get("phy-sec"), 512),
                io_min=_int(node.get("min-io")),
                io_opt=_int(node.get("opt-io")),
                read_ahead_bytes=_int(node.get("ra")) * 1024,
                scheduler=str(node.get("sched") or ""),
                model=str(node.get("model") or "").strip(),
                serial=str(node.get("serial") or "").strip(),
                fstype=str(node.get("fstype") or ""),
                mountpoints=mounts,
                children=tuple(str(k.get("name")) for k in kids),
            ),
        )
        for k in kids:
            walk(k)

    for dev in json.loads(text).get("blockdevices", []):
        walk(dev)
    return list(out.values())


_MD_LINE = re.compile(r"^(md\S+) : (\w+)(?: \((?:auto-)?read-only\))?\s*(.*)$")
_ACTION = re.compile(r"(resync|recovery|reshape|check|repair)\s*=\s*([\d.]+)%")


def parse_mdstat(text: str) -> list[MdStat]:
    """/proc/mdstat -> arrays, with a running resync/recovery and its progress."""
    arrays: list[MdStat] = []
    lines = text.splitlines()
    for i, line in enumerate(lines):
        m = _MD_LINE.match(line)
        if not m:
            continue
        name, state, rest = m.groups()
        words = rest.split()
        level = words[0] if words and not re.match(r"\w+\[\d+\]", words[0]) else ""
        members, failed, spares = [], [], []
        for w in words[1:] if level else words:
            mm = re.match(r"(\S+?)\[\d+\](\([FSWR]\))*", w)
            if not mm:
                continue
            members.append(mm.group(1))
            if "(F)" in w:
                failed.append(mm.group(1))
            if "(S)" in w:
                spares.append(mm.group(1))
        action, pct = "", None
        for nxt in lines[i + 1 : i + 4]:
            if _MD_LINE.match(nxt) or not nxt.strip():
                break
            a = _ACTION.search(nxt)
            if a:
                action, pct = a.group(1), float(a.group(2))
            elif re.search(r"resync=(PENDING|DELAYED)", nxt):
                action = "resync"
        arrays.append(
            MdStat(
                name=name,
                state=state,
                level=level,
                members=tuple(members),
                failed=tuple(failed),
                spares=tuple(spares),
                action=action,
                progress_pct=pct,
            )
        )
    return arrays


def read_sysfs(path: str) -> str:
    """A sysfs or proc file, stripped; '' if it cannot be read (absent on this kernel or device)."""
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return ""


def _tool(argv: list[str], timeout: float = 60.0) -> str:
    """A report tool's stdout, or its complaint: a missing tool or an odd device must not stop an inventory."""
    if not have(argv[0]):
        return ""
    try:
        r = run(argv, timeout=timeout, check=False)
    except CommandError as exc:
        return str(exc)
    return r.stdout if r.returncode == 0 else (r.stdout + r.stderr)


def _block_line(name: str) -> str:
    base = os.path.join(SYS_BLOCK, name)
    q = os.path.join(base, "queue")
    parts = [f"dev={name}"] + [f"{key}={read_sysfs(os.path.join(q, f))}" for f, key in _QUEUE]
    parts.append(f"dm_name={read_sysfs(os.path.join(base, 'dm', 'name'))}")
    parts.append(f"stripe_cache_size={read_sysfs(os.path.join(base, 'md', 'stripe_cache_size'))}")
    size = _int(read_sysfs(os.path.join(base, "size"))) * 512
    # The block layer keeps readahead in KiB; blockdev --getra reports 512-byte sectors.
    ra = _int(read_sysfs(os.path.join(q, "read_ahead_kb"))) * 2
    return " ".join([*parts, f"size={size}", f"ra={ra}"])


def gather_files(top: str | None = None) -> dict[str, str]:
    """The host's storage, read into the lab collector's {file: text} shape; with `top` (a kernel name) only
    the stack under that device: its filesystem, LVs, VG with all its PVs, md arrays and their members."""
    files: dict[str, str] = {"mdstat.txt": read_sysfs("/proc/mdstat"), "mounts.txt": read_sysfs("/proc/mounts")}
    try:
        names = sorted(os.listdir(SYS_BLOCK))
    except OSError:
        names = []
    lvm = ["--reportformat", "json", "--units", "b", "--nosuffix"]
    files["pvs.json"] = _tool(["pvs", *lvm, "-o", f"{PV_FIELDS},vg_name"])
    files["vgs.json"] = _tool(["vgs", *lvm, "-o", VG_FIELDS])
    files["lvs.json"] = _tool(
        ["lvs", *lvm, "--segments", "-o", f"{LV_FIELDS},vg_name,lv_read_ahead,lv_kernel_read_ahead,lv_dm_path"]
    )
    if top is not None:
        stack = stack_under([top])
        files["pvs.json"], files["vgs.json"], files["lvs.json"], pvs = lvm_within(
            stack, files["pvs.json"], files["vgs.json"], files["lvs.json"]
        )
        stack |= stack_under(pvs)
        # The top itself is read even unmounted (a filesystem straight on a disk); other devices only
        # where they are md or dm devices, members or mounted, as for the whole host.
        names = [n for n in names if n in stack] + ([top] if top not in names else [])
    mds = [n for n in names if n.startswith("md")]
    members: set[str] = set()
    for n in mds:
        md = os.path.join(SYS_BLOCK, n, "md")
        files[f"md/{n}.export"] = _tool(["mdadm", "--detail", "--export", f"/dev/{n}"])
        files[f"md/{n}.detail"] = _tool(["mdadm", "--detail", f"/dev/{n}"])
        attrs = (
            "level",
            "raid_disks",
            "chunk_size",
            "layout",
            "component_size",
            "metadata_version",
            "stripe_cache_size",
            "sync_action",
            "array_state",
        )
        files[f"md/{n}.sysfs"] = "\n".join(f"{a} {v}" for a in attrs if (v := read_sysfs(os.path.join(md, a))))
        rows = []
        for d in sorted(os.listdir(md)) if os.path.isdir(md) else []:
            if not d.startswith("dev-"):
                continue
            m = d[4:]
            members.add(m)
            files[f"examine/{m}.txt"] = _tool(["mdadm", "--examine", f"/dev/{m}"])
            rows.append(f"{m} {read_sysfs(os.path.join(md, d, 'slot'))} {read_sysfs(os.path.join(md, d, 'state'))}")
        files[f"md/{n}.members"] = "\n".join(rows)
    block = [n for n in names if n.startswith(("md", "dm-"))] + sorted(
        m for m in members if os.path.isdir(os.path.join(SYS_BLOCK, m))
    )
    # A filesystem mounted straight on a whole disk (a plan without md or LVM) is read like one on an array.
    mounted = {
        os.path.basename(os.path.realpath(line.split()[0]))
        for line in files["mounts.txt"].splitlines()
        if line.startswith("/dev/")
    }
    block += [n for n in names if (n in mounted or n == top) and n not in block]
    files["block.txt"] = "\n".join(_block_line(n) for n in block)
    for n in block:
        if n in members:
            continue
        kind = _tool(["blkid", "-p", "-o", "value", "-s", "TYPE", f"/dev/{n}"]).strip()
        if kind == "xfs":
            files[f"fs/{n}.xfs_info"] = _tool(["xfs_info", f"/dev/{n}"])
        elif kind in ("ext2", "ext3", "ext4"):
            files[f"fs/{n}.dumpe2fs"] = _tool(["dumpe2fs", "-h", f"/dev/{n}"])
        elif kind == "btrfs":
            files[f"fs/{n}.btrfs"] = _btrfs_report(n, files["mounts.txt"])
    # df of the collected filesystems' own mount points only: a df of every mount stats mounts that
    # are not ours, and one being torn down meanwhile (another program's) made it fail or hang.
    points = sorted(
        {
            f[1].replace("\\040", " ")
            for f in (line.split() for line in files["mounts.txt"].splitlines())
            if len(f) > 1 and _kernel_name(f[0]) in block
        }
    )
    files["df.txt"] = _tool(["df", "-B1", "--output=source,fstype,size,used,avail,target", *points]) if points else ""
    files["lsblk.json"] = _tool(["lsblk", "-J", "-b", "-O"])
    files["aliases.txt"] = _aliases()
    return files


def _btrfs_report(name: str, mounts: str) -> str:
    """A btrfs's devices (`btrfs filesystem show --raw`) and, where it is mounted, its usage summary."""
    text = _tool(["btrfs", "filesystem", "show", "--raw", f"/dev/{name}"])
    at = next(
        (f[1] for f in (line.split() for line in mounts.splitlines()) if len(f) > 1 and _kernel_name(f[0]) == name),
        None,
    )
    return text + (_tool(["btrfs", "filesystem", "usage", "-b", at]) if at else "")


def _kernel_name(path: str) -> str:
    return os.path.basename(os.path.realpath(path)) if path.startswith("/dev/") else ""


def _aliases() -> str:
    """Each /dev/disk/*/ and /dev/md/ link with the kernel name it points to: a plan names its disks by such
    paths, and btrfs shows the path it was made or mounted with."""
    lines = []
    kinds = sorted(os.listdir("/dev/disk")) if os.path.isdir("/dev/disk") else []
    for folder in [*(os.path.join("/dev/disk", k) for k in kinds), "/dev/md"]:
        for link in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
            path = os.path.join(folder, link)
            lines.append(f"{path} {_kernel_name(path)}")
    return "\n".join(lines)


def collect_host(top: str | None = None) -> LabCollection:
    """Everything `podplan check` compares, read from this machine: the whole host, or the stack under `top`."""
    return parse_collection(gather_files(top))


def disks() -> list[DiskInfo]:
    """Every block device lsblk sees, with who uses it."""
    text = _tool(["lsblk", "-J", "-b", "-O"])
    return parse_lsblk(text) if text.strip().startswith("{") else []
