"""Flags that several commands share (beside the plan's own in flags.py): hardware presets, the
parity CPU's source, and --scale sweeps. Each import is made when a parser that has the flag is built."""

from __future__ import annotations

import argparse

MODES = ("normal", "degraded", "rebuild")


def add_plan_and_hardware_flags(p: argparse.ArgumentParser) -> None:
    """predict's and sweep's: the plan flags, then the disk and CPU presets."""
    from app.cli.flags import add_plan_flags

    add_plan_flags(p)
    add_hardware_flags(p)


def add_hardware_flags(p: argparse.ArgumentParser) -> None:
    from app.shared.host_cpu import add_cpu_flags
    from planners.hardware.disks import DISK_CLASSES
    from planners.hardware.machine import CPU_CLASSES

    h = p.add_argument_group("hardware")
    h.add_argument("--disk-class", choices=tuple(DISK_CLASSES), help="disk class preset for every disk")
    h.add_argument(
        "--cpu-class",
        choices=tuple(CPU_CLASSES),
        help="host CPU class preset (this host's kernel log is then not read)",
    )
    add_cpu_flags(h)


def add_scale_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--scale",
        action="append",
        metavar="OPTION=VALUES",
        help="sweep numjobs, iodepth or bs over VALUES: a list (numjobs=1,48,192) or doubling "
        "(iodepth=1..256x2, bs=4k..4mx2); a second --scale makes a grid, one curve per value",
    )
    p.add_argument("--html", metavar="FILE", help="with --scale: also write the curves as a self-contained HTML report")
    p.add_argument(
        "--force",
        action="store_true",
        help="overwrite the files of --html (and --report) if they exist; with --burn-in: start over although a "
        "stopped burn-in is saved",
    )
