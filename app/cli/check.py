"""`podplan check TARGET --plan PLAN.toml`: the array as built against its plan, every difference
with what it costs. Exit 0 when it matches, 1 when something differs."""

from __future__ import annotations

import json
import os
import re

from rich.console import Console

from app.shared.console import cli_console
from app.shared.fit import Col, FitTable
from planners.built.asbuilt import Difference, differences
from planners.compute import compute
from planners.errors import PlanError
from planners.models import Plan

EXIT_OK, EXIT_DIFFERENT = 0, 1
_DELTA = re.compile(r" \(([+-][\d,]+) against the plan\)")


def check_collection(plan: Plan, collection) -> tuple[int, list[Difference]]:
    """(figures compared, differences) of a plan against what a system reported."""
    from runners.lab.rehearse import compare

    checks = compare(plan, compute(plan), collection)
    return len(checks), differences((c.layer, c.figure, c.predicted, c.actual) for c in checks)


def run_check(target: str, *, plan: Plan | None, as_json: bool) -> int:
    if plan is None:
        raise PlanError("check needs the plan the array was built from (--plan PLAN.toml)")
    if not os.path.exists(target):
        raise PlanError(f"{target}: no such device or directory")
    if os.geteuid() != 0:
        raise PlanError("check reads md superblocks and filesystem headers: run it as root")
    from runners.host.inventory import collect_host
    from runners.validate.contents import describe_device
    from runners.validate.shape import mount_of

    collection = collect_host()
    directory = os.path.isdir(target)
    found = describe_target(
        target, collection, mount_of(target) if directory else None, None if directory else describe_device(target)
    )
    compared, diffs = check_collection(plan, collection)
    if as_json:
        print(
            json.dumps(
                {
                    "target": target,
                    "found": found,
                    "compared": compared,
                    "differences": [d.model_dump() for d in diffs],
                },
                indent=2,
            )
        )
    else:
        print_differences(cli_console(), target, compared, diffs, found)
    return EXIT_DIFFERENT if diffs else EXIT_OK


def describe_target(
    target: str, collection, mount: tuple[str, str, str] | None = None, device: str | None = None
) -> str:
    """What the target is, as found: 'XFS on /dev/md0, 1 md array (raid6), no LVM'.

    `mount` (source, type, mount point) is the filesystem a directory target is on, and `device`
    what a block device target holds (runners.validate.contents): what is said when that is not an md
    or dm device podplan reads (a plain disk, a loop device, an md member).
    """
    real = os.path.realpath(target)
    fs = next((f for f in collection.filesystems if f.mountpoint and os.path.realpath(f.mountpoint) == real), None)
    fs = fs or next((f for f in collection.filesystems if f.device == os.path.basename(real)), None)
    if fs is not None and device is not None and not fs.device.startswith(("md", "dm-")):
        fs = None  # a filesystem straight on the disk: what blkid reads there (label, mount) says more
    if fs is None and mount is not None:
        source, fstype, mountpoint = mount
        where = "" if os.path.realpath(mountpoint) == real else f", mounted on {mountpoint}"
        stacked = source.startswith(("/dev/md", "/dev/mapper/", "/dev/dm-"))
        return f"{target}: {fstype.upper()} on {source}{where}, " + (
            "which podplan could not read" if stacked else "not on md or LVM"
        )
    if fs is None and device is not None:
        return f"{target}: {device}; no md array or LVM volume there"
    if fs is None:
        return f"{target}: no filesystem or array that podplan can read there"
    block = collection.block.get(fs.device)
    parts = [f"{fs.fstype.upper()} on /dev/{fs.device}" + (f" ({block.dm_name})" if block and block.dm_name else "")]
    arrays = collection.md
    if arrays:
        levels = sorted({a.level for a in arrays})
        parts.append(f"{len(arrays)} md array{'s' if len(arrays) > 1 else ''} ({', '.join(levels)})")
    else:
        parts.append("no md")
    parts.append(
        f"LVM: {len(collection.lvs)} LV{'s' if len(collection.lvs) != 1 else ''}" if collection.lvs else "no LVM"
    )
    return f"{target}: " + ", ".join(parts)


def print_differences(console: Console, target: str, compared: int, diffs: list[Difference], found: str = "") -> None:
    if found:
        console.print(f"found {found}")
    if not diffs:
        console.print(f"{target}: built as planned ({compared} figures compared)")
        return

    # Many figures share one consequence (every size above a bigger array, everything of an array
    # that is not there): the table gives each figure's own difference, the notes say each cost once.
    def note_of(d: Difference) -> str:
        return _DELTA.sub("", d.consequence)

    notes = list(dict.fromkeys(note_of(d) for d in diffs))
    deltas = [_DELTA.search(d.consequence) for d in diffs]
    # Narrower than the table, the figure names wrap between words; then the difference (actual less
    # planned) goes, then the layer (the figure's name says it): planned and actual stay whole.
    console.print(
        FitTable(
            [
                Col("layer", [d.layer for d in diffs], right=False, spare=True),
                Col("figure", [d.figure for d in diffs], right=False, words=True),
                Col("planned", [_figure(d.planned) for d in diffs]),
                Col("actual", ["missing" if d.actual is None else _figure(d.actual) for d in diffs]),
                Col("difference", [m.group(1) if m else "" for m in deltas], spare=True),
                Col("why", [f"[{notes.index(note_of(d)) + 1}]" for d in diffs]),
            ],
            [("difference",), ("difference", "layer")],
            table=dict(
                title=f"{target}: {len(diffs)} of {compared} figures differ from the plan", title_justify="left"
            ),
        )
    )
    for i, note in enumerate(notes, start=1):
        console.print(f"[{i}] {note}", markup=False, highlight=False)


def _figure(v: int | str) -> str:
    """Whole numbers grouped in thousands, as the difference column and `podplan plan` write them."""
    return f"{v:,}" if isinstance(v, int) else v
