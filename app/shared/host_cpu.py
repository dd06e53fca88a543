"""Where `predict` and `sweep` get the parity CPU figures: the plan, this host's kernel log, or a preset.

A figure the plan states wins; else the kernel's own benchmark, read from this host's log (or
from a log saved on the machine the plan is for); else the CPU class preset. --cpu-class and
--no-host-cpu leave this host's log unread, so a prediction for another machine is not coloured
by the one podplan happens to run on; so does a plan that names its own CPU class (a plan for a
2007 Xeon is not this host, and what this host's kernel chose says nothing about it).
"""

from __future__ import annotations

from typing import Any, Protocol

from planners.hardware.machine import Cpu, Hardware
from planners.models import Plan
from planners.perf.parity_log import CpuFigure, CpuOrigin, ParityLog, cpu_from_log
from planners.results import PlanResult
from planners.schemes import btrfs_scheme


def add_cpu_flags(group: Any) -> None:
    src = group.add_mutually_exclusive_group()
    src.add_argument(
        "--no-host-cpu",
        action="store_true",
        help="ignore this host's kernel log: raid6 gen()/xor figures from the plan or its CPU class "
        "preset (to predict for another machine; --cpu-class implies it)",
    )
    src.add_argument(
        "--kernel-log",
        metavar="FILE",
        help="raid6 gen()/xor figures from a kernel log saved on the machine the plan is for "
        "(dmesg > FILE there) instead of this host's",
    )


HostParity = tuple[ParityLog | None, str, str]  # (log, where it was read, why there is none)


def host_parity() -> HostParity:
    """This host's parity benchmark, from the first kernel log source that has it."""
    from runners.host.kernel_log import read_host_parity

    host = read_host_parity()
    return host.log, (f"this host's kernel log ({host.source})" if host.source else ""), host.why_none


def for_this_host(plan: Plan, log: ParityLog | None, where: str, why: str) -> tuple[Plan, CpuOrigin]:
    """apply_parity with this host's log, unless the plan names a CPU class of its own: then the plan
    is for another machine and its class preset speaks for it."""
    cls = (plan.hardware or Hardware()).cpu.cpu_class
    if cls != Cpu.model_fields["cpu_class"].default:
        return apply_parity(plan, None, "", f"the plan's CPU is of class {cls}: this host's kernel log is not read")
    return apply_parity(plan, log, where, why)


def apply_parity(plan: Plan, log: ParityLog | None, where: str, why: str) -> tuple[Plan, CpuOrigin]:
    """The plan with the log's parity figures where the plan states none, and where each came from."""
    hw = plan.hardware or Hardware()
    cpu, origin = cpu_from_log(hw.cpu, log, where, why)
    if cpu == hw.cpu:
        return plan, origin
    return plan.model_copy(update={"hardware": hw.model_copy(update={"cpu": cpu})}), origin


class CpuFlags(Protocol):
    """--kernel-log, --no-host-cpu and --cpu-class, as flags or as a request's fields."""

    @property
    def kernel_log(self) -> str | None: ...
    @property
    def no_host_cpu(self) -> bool: ...
    @property
    def cpu_class(self) -> str | None: ...


def with_cpu_source(plan: Plan, args: CpuFlags) -> tuple[Plan, CpuOrigin]:
    """The plan with its parity figures filled in as the flags say, and where each came from."""
    if args.kernel_log:
        from runners.host.kernel_log import KernelLogError, read_log_file

        try:
            log = read_log_file(args.kernel_log)
        except KernelLogError as exc:
            raise KernelLogError(f"--kernel-log: {exc}") from None
        return apply_parity(plan, log, f"the kernel log in {args.kernel_log}", "")
    if args.no_host_cpu:
        return apply_parity(plan, None, "", "--no-host-cpu")
    if args.cpu_class:
        return apply_parity(plan, None, "", "--cpu-class")
    return for_this_host(plan, *host_parity())


def with_host_cpu(plan: Plan) -> tuple[Plan, CpuOrigin]:
    """The plan's parity figures as this host's kernel log gives them: for `validate`, which
    always runs on the machine that holds the array."""
    return apply_parity(plan, *host_parity())


def _gb(mb_s: float) -> str:
    return f"{mb_s / 1000:.1f} GB/s"


def _where(f: CpuFigure, origin: CpuOrigin) -> str:
    if f.source == "plan":
        return "from the plan's [hardware.cpu]"
    if f.source == "kernel log":
        return f"from {origin.log_source}"
    return f"from preset {f.detail}" + (f" ({f.why_not_log})" if f.why_not_log else "")


def origin_text(origin: CpuOrigin) -> str:
    """'raid6 gen() 25.1 GB/s (avx2x4), xor 28.3 GB/s (avx) from this host's kernel log (dmesg)'."""
    parts = []
    for label, f in (("raid6 gen()", origin.raid6_gen), ("xor", origin.xor)):
        algo = f" ({f.detail})" if f.source == "kernel log" and f.detail else ""
        parts.append((f"{label} {_gb(f.mb_s)}{algo}", _where(f, origin)))
    (a, wa), (b, wb) = parts
    return f"{a}, {b} {wa}" if wa == wb else f"{a} {wa}; {b} {wb}"


def origin_json(origin: CpuOrigin) -> dict[str, Any]:
    return {"summary": origin_text(origin), **origin.model_dump(mode="json")}


def computes_parity(plan: Plan, result: PlanResult) -> bool:
    """Whether this host's CPU computes parity for the plan (md RAID4/5/6, btrfs raid5/6): only then
    does the line naming the parity figures say anything (a LUN's parity is its controller's)."""
    if any(g.scheme.parity for g in plan.groups):
        return True
    return any(
        v.btrfs and any(btrfs_scheme(p).parity for p in (v.btrfs.data_profile, v.btrfs.metadata_profile))
        for v in result.volumes
    )
