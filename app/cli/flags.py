"""Command-line flags that describe a plan, so one can plan without writing a file."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from app.shared.planfile import load_plan, plan_from_data
from planners.errors import PlanError
from planners.models import BTRFS_PROFILES, Plan
from planners.units import bare_unit_note, parse_size

LAYOUT_FLAGS = (
    "name",
    "disks",
    "disk_size",
    "logical_sector",
    "physical_sector",
    "ssd",
    "devices",
    "level",
    "layout",
    "groups",
    "spares",
    "chunk",
    "metadata",
    "bitmap",
    "bitmap_chunk",
    "lvm",
    "lvm_mode",
    "stripe_size",
    "extent_size",
    "data_alignment",
    "lv_size",
    "fs",
    "journal",
    "journal_device",
    "log_device",
    "data_profile",
    "metadata_profile",
    "block_size",
    "stripe",
    "reserved",
    "label",
    "mount_point",
    "readahead",
    "stripe_cache",
    "md",
)
MD_FLAGS = ("level", "layout", "groups", "spares", "chunk", "metadata", "bitmap", "bitmap_chunk")


def add_plan_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "plan_file",
        nargs="?",
        metavar="PLAN.toml",
        help="plan file (default: the example pod, as `podplan plan` shows it); flags below change it",
    )
    p.add_argument(
        "--name",
        help="plan name (names its udev rule, build log and labels); a label and mount point that "
        "followed the old name (LABEL, /srv/NAME) follow the new one",
    )
    d = p.add_argument_group("disks")
    d.add_argument("--disks", type=int, metavar="N", help="number of disks")
    d.add_argument(
        "--disk-size", metavar="SIZE", help="size of each disk: 2TB (decimal), 1.8TiB or 18T (binary), 2000398934016"
    )
    d.add_argument("--logical-sector", type=int, choices=(512, 4096), help="logical sector size in bytes")
    d.add_argument("--physical-sector", type=int, choices=(512, 4096), help="physical sector size in bytes")
    d.add_argument("--ssd", action=argparse.BooleanOptionalAction, default=None, help="non-rotational disks")
    d.add_argument(
        "--devices",
        metavar="PATH,...",
        help="comma-separated device paths, one per disk of the plan, in order (the layout stays)",
    )
    m = p.add_argument_group("md")
    m.add_argument(
        "--md",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="--no-md: no md arrays; LVM straight on the disks, or the filesystem on the one disk",
    )
    m.add_argument("--level", type=int, choices=(0, 1, 4, 5, 6, 10), help="RAID level")
    m.add_argument("--layout", help="RAID10 n2/n3/f2/f3/o2/o3 or RAID5/6 left-symmetric, ...")
    m.add_argument(
        "--groups",
        type=int,
        metavar="G",
        help="split the disks into G identical md arrays (with --disks and no --groups: one array)",
    )
    m.add_argument("--spares", type=int, metavar="S", help="hot spares per array")
    m.add_argument("--chunk", metavar="SIZE", help="chunk size, e.g. 512K")
    m.add_argument("--metadata", choices=("1.0", "1.1", "1.2"), help="md superblock format")
    m.add_argument(
        "--bitmap",
        metavar="none|internal|SIZE",
        help="write-intent bitmap: none (drops a plan's bitmap chunk), internal with mdadm's chunk (clears "
        "a plan's chunk), or internal with a chunk of SIZE, e.g. 64M",
    )
    m.add_argument("--bitmap-chunk", metavar="SIZE", help="bitmap chunk, e.g. 64M (the bitmap is internal)")
    lv = p.add_argument_group("lvm")
    lv.add_argument(
        "--lvm", action=argparse.BooleanOptionalAction, default=None, help="LVM between md and the filesystem"
    )
    lv.add_argument("--lvm-mode", choices=("linear", "striped"), help="concatenate or stripe the md arrays")
    lv.add_argument("--stripe-size", metavar="SIZE", help="lvcreate -I for striped mode, e.g. 512K")
    lv.add_argument("--extent-size", metavar="SIZE", help="vgcreate -s, e.g. 4M")
    lv.add_argument("--data-alignment", metavar="SIZE", help="pvcreate --dataalignment (default: the md full stripe)")
    lv.add_argument(
        "--lv-size",
        metavar="SIZE|N%|rest",
        help="size of the LV: bytes such as 10GB (rounded up to whole extents, as lvcreate -L), N%% of the VG, "
        "or rest (all of it, the default)",
    )
    f = p.add_argument_group("filesystem")
    f.add_argument("--fs", choices=("xfs", "ext4", "ext3", "btrfs"), help="filesystem type")
    f.add_argument("--data-profile", choices=BTRFS_PROFILES, help="btrfs data profile (mkfs.btrfs -d)")
    f.add_argument("--metadata-profile", choices=BTRFS_PROFILES, help="btrfs metadata profile (mkfs.btrfs -m)")
    f.add_argument(
        "--journal",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="--no-journal: ext4 without a journal (mke2fs -O ^has_journal), for scratch space",
    )
    f.add_argument(
        "--journal-device",
        metavar="PATH",
        help="ext4/ext3 journal on this device (mke2fs -O journal_dev, then -J device=PATH); its data is destroyed",
    )
    f.add_argument(
        "--log-device",
        metavar="PATH",
        help="XFS log on this device (mkfs.xfs -l logdev=PATH, 64 MiB to 2 GiB - 10 MiB); its data is destroyed",
    )
    f.add_argument("--block-size", type=int, choices=(1024, 2048, 4096), help="filesystem block size")
    f.add_argument(
        "--stripe",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="--no-stripe: XFS/ext4 aligned to no stripe, said to mkfs (-d noalign, -E stride=0,stripe_width=0) "
        "so it adopts none from the device; --stripe: the stripe of the device below (drops a plan's override)",
    )
    f.add_argument("--reserved", type=float, metavar="PCT", help="ext3/ext4 reserved blocks percentage")
    f.add_argument("--label", help="filesystem label")
    f.add_argument("--mount-point", metavar="DIR", help="mount point")
    t = p.add_argument_group("tuning")
    t.add_argument("--readahead", metavar="SIZE", help="readahead of the top device, e.g. 16M")
    t.add_argument("--stripe-cache", type=int, metavar="ENTRIES", help="md stripe_cache_size")


def add_save_flags(p: argparse.ArgumentParser) -> None:
    """`plan --save FILE [--force]`: the plan the flags describe, written as a plan file."""
    p.add_argument(
        "--save",
        metavar="FILE.toml",
        help="write the plan (the file's with the flags applied) as a plan file that reads back to the same plan",
    )
    p.add_argument("--force", action="store_true", help="overwrite the --save file if it exists")


def save_plan_file(plan: Plan, args: argparse.Namespace) -> None:
    """--save: the plan file, through the one writer (no existing file without --force, no link followed)."""
    if getattr(args, "save", None):
        from app.shared.planfile import save_plan

        save_plan(plan, args.save, overwrite=args.force)
        say(f"wrote the plan {plan.name!r} to {args.save}")


def say(line: str) -> None:
    """A note for the user on stderr, so that --json output stays clean."""
    print(f"podplan: {line}", file=sys.stderr)


def load_plan_file(path: str) -> Plan:
    """A plan file, with a note on stderr for each disk size read in binary units from a bare 'T'."""
    notes: list[str] = []
    plan = load_plan(path, notes=notes)
    for line in notes:
        say(line)
    return plan


def note_disk_size(text: str | None, what: str) -> None:
    if note := bare_unit_note(text):
        say(f"{what} {note}")


def _size(value: str | None, what: str) -> int | None:
    return None if value is None else parse_size(value, what=what)


def plan_from_args(args: argparse.Namespace, base: Plan | None) -> Plan:
    """The base plan with the flags applied; validation errors are one line.

    The base is the plan file, or without one the example pod (what `podplan plan` shows with
    no flags): flags always change a plan the user can see, never a hidden one of their own.
    Without a plan file the config file's defaults are in the example (`podplan plan` shows
    them); a plan file's own values are never changed by it.
    """
    given = {k for k in LAYOUT_FLAGS if getattr(args, k, None) is not None}
    from_file = base is not None
    if args.disks is not None and args.disks < 1:
        raise PlanError(f"--disks must be 1 or more, not {args.disks}")
    if base is None:
        from app.shared.config import example_plan

        base = example_plan()  # the example pod with this machine's defaults (config.toml), if any
        if not given:
            return base
    data: dict[str, Any] = base.model_dump(mode="json", exclude_none=True)
    total = sum(d["count"] for d in data["disks"])
    paths = [p for p in args.devices.split(",") if p] if args.devices is not None else None
    # One path per disk of the plan names its disks and keeps its layout. Another count without
    # --disks is a new set of disks from the example; from a file it is a slip that would build
    # something else than the plan, so it is refused.
    new_disks = args.disks is not None or (paths is not None and len(paths) != total)
    if paths is not None and new_disks and from_file and args.disks is None:
        raise PlanError(
            f"--devices names {len(paths)} paths but the plan has {total} disks: give one path per "
            f"disk, in order (or --disks {len(paths)} for a new layout of these disks)"
        )
    if paths is not None and not new_disks and args.disk_size is None:
        offset = 0
        for d in data["disks"]:
            d["devices"], offset = paths[offset : offset + d["count"]], offset + d["count"]
    elif args.disks is not None or args.disk_size is not None or paths is not None:
        old = data["disks"][0]
        # Devices alone say how many disks there are: one path per disk.
        count = args.disks if args.disks is not None else (len(paths) if paths else total)
        disk: dict[str, Any] = {k: v for k, v in old.items() if k != "devices"}
        disk["count"] = count
        if args.disk_size is not None:
            disk["size"] = _size(args.disk_size, "--disk-size")
        if paths is not None:
            disk["devices"] = paths
        data["disks"] = [disk]
    for key, flag in (("logical_sector", "logical_sector"), ("physical_sector", "physical_sector")):
        if getattr(args, flag) is not None:
            data["disks"] = [{**d, key: getattr(args, flag)} for d in data["disks"]]
    if args.ssd is not None:
        data["disks"] = [{**d, "rotational": not args.ssd} for d in data["disks"]]
    # A model text describes the disk it came with: another size, sector or kind is another disk.
    before = {(d.size, d.logical_sector, d.physical_sector, d.rotational) for d in base.disks}
    for d in data["disks"]:
        if (d["size"], d["logical_sector"], d["physical_sector"], d["rotational"]) not in before:
            d.pop("model", None)

    if args.name is not None:
        _apply_name(data, args)
    _apply_groups(data, args, new_disks)
    _apply_layers(data, args)
    plan = plan_from_data(data, source="plan with flags")
    note_disk_size(args.disk_size, "--disk-size")  # once the plan holds: bad input stays one line
    return plan


def _apply_name(data: dict[str, Any], args: argparse.Namespace) -> None:
    """--name NAME, checked by the plan name rule; the label and mount point that were the old
    name's (the example's pod45 and /srv/pod45) become the new one's unless given too. A name
    longer than the filesystem's label leaves the filesystem unlabelled, said on stderr."""
    from planners.names import LABELS, PLAN_NAME

    old, name = data.get("name", ""), PLAN_NAME.check(args.name, "--name")
    data["name"] = name
    fs = data.setdefault("filesystem", {})
    if args.mount_point is None and fs.get("mount_point") == f"/srv/{old}":
        fs["mount_point"] = f"/srv/{name}"
    if args.label is None and fs.get("label") == old:
        fs_type = args.fs or fs.get("type", "xfs")
        try:
            fs["label"] = LABELS[fs_type].check(name, "--name")
        except PlanError as exc:
            fs["label"] = ""
            say(f"the filesystem gets no label: {exc.message}")


def _apply_groups(data: dict[str, Any], args: argparse.Namespace, new_disks: bool) -> None:
    total = sum(d["count"] for d in data["disks"])
    md_flags = [k for k in MD_FLAGS if getattr(args, k, None) is not None]
    if getattr(args, "md", None) is False:
        if md_flags:
            raise PlanError(f"--no-md takes no md flag (--{md_flags[0].replace('_', '-')} was given)")
        data["groups"] = []
        return
    if not data["groups"]:
        if not md_flags and not getattr(args, "md", None):
            return  # a plan without md stays one
        data["groups"] = [{"name": "md0", "members": total}]
        new_disks = True
    template = dict(data["groups"][0])
    # A new disk count is a new layout: without --groups, all the disks make one array.
    ngroups = args.groups if args.groups is not None else (1 if new_disks else len(data["groups"]))
    if ngroups < 1:
        raise PlanError("--groups must be at least 1")
    reshape = new_disks or any(getattr(args, k) is not None for k in ("groups", "spares"))
    for key, flag in (("level", "level"), ("layout", "layout"), ("metadata", "metadata")):
        if getattr(args, flag) is not None:
            template[key] = getattr(args, flag)
    _apply_bitmap(template, args.bitmap, args.bitmap_chunk)
    if args.level is not None and args.layout is None:
        template.pop("layout", None)
    if args.chunk is not None:
        template["chunk"] = _size(args.chunk, "--chunk")
    if args.level == 1 and args.chunk is None:
        template.pop("chunk", None)
    if args.level == 0 and args.bitmap is None and args.bitmap_chunk is None:
        template.pop("bitmap_chunk", None)  # md takes no bitmap on RAID0: the plan's chunk is for its other levels
    if args.spares is not None:
        template["spares"] = args.spares
    if reshape:
        from app.usecases.plan import members_per_group

        template["members"] = members_per_group(total, ngroups, template.get("spares", 0))
    groups = []
    for i in range(ngroups):
        g = dict(template)
        if not reshape:
            # Each array keeps its size; every other setting is the template's, a setting a flag cleared included.
            g.update({k: v for k, v in data["groups"][i].items() if k in ("name", "members", "spares")})
        g["name"] = (g.get("name") if (i < len(data["groups"]) and not reshape) else None) or f"md{i}"
        groups.append(g)
    data["groups"] = groups


def _apply_bitmap(template: dict[str, Any], bitmap: str | None, chunk: str | None) -> None:
    """--bitmap none|internal|SIZE and --bitmap-chunk SIZE on the groups' template: none drops a
    plan's bitmap chunk with the bitmap, internal leaves the chunk to mdadm, a size is an internal
    bitmap of that chunk; so comparing levels and bitmaps needs no edited plan file."""
    what = "--bitmap-chunk"
    if bitmap is not None and bitmap not in ("none", "internal"):
        if chunk is not None:
            raise PlanError("--bitmap SIZE is the bitmap chunk: give it or --bitmap-chunk, not both")
        bitmap, chunk, what = "internal", bitmap, "--bitmap"
    if bitmap == "none" and chunk is not None:
        raise PlanError("--bitmap none takes no --bitmap-chunk")
    if bitmap is not None:
        template["bitmap"] = bitmap
        template.pop("bitmap_chunk", None)
    if chunk is not None:
        template["bitmap"] = "internal"
        template["bitmap_chunk"] = _size(chunk, what)


def _apply_layers(data: dict[str, Any], args: argparse.Namespace) -> None:
    lvm = dict(data.get("lvm", {}))
    if args.lvm is not None:
        lvm["enabled"] = args.lvm
    if args.lvm_mode is not None:
        lvm["mode"] = args.lvm_mode
        lvm["enabled"] = True
        if args.lvm_mode == "linear":
            lvm.pop("stripe_size", None)
    for key, flag, what in (
        ("stripe_size", "stripe_size", "--stripe-size"),
        ("extent_size", "extent_size", "--extent-size"),
        ("data_alignment", "data_alignment", "--data-alignment"),
    ):
        if getattr(args, flag) is not None:
            lvm[key] = _size(getattr(args, flag), what)
    if args.lv_size is not None:
        if args.lvm is False:
            raise PlanError("--lv-size sizes the LVM logical volume, and --no-lvm leaves LVM out")
        lvm["lv_size"] = args.lv_size
        lvm["enabled"] = True
    data["lvm"] = lvm
    fs = dict(data.get("filesystem", {}))
    for key, flag in (
        ("type", "fs"),
        ("journal", "journal"),
        ("journal_device", "journal_device"),
        ("log_device", "log_device"),
        ("data_profile", "data_profile"),
        ("metadata_profile", "metadata_profile"),
        ("block_size", "block_size"),
        ("reserved_percent", "reserved"),
        ("label", "label"),
        ("mount_point", "mount_point"),
    ):
        if getattr(args, flag) is not None:
            fs[key] = getattr(args, flag)
    if args.stripe is not None:
        fs.pop("stripe_unit", None)
        fs.pop("stripe_width", None)
        if not args.stripe:
            fs.update(stripe_unit=0, stripe_width=0)
    data["filesystem"] = fs
    tuning = dict(data.get("tuning", {}))
    if args.readahead is not None:
        tuning["readahead"] = _size(args.readahead, "--readahead")
    if args.stripe_cache is not None:
        tuning["stripe_cache_size"] = args.stripe_cache
    data["tuning"] = tuning
