"""The kernel's own measurement of its parity code, read from kernel log text.

When raid6_pq and xor load (at boot, or with the first RAID4/5/6 array or btrfs) the kernel
times its RAID6 syndrome and xor implementations on this CPU and logs the one it chose. md's
parity work runs at exactly that code's speed, so those figures beat any CPU class preset.

Formats this reads (the kernel's wording changed several times):
- raid6, 2.6-3.x: `raid6: sse2x4   13486 MB/s`, `raid6: using algorithm sse2x4 (13486 MB/s)`
- raid6, 4.x:     `raid6: avx2x4   gen() 12345 MB/s`, `raid6: avx2x4   xor()  8765 MB/s`,
                  `raid6: using algorithm avx2x4 gen() 12345 MB/s`, `raid6: .... xor() 8765 MB/s, rmw enabled`
- raid6, 5.x+:    the gen() lines and the `....` line only; without CONFIG_RAID6_PQ_BENCHMARK
                  `raid6: skip pq benchmark and using algorithm neonx8` (5.x) or
                  `raid6: skipped pq benchmark and selected avx512x4` (6.x): no figure at all
- xor:            `xor: measuring software checksum speed`, `   avx       : 23456 MB/sec` per function,
                  `xor: using function: avx (23456 MB/sec)`; where the CPU decides alone,
                  `xor: automatically using best checksumming function   avx` (4.11+: no figure) or,
                  before that, the same line ending in `:` followed by the one measured function.
                  2.6 kernels said `raid5:` instead of `xor:`.
Each line may carry a `[    1.234567]` timestamp, a `<6>` level, a syslog or journal prefix
(`Aug  9 19:36:27 host kernel: `) or dmesg -x's `kern  :info  : `.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from planners.hardware.machine import CPU_CLASSES, Cpu

# The raid6 benchmark shifts by 20 bits: its "MB" is a MiB. The xor benchmark's "N.NNN MB/sec"
# (before 5.10) counts 1000 KiB; the plain "N MB/sec" that replaced it is decimal.
MIB_TO_MB = 1.048576
OLD_XOR_MB_TO_MB = 1.024
# Messages from several CPUs can be a hair out of order; a new boot restarts near zero.
BOOT_RESET_S = 1.0
# Other CPUs' messages may land between the xor header and its measurements, but not many.
XOR_WINDOW = 20

_FACILITY = r"(?:kern|user|mail|daemon|auth|syslog|lpr|news|uucp|cron|authpriv|ftp|local\d)"
_PREFIX = re.compile(rf"^\s*(?:<\d+>)?(?:{_FACILITY}\s*:\s*\w+\s*:\s)?(?:\[\s*(?P<ts>\d+\.\d+)\]|\[[^\]]*\])?\s?")
_TS = re.compile(r"\[\s*(\d+\.\d+)\]")
_NUM = r"(\d+(?:\.\d+)?)"
_R6_CHOSEN = re.compile(rf"^using algorithm (\S+)(?: gen\(\) {_NUM} MB/s| \({_NUM} MB/s\))?\s*$")
_R6_SKIPPED = re.compile(r"^(?:skip pq benchmark and using algorithm|skipped pq benchmark and selected) (\S+)")
_R6_RMW = re.compile(rf"^\.+ xor\(\) {_NUM} MB/s")
_R6_BENCH = re.compile(rf"^(\S+)\s+(?:(gen|xor)\(\)\s+)?{_NUM} MB/s\s*$")
_R6_RECOVERY = re.compile(r"^using (\S+) recovery algorithm")
_XOR_USING = re.compile(rf"^using function: (\S+) \({_NUM} MB/sec\)")
_XOR_AUTO = re.compile(r"^automatically using best checksumming function:?\s*(\S*)")
_XOR_BENCH = re.compile(rf"^\s*([\w.-]+)\s*:\s*{_NUM} MB/sec\s*$")


class ParityLog(BaseModel):
    """What one boot's kernel log says about the parity code md will use. MB/s are 10^6 bytes/s."""

    model_config = ConfigDict(frozen=True)

    raid6_algorithm: str = Field("", description="RAID6 syndrome algorithm the kernel chose ('' if not logged).")
    raid6_gen_mb_s: float | None = Field(None, description="Its gen() speed, MB/s of data; None if not measured.")
    raid6_xor_mb_s: float | None = Field(
        None, description="Its xor() speed (read-modify-write syndrome update), MB/s of data; None if not measured."
    )
    raid6_skipped: bool = Field(False, description="True if the kernel chose without benchmarking.")
    raid6_recovery: str = Field("", description="RAID6 recovery algorithm ('' if not logged).")
    xor_function: str = Field("", description="xor function the kernel chose for RAID4/5 parity ('' if not logged).")
    xor_mb_s: float | None = Field(None, description="Its speed, MB/s of data; None if not measured.")
    xor_forced: bool = Field(False, description="True if the CPU's features chose the xor function, not a benchmark.")
    boots: int = Field(0, description="Boots seen in the text (count); the figures are from the last one.")

    @property
    def found(self) -> bool:
        return bool(self.raid6_algorithm or self.xor_function)


class _Boot:
    """Parser state for one boot: every benchmark line seen, the latest choice wins."""

    def __init__(self) -> None:
        self.r6: dict[str, object] = {}
        self.r6_bench: dict[tuple[str, str], float] = {}
        self.xor: dict[str, object] = {}
        self.xor_bench: dict[str, float] = {}
        self.in_xor = 0  # lines left in which an unlabelled xor measurement may still come

    def raid6(self, msg: str) -> None:
        if m := _R6_SKIPPED.match(msg):
            self.r6 = {"raid6_algorithm": m.group(1), "raid6_skipped": True}
        elif m := _R6_CHOSEN.match(msg):
            name, fig = m.group(1), m.group(2) or m.group(3)
            gen = float(fig) if fig else self.r6_bench.get((name, "gen"))
            self.r6 = {
                "raid6_algorithm": name,
                "raid6_gen_mb_s": None if gen is None else gen * MIB_TO_MB,
                "raid6_xor_mb_s": _scaled(self.r6_bench.get((name, "xor")), MIB_TO_MB),
            }
            self.r6_bench = {}  # a later load of raid6_pq benchmarks afresh
        elif m := _R6_RMW.match(msg):
            self.r6["raid6_xor_mb_s"] = float(m.group(1)) * MIB_TO_MB
        elif m := _R6_RECOVERY.match(msg):
            self.r6["raid6_recovery"] = m.group(1)
        elif m := _R6_BENCH.match(msg):
            self.r6_bench[(m.group(1), m.group(2) or "gen")] = float(m.group(3))

    def xor_line(self, msg: str) -> None:
        if m := _XOR_USING.match(msg):
            forced = bool(self.xor.get("xor_forced")) and self.xor.get("xor_function") in ("", m.group(1))
            self.xor = {"xor_function": m.group(1), "xor_mb_s": _xor_mb(m.group(2)), "xor_forced": forced}
            self.in_xor = 0
        elif m := _XOR_AUTO.match(msg):
            self.xor = {"xor_function": m.group(1), "xor_forced": True}
            self.xor_bench = {}
            self.in_xor = XOR_WINDOW  # before 4.11 the chosen function's measurement follows, unlabelled
        elif msg.startswith("measuring software checksum speed"):
            self.xor_bench = {}
            self.in_xor = XOR_WINDOW

    def bare(self, msg: str) -> None:
        """A line while the xor benchmark runs: an unlabelled measurement, or another message."""
        m = _XOR_BENCH.match(msg)
        if not m:
            self.in_xor -= 1
            return
        self.xor_bench[m.group(1)] = _xor_mb(m.group(2))
        if self.xor.get("xor_forced") and self.xor.get("xor_function") in ("", m.group(1)):
            self.xor = {"xor_function": m.group(1), "xor_forced": True, "xor_mb_s": self.xor_bench[m.group(1)]}

    def result(self, boots: int) -> ParityLog:
        return ParityLog(**self.r6, **self.xor, boots=boots)  # type: ignore[arg-type]


def _scaled(v: float | None, k: float) -> float | None:
    return None if v is None else v * k


def _xor_mb(text: str) -> float:
    return float(text) * (OLD_XOR_MB_TO_MB if "." in text else 1.0)


def _split(line: str) -> tuple[float | None, str]:
    """(timestamp in seconds or None, the kernel's message) of one log line, whatever its prefix."""
    head = ""
    k = line.find("kernel: ")
    if k >= 0:
        head, line = line[:k], line[k + len("kernel: ") :]
    m = _PREFIX.match(line)
    ts = m.group("ts") if m else None
    if ts is None and (t := _TS.search(head)):  # journalctl -o short-monotonic puts it first
        ts = t.group(1)
    return (float(ts) if ts else None), line[m.end() :] if m else line


def parse_parity_log(text: str) -> ParityLog:
    """The parity figures of the last boot in `text` (dmesg, journalctl -k or a syslog file)."""
    boot, boots, last_ts, lines_in_boot = _Boot(), 0, None, 0
    for raw in text.splitlines():
        stripped = raw.strip()
        if not stripped:
            continue
        ts, msg = _split(raw)
        new_boot = stripped.startswith(("-- Boot ", "-- Reboot --"))
        # A few lines stamped 0.0 may precede the banner of the same boot.
        if msg.startswith("Linux version ") and not (last_ts is not None and last_ts < BOOT_RESET_S):
            new_boot = True
        if ts is not None and last_ts is not None and ts < last_ts - BOOT_RESET_S:
            new_boot = True
        if ts is not None:
            last_ts = ts
        if new_boot:
            if lines_in_boot:
                boot, boots, lines_in_boot = _Boot(), boots + 1, 0
            if stripped.startswith("--"):
                last_ts = None
                continue
        lines_in_boot += 1
        tag, _, rest = msg.partition(": ")
        if tag == "raid6":
            boot.raid6(rest.strip())
        elif tag in ("xor", "raid5"):
            boot.xor_line(rest.strip())
        elif boot.in_xor > 0:
            boot.bare(msg)
    return boot.result(boots + 1 if lines_in_boot else boots)


CpuFigureSource = Literal["plan", "kernel log", "preset"]


class CpuFigure(BaseModel):
    """One parity figure the model uses, and where it came from."""

    model_config = ConfigDict(frozen=True)

    mb_s: float = Field(description="The figure, MB/s of data (10^6 bytes/s).")
    source: CpuFigureSource = Field(description="plan (its [hardware.cpu] entry), kernel log, or preset.")
    detail: str = Field(description="The kernel's algorithm, or the preset's name.")
    why_not_log: str = Field("", description="Why the kernel log did not give this figure ('' if it did).")


class CpuOrigin(BaseModel):
    """Where the parity CPU figures of a prediction came from."""

    model_config = ConfigDict(frozen=True)

    raid6_gen: CpuFigure = Field(description="RAID6 syndrome generation.")
    xor: CpuFigure = Field(description="RAID4/5 xor.")
    log_source: str = Field("", description="Where the kernel log was read ('' if it was not).")
    log: ParityLog | None = Field(None, description="What the kernel log said; None if it was not read.")


def cpu_from_log(cpu: Cpu, log: ParityLog | None, log_source: str = "", why_no_log: str = "") -> tuple[Cpu, CpuOrigin]:
    """The plan's CPU with each parity figure taken, in order, from the plan's own entry, the
    kernel log, or the class preset; and where each came from. `why_no_log` says why `log` is
    None when it was meant to be read ('' when it was deliberately not)."""
    preset = CPU_CLASSES[cpu.cpu_class]
    figures = {}
    for field, log_field, name in (("raid6_gen_mb_s", "raid6_gen_mb_s", "raid6_gen"), ("xor_mb_s", "xor_mb_s", "xor")):
        given = getattr(cpu, field)
        found = getattr(log, log_field) if log is not None else None
        if given is not None:
            figures[name] = CpuFigure(mb_s=given, source="plan", detail="plan's [hardware.cpu]")
        elif found is not None:
            algo = log.raid6_algorithm if name == "raid6_gen" else log.xor_function  # type: ignore[union-attr]
            figures[name] = CpuFigure(mb_s=found, source="kernel log", detail=algo)
        else:
            who = "this host's kernel" if log_source.startswith("this host") else "the kernel"
            why = why_no_log if log is None else _why_unmeasured(log, name, who)
            figures[name] = CpuFigure(
                mb_s=getattr(preset, field), source="preset", detail=cpu.cpu_class, why_not_log=why
            )
    update = {
        f: figures[n].mb_s
        for f, n in (("raid6_gen_mb_s", "raid6_gen"), ("xor_mb_s", "xor"))
        if figures[n].source == "kernel log"
    }
    return cpu.model_copy(update=update), CpuOrigin(
        raid6_gen=figures["raid6_gen"], xor=figures["xor"], log_source=log_source, log=log
    )


def _why_unmeasured(log: ParityLog, name: str, who: str) -> str:
    if name == "raid6_gen":
        if log.raid6_skipped:
            return f"{who} chose {log.raid6_algorithm} without benchmarking it"
        if log.raid6_algorithm:
            return f"{who} chose {log.raid6_algorithm} but logged no gen() figure"
        return "no raid6 benchmark in the kernel log: raid6_pq loads with the first RAID4/5/6 array or btrfs"
    if log.xor_forced and log.xor_function:
        return f"{who} chose {log.xor_function} from the CPU's features without measuring it"
    return "no xor benchmark in the kernel log: xor loads with the first RAID4/5/6 array or btrfs"
