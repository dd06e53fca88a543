"""Ranges from what the plan does not state.

Each term of a prediction rests on inputs: the disks' sequential and random figures, the CPU's
figures, its per-request costs, a controller's round trip, md's shared lines. An input the plan
states (a datasheet's figure, a measurement, a stated round trip) keeps only its own spread (a
datasheet's unit-to-unit variation, fio's repeatability); one left to a preset (a disk class, a CPU
class, a controller kind) carries how far real hardware of that preset strays from it, each
spread sourced where the preset is (planners.hardware, docs/calibration.md).

Inputs are independent, so a term resting on several is moved by the root of the sum of their
squares (each taken at full weight on the term: an upper bound for a term only partly made of an
input), and the range is the smallest of each side over the terms. The range names each input
whose spread moves a term into it, and says when every such input was stated.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from math import sqrt
from typing import Protocol

from planners.hardware.generations import PER_REQUEST
from planners.perf.context import PerfCtx
from planners.perf.controller import controller_spreads
from planners.perf.md_locks import NAME as MD_LOCKS
from planners.perf.md_locks import socket_mix
from planners.perf.platform_spread import platform_spreads
from planners.perf.request_cpu import NAME as REQUEST_CPU
from planners.perf.roof import CPU_COPY
from planners.perf.workloads import Workload


class Ceiling(Protocol):
    """A term as the prediction shows it: a name and its figure."""

    @property
    def name(self) -> str: ...
    @property
    def mb_s(self) -> float: ...


# Terms that rest on the disks' figures (the sequential ones for a sequential job, the random ones
# for a random job), and those that rest on a controller's. A sync's "flush" term rests on the disk's
# revolution, positioning or access time (planners.perf.jobshape).
DISK_TERMS = frozenset({"disks", "queue depth", "readahead", "stripe cache", "write cache", "flush"})
CONTROLLER_TERMS = frozenset({"queue depth", "write cache"})
# The per-request figures: the plan states them all or the term keeps their spread.
REQUEST_FIELDS = tuple(f for f in PER_REQUEST if f != "reclaim_us")  # reclaim is the copy's
# Terms that rest on the CPU's figures, and which figures.
CPU_TERMS = {
    CPU_COPY: ("buffered_write_mb_s", "buffered_read_mb_s", "reclaim_us"),
    "md thread": ("md_thread_mb_s",),
    "host PCIe": ("pcie_lanes", "pcie_gen"),
    "memory": ("memory_mb_s",),
    "parity CPU": ("raid6_gen_mb_s", "xor_mb_s"),
    "checksums": ("crc32c_mb_s",),
    MD_LOCKS: ("line_transfer_ns", "socket_transfer_ns"),
    "socket link": ("socket_link_mb_s",),
}


# The kernels a plan that names none is likely built on: the long-term distributions' own (RHEL 8
# 4.18, RHEL 9 5.14, Ubuntu 22.04 5.15, Debian 12 6.1, the figures' default, Ubuntu 24.04 6.8,
# Debian 13 6.12; each distribution's release notes). The model's own figures at each are the
# kernel's spread: nothing is assumed about how much a kernel changes beyond what the terms know.
DISTRIBUTION_KERNELS = ("4.18", "5.14", "5.15", "6.1", "6.8", "6.12")


@dataclass(frozen=True)
class Input:
    """One input of the figure and how far it may stray: `down` and `up` as fractions."""

    line: str  # what it is, where it came from and its spread, as the range names it
    brief: str  # the same in a few words, for the terminal
    down: float
    up: float
    preset: bool  # left to a preset (stating it would narrow the range)
    terms: frozenset[str]
    # A factor rather than a spread about the figure (a flush of 0 to 3.5 ms: planners.perf.flush):
    # it multiplies what the other inputs leave, where squares would add past the whole figure.
    apart: bool = False


@dataclass(frozen=True)
class Range:
    low: float
    high: float
    by: list[str]  # the terms that set the low and high ends
    inputs: list[str]  # the inputs whose spread moves a term into the range
    briefly: list[str]  # the same in a few words each
    all_stated: bool  # every such input was stated or measured: none was left to a preset


def _pct(x: float) -> str:
    return f"{x:.0%}"


def _disk_input(ctx: PerfCtx, random: bool) -> Input | None:
    """The disks' figures a job of that kind rests on: the member whose figures stray most."""
    disks = [ctx.groups[i].disk for i in ctx.volume_groups]
    if not disks:
        return None
    d = max(disks, key=lambda d: d.rand_spread if random else d.spread)
    spread = d.rand_spread if random else d.spread
    what = "disk random IOPS" if random else "disk transfer rates"
    stated = {"rand_read_iops", "rand_write_iops"} if random else {"seq_outer_mb_s"}
    if not spread:
        return None
    if d.measured:
        how, short, preset = "measured (fio's run-to-run repeatability", "measured", False
    elif stated & set(d.stated):
        how, short, preset = "stated (a datasheet's unit-to-unit variation", "stated", False
    else:
        how, short, preset = f"{d.disk_class} class preset (its drives' datasheets", f"{d.disk_class} preset", True
    pm = f"±{_pct(spread)}"
    return Input(f"{what}: {how}, {pm})", f"{what} {short} {pm}", spread, spread, preset, DISK_TERMS)


# The inputs of the last few contexts, each kept with its context (so an id is never reused while
# its entry lives): a plan's workloads, and a sweep's, share one context.
_SEEN: dict[int, tuple[PerfCtx, tuple[Input | None, Input | None, list[Input]]]] = {}


def _plan_inputs(ctx: PerfCtx) -> tuple[Input | None, Input | None, list[Input]]:
    """(sequential disk input, random disk input, the others but md's lines) of one context."""
    seen = _SEEN.get(id(ctx))
    if seen is not None and seen[0] is ctx:
        return seen[1]
    out = (_disk_input(ctx, False), _disk_input(ctx, True), _host_inputs(ctx))
    if len(_SEEN) >= 8:
        del _SEEN[next(iter(_SEEN))]
    _SEEN[id(ctx)] = (ctx, out)
    return out


def inputs(ctx: PerfCtx, w: Workload | None) -> list[Input]:
    """Every input the terms rest on that carries a spread, for workload `w` (None: any workload)."""
    seq, rnd, host = _plan_inputs(ctx)
    kinds = (rnd,) if w is not None and w.is_random else (seq,) if w is not None else (seq, rnd)
    out = [i for i in kinds if i is not None] + host
    # md's shared lines: the share of transfers between sockets is not known (socket_mix).
    down, up = socket_mix(ctx, w) if w is not None else (0.0, 0.0)
    if up:
        line = "md's shared lines: their next writer on this socket or the other, as the job's threads fall"
        out.append(Input(line, "md's lines: which socket", down, up, True, frozenset({MD_LOCKS})))
    return out + [Input(*spread) for spread in platform_spreads(ctx, w)]


def _host_inputs(ctx: PerfCtx) -> list[Input]:
    """The controller's and the CPU's inputs."""
    out = []
    hw = ctx.hardware
    if ctx.controller and ctx.controller.spread and hw.controller:
        s, kind = ctx.controller.spread, hw.controller.kind
        line = f"controller round trip: the {kind} preset (real controllers of the kind, ±{_pct(s)})"
        out.append(Input(line, f"controller {kind} preset ±{_pct(s)}", s, s, True, CONTROLLER_TERMS))
    out += [Input(line, brief, down, up, True, terms) for line, brief, down, up, terms in controller_spreads(ctx)]
    cpu = frozenset(name for name, fields in CPU_TERMS.items() if not set(fields) <= set(ctx.cpu.stated))
    if ctx.cpu.spread and cpu:
        s, kind = ctx.cpu.spread, hw.cpu.cpu_class
        line = f"CPU figures from the {kind} class preset (one core of the class's parts, ±{_pct(s)})"
        out.append(Input(line, f"CPU {kind} preset ±{_pct(s)}", s, s, True, cpu))
    if ctx.cpu.request_spread and not set(REQUEST_FIELDS) <= set(ctx.cpu.stated):
        s = ctx.cpu.request_spread
        line = f"CPU per request from measured and published figures (±{_pct(s)})"
        out.append(Input(line, f"CPU per request ±{_pct(s)}", s, s, True, frozenset({REQUEST_CPU})))
    return out


def kernel_sensitive(ctx: PerfCtx, w: Workload, terms: Mapping[str, float]) -> bool:
    """Whether a term the kernel's version changes is near enough the figure to move it: md's shared
    lines (their count per request changed in 4.11, 6.1, 6.3 and 6.6) and a RAID1/10 direct write's
    hand-off to md's thread (dropped without a bitmap in 6.5), microseconds that move only flash:
    a spinning disk's write takes milliseconds."""
    if ctx.kernel_stated or not terms:
        return False
    best = min(terms.values())
    if MD_LOCKS in terms and terms[MD_LOCKS] < 4 * best:
        return True
    return (
        w.direct
        and w.writes
        and any(ctx.groups[i].scheme.mirrored and not ctx.groups[i].disk.rpm for i in ctx.volume_groups)
    )


def kernel_input(
    ctx: PerfCtx, terms: Mapping[str, float], evaluate: Callable[[PerfCtx], Mapping[str, float]]
) -> Input | None:
    """The kernel left to the default: each term as the model gives it on every distribution kernel."""
    down: dict[str, float] = {}
    up: dict[str, float] = {}
    for k in DISTRIBUTION_KERNELS:
        if k == ctx.kernel:
            continue
        other = evaluate(replace(ctx, kernel=k))
        for name, mb_s in terms.items():
            r = other.get(name, mb_s) / mb_s if mb_s else 1.0
            down[name] = max(down.get(name, 0.0), 1 - r)
            up[name] = max(up.get(name, 0.0), r - 1)
    moved = frozenset(n for n in terms if down.get(n, 0) > 1e-9 or up.get(n, 0) > 1e-9)
    if not moved:
        return None
    lo, hi = max(down[n] for n in moved), max(up[n] for n in moved)
    line = (
        f"kernel: not stated, {ctx.kernel} assumed; the distributions' kernels "
        f"({', '.join(DISTRIBUTION_KERNELS)}) move {', '.join(sorted(moved))} by -{_pct(lo)}/+{_pct(hi)}"
    )
    return Input(line, f"kernel not stated -{_pct(lo)}/+{_pct(hi)}", lo, hi, True, moved)


def copy_in_window(ctx: PerfCtx, terms: Sequence[Ceiling], w: Workload | None) -> Input | None:
    """The CPU preset's share in a buffered reader's readahead term: the window waits on half of the
    job's copies (out, and in for a job that also writes: planners.perf.terms, combined), which is
    1 / (2 x the CPU copy term) of its time per byte; the rest is the disks'."""
    if (
        w is None
        or w.direct
        or not ctx.cpu.spread
        or {"buffered_write_mb_s", "buffered_read_mb_s"} <= set(ctx.cpu.stated)
    ):
        return None
    by = {t.name: t.mb_s for t in terms}
    window, copy = by.get("readahead"), by.get(CPU_COPY)
    if not window or not copy:
        return None
    s, share = ctx.cpu.spread, min(1.0, window / (2 * copy))
    down = 1 - 1 / (1 - share + share / (1 - s))
    up = 1 / (1 - share + share / (1 + s)) - 1
    line = f"CPU figures from the {ctx.hardware.cpu.cpu_class} class preset (one core of the class's parts, ±{_pct(s)})"
    return Input(line, f"CPU {ctx.hardware.cpu.cpu_class} preset ±{_pct(s)}", down, up, True, frozenset({"readahead"}))


def figure_range(
    ctx: PerfCtx, terms: Sequence[Ceiling], w: Workload | None = None, extra: Sequence[Input] = ()
) -> Range:
    """The range of the figure the smallest of `terms` sets, and what widened it (`extra`: inputs
    found by evaluating the terms again, as the kernel's)."""
    window = copy_in_window(ctx, terms, w)
    given = [*inputs(ctx, w), *extra, *([window] if window else [])]
    # A sweep predicts thousands of figures: each term's squared spreads summed once over the inputs.
    down2: dict[str, float] = {}
    up2: dict[str, float] = {}
    keep: dict[str, float] = {}
    for i in given:
        for name in i.terms:
            if i.apart:
                keep[name] = keep.get(name, 1.0) * (1 - i.down)
                continue
            down2[name] = down2.get(name, 0.0) + i.down * i.down
            up2[name] = up2.get(name, 0.0) + i.up * i.up
    moved = [
        (t.name, t.mb_s, 1 - (1 - sqrt(down2.get(t.name, 0.0))) * keep.get(t.name, 1.0), sqrt(up2.get(t.name, 0.0)))
        for t in terms
    ]
    (low, low_by), (high, high_by) = (
        min((mb_s * (1 - down), name) for name, mb_s, down, _ in moved),
        min((mb_s * (1 + up), name) for name, mb_s, _, up in moved),
    )
    if not low < high:
        return Range(low, high, [], [], [], True)
    # An input is named where it moves a term into the range: far above it, it moves nothing.
    named = [i for i in given if any(name in i.terms and mb_s * (1 - i.down) < high for name, mb_s, _, _ in moved)]
    return Range(
        low,
        high,
        list(dict.fromkeys((low_by, high_by))),
        list(dict.fromkeys(i.line for i in named)),
        list(dict.fromkeys(i.brief for i in named)),
        not any(i.preset for i in named),
    )
