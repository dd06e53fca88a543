"""Flags that several commands share (beside the plan's own in flags.py): hardware presets, the
parity CPU's source, and --scale sweeps, and what they make of a plan, fio job files and axes. Each
import is made when a parser that has the flag is built, or when the flag is read: `predict --json`
reads them and renders nothing, so nothing here imports a renderer (Rich)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.usecases.predict import Axis
    from planners.models import Plan

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


def with_hardware(plan: Plan, args: argparse.Namespace) -> Plan:
    """The plan with --disk-class and --cpu-class in its hardware."""
    from planners.hardware.machine import Cpu, Hardware

    hw = plan.hardware or Hardware()
    if args.disk_class:
        hw = hw.model_copy(update={"disk": hw.disk.model_copy(update={"disk_class": args.disk_class}), "models": {}})
    if args.cpu_class:
        hw = hw.model_copy(update={"cpu": Cpu(cpu_class=args.cpu_class)})
    return plan.model_copy(update={"hardware": hw}) if (args.disk_class or args.cpu_class) else plan


def read_jobs(paths: list[str]) -> list:
    """Each fio job file parsed; an unreadable file or a refused option is one line (PlanError)."""
    from app.shared.planfile import load_job_file

    return [load_job_file(path) for path in paths]


def axes_of(args: argparse.Namespace) -> list[Axis]:
    """The --scale options read; [] without any. Bad input is one PlanError line."""
    from app.usecases.predict import parse_scale
    from planners.errors import PlanError

    specs = getattr(args, "scale", None) or []
    if len(specs) > 2:
        raise PlanError("--scale: at most two (an x axis and one curve per value of the second)", "scale")
    axes = [parse_scale(s) for s in specs]
    if len({a.key for a in axes}) < len(axes):
        raise PlanError(f"--scale: {axes[0].key} is swept twice", "scale")
    if getattr(args, "html", None) and not axes:
        raise PlanError("--html draws the curves of a sweep: give --scale too", "html")
    return axes
