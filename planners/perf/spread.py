"""Ranges from what the plan does not state.

Each term of a prediction rests on inputs: the disks' sequential and random figures, the CPU's
figures, its per-request costs, a controller's round trip, md's shared lines. An input the plan
states (a datasheet's figure, a measurement, a stated round trip) keeps only its own spread (a
datasheet's unit-to-unit variation, fio's repeatability); one left to a preset (a disk class, a CPU
class, a controller kind) carries how far real hardware of that preset strays from it, each
spread sourced where the preset is (planners.hardware, docs/calibration.md).

Inputs are independent, so a term resting on several is moved by the root of the sum of their
squares (each taken at full weight on the term: an upper bound for a term only partly made of an
input), but never past every input at its low end at once (the product of what each leaves, so
the low end stays above 0), and the range is the smallest of each side over the terms. The range
names each input whose spread moves a term into it, and says when every such input was stated.
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
from planners.perf.roof import CPU_COPY, MOVES
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
    # The disks' own figures (their spread is not charged again at a `whole` input's far end).
    disk: bool = False
    # An apart input whose far end is a published whole figure (a client drive's whole fsync): the
    # disks' figures are inside it, so at that end their spread does not move the term again.
    whole: bool = False
    # The far end is the low end of the figure's own range under that input (a stated IOMMU mode's):
    # the other inputs are in it already, so nothing moves it again.
    floor: bool = False


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
    return Input(f"{what}: {how}, {pm})", f"{what} {short} {pm}", spread, spread, preset, DISK_TERMS, disk=True)


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


def _side(x: float) -> str:
    """A move as the range says it; a side that moves less than MOVES is not said ("-0%")."""
    return _pct(x) if x >= MOVES else ""


def moves_text(lo: float, hi: float) -> str:
    """Only the sides that move the figure: -12%/+3%, -12% or +3%."""
    return "/".join(f"{sign}{_side(x)}" for sign, x in (("-", lo), ("+", hi)) if _side(x))


def kernel_input(
    ctx: PerfCtx, terms: Mapping[str, float], evaluate: Callable[[PerfCtx], Mapping[str, float]]
) -> Input | None:
    """The kernel left to the default: each term as the model gives it on every distribution kernel.

    A term may exist under one kernel and not another (md's lines, a hand-off): the figure's own move
    under each kernel (the smallest term there, whatever its name) is taken by the terms that bind
    now, as planners.perf.flush does; each other term by its own move. Named only where the figure
    moves by MOVES or more."""
    best = min(terms.values(), default=0.0)
    if best <= 0:
        return None
    down: dict[str, float] = {}
    up: dict[str, float] = {}
    fig_lo = fig_hi = 0.0
    for k in DISTRIBUTION_KERNELS:
        if k == ctx.kernel:
            continue
        other = evaluate(replace(ctx, kernel=k))
        if not other:
            continue
        r = min(other.values()) / best
        fig_lo, fig_hi = max(fig_lo, 1 - r), max(fig_hi, r - 1)
        for name, mb_s in terms.items():
            own = other.get(name, mb_s) / mb_s if mb_s else 1.0
            # Binding now: the figure's move, whichever term sets it there.
            lo, hi = (1 - r, r - 1) if mb_s <= best else (1 - own, own - 1)
            down[name] = max(down.get(name, 0.0), lo)
            up[name] = max(up.get(name, 0.0), hi)
    if max(fig_lo, fig_hi) < MOVES:
        return None
    moved = frozenset(n for n in terms if down.get(n, 0) >= MOVES or up.get(n, 0) >= MOVES)
    lo = max((down[n] for n in moved), default=0.0)
    hi = max((up[n] for n in moved), default=0.0)
    say = moves_text(fig_lo, fig_hi)
    line = (
        f"kernel: not stated, {ctx.kernel} assumed; the distributions' kernels "
        f"({', '.join(DISTRIBUTION_KERNELS)}) move {', '.join(sorted(moved))}, the figure by {say}"
    )
    return Input(line, f"kernel not stated {say}", lo, hi, True, moved)


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


def _down(
    name: str,
    down2: Mapping[str, float],
    worst: Mapping[str, float],
    keep: Mapping[str, float],
    whole: Mapping[str, float],
    rest2: Mapping[str, float],
) -> float:
    """How far a term may fall. Independent inputs add in quadrature, but never past every input at
    its low end at once (their product): squares of large spreads add past the whole term (two of
    -75 % give -106 %), and a term cannot fall to nothing while each input leaves some of it. An
    apart input multiplies what the others leave; a whole one's end is its own figure under the
    other inputs than the disks'."""
    quad = min(sqrt(down2.get(name, 0.0)), 1 - worst.get(name, 1.0))
    left = (1 - quad) * keep.get(name, 1.0)
    if name in whole:
        rest = sqrt(rest2.get(name, 0.0))
        left = min(left, whole[name] * (1 - min(rest, 1 - worst.get(name, 1.0))) * keep.get(name, 1.0))
    return 1 - left


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
    worst: dict[str, float] = {}  # each term with every input at its low end at once
    keep: dict[str, float] = {}
    whole: dict[str, float] = {}  # a whole input's far end, the disks' spread left out there
    rest2: dict[str, float] = {}  # the squares of the inputs other than the disks'
    floor: dict[str, float] = {}
    for i in given:
        for name in i.terms:
            if i.floor:
                floor[name] = min(floor.get(name, 1.0), 1 - i.down)
                continue
            if i.whole:
                whole[name] = min(whole.get(name, 1.0), 1 - i.down)
                continue
            if i.apart:
                keep[name] = keep.get(name, 1.0) * (1 - i.down)
                continue
            down2[name] = down2.get(name, 0.0) + i.down * i.down
            up2[name] = up2.get(name, 0.0) + i.up * i.up
            worst[name] = worst.get(name, 1.0) * (1 - i.down)
            rest2[name] = rest2.get(name, 0.0) + (0.0 if i.disk else i.down * i.down)
    moved = [
        (
            t.name,
            t.mb_s,
            min(1.0, max(_down(t.name, down2, worst, keep, whole, rest2), 1 - floor.get(t.name, 1.0))),
            sqrt(up2.get(t.name, 0.0)),
        )
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
