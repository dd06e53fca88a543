"""Boot the kit under qemu: command line, a watched console, a hard timeout, no leftovers.

qemu runs in its own process group; whatever way the wait ends (done, timeout, an
exception in the caller) the group gets SIGTERM, then SIGKILL, and the process is
reaped. The console goes to a file that is read while the guest runs, so the stage
markers the guest's init prints are seen (and timed) as they come.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field

from runners.exec import spawn
from runners.lab.scenario import JOBS_SERIAL, RESULTS_SERIAL, LabDisk

QEMU = "qemu-system-x86_64"
MARK_PREFIX = "podplan-lab: "
SCSI_TARGETS_PER_BUS = 255
_MARK = re.compile(r"^podplan-lab: (\S+) (.*?)(?: t=([\d.]+))?$")


class Mark(BaseModel):
    """A line the guest printed to tell where it is."""

    model_config = ConfigDict(frozen=True)

    kind: str = Field(description="'stage', 'scenario', 'out' (a scenario's output) or 'warning'.")
    text: str = Field(description="The rest of the line: stage name, or scenario name and what it did.")
    guest_s: float | None = Field(None, description="Guest uptime when printed, in seconds.")
    host_s: float | None = Field(None, description="Host time since qemu started when first seen, in seconds.")


TCG_CPU = "qemu64,+ssse3,+sse4.1,+sse4.2,+popcnt"


def parse_mark(line: str, host_s: float | None = None) -> Mark | None:
    m = _MARK.match(line.rstrip("\r\n"))
    if not m:
        return None
    kind, text, t = m.groups()
    return Mark(kind=kind, text=text, guest_s=float(t) if t else None, host_s=host_s)


def parse_marks(console: str) -> list[Mark]:
    return [m for m in (parse_mark(line) for line in console.splitlines()) if m is not None]


def last_stage(marks: Sequence[Mark]) -> str:
    stages = [m.text.split()[0] for m in marks if m.kind == "stage"]
    if not stages:
        return "kernel (init never started)"
    scen = [m.text for m in marks if m.kind == "scenario"]
    return stages[-1] + (f" (last scenario event: {scen[-1]})" if scen and stages[-1] == "jobs" else "")


def panicked(console: str) -> bool:
    return "Kernel panic" in console


@dataclass(frozen=True)
class AttachedDisk:
    path: str
    serial: str
    disk: LabDisk


def _drive(ident: str, path: str, disk: LabDisk | None = None, readonly: bool = False) -> str:
    opts = [f"file={path}", "format=raw", "if=none", f"id={ident}", "cache=unsafe", "aio=threads"]
    if readonly:
        opts.append("readonly=on")
    if disk is not None and disk.bps_total:
        opts.append(f"throttling.bps-total={disk.bps_total}")
    if disk is not None and disk.iops_total:
        opts.append(f"throttling.iops-total={disk.iops_total}")
    return ",".join(opts)


def qemu_argv(
    *,
    vmlinux: str,
    initrd: str,
    console: str,
    accel: str,
    cpus: int,
    memory_mib: int,
    disks: Sequence[AttachedDisk],
    jobs: str | None,
    results: str | None,
    cmdline: Sequence[str] = (),
) -> list[str]:
    """The qemu command line; data disks on virtio-scsi (255 per controller), jobs and results on virtio-blk."""
    argv = [
        QEMU,
        "-nodefaults",
        "-no-user-config",
        "-no-reboot",
        "-display",
        "none",
        "-monitor",
        "none",
        "-accel",
        accel,
        "-cpu",
        # Emulated, a CPU without AVX: the guest kernel's xor, raid6 and crc32c then take SSE paths,
        # which TCG runs faster than its AVX emulation (a lab rehearsal of 15 plans: 109 s, was 124).
        "host" if accel == "kvm" else TCG_CPU,
        "-smp",
        str(cpus),
        "-m",
        str(memory_mib),
        "-serial",
        f"file:{console}",
        "-kernel",
        vmlinux,
        "-initrd",
        initrd,
        "-append",
        " ".join(
            [
                "console=ttyS0",
                "loglevel=4",
                "panic=-1",
                "mitigations=off",
                f"podplan.disks={len(disks) + (jobs is not None) + (results is not None)}",
                *cmdline,
            ]
        ),
    ]
    for bus in range((len(disks) + SCSI_TARGETS_PER_BUS - 1) // SCSI_TARGETS_PER_BUS):
        argv += ["-device", f"virtio-scsi-pci,id=scsi{bus}"]
    ahci = [i for i, d in enumerate(disks) if d.disk.bus == "ahci"]
    if ahci:
        argv += ["-device", "ahci,id=ahci0"]
    for i, d in enumerate(disks):
        if d.disk.bus != "scsi":
            # qemu's ATA disk answers SMART commands and its NVMe controller keeps the SMART/health log page.
            dev = (
                f"ide-hd,drive=d{i},bus=ahci0.{ahci.index(i)},serial={d.serial}"
                if d.disk.bus == "ahci"
                else f"nvme,drive=d{i},serial={d.serial}"
            )
            argv += ["-drive", _drive(f"d{i}", d.path, d.disk), "-device", dev]
            continue
        bus, target = divmod(i, SCSI_TARGETS_PER_BUS)
        dev = f"scsi-hd,drive=d{i},bus=scsi{bus}.0,scsi-id={target},lun=0,serial={d.serial}"
        if not d.disk.rotational:
            dev += ",rotation_rate=1"
        if (d.disk.logical_sector, d.disk.physical_sector) != (512, 512):  # qemu's own default
            dev += f",logical_block_size={d.disk.logical_sector},physical_block_size={d.disk.physical_sector}"
        argv += ["-drive", _drive(f"d{i}", d.path, d.disk), "-device", dev]
    for ident, path, serial in (("jobs", jobs, JOBS_SERIAL), ("results", results, RESULTS_SERIAL)):
        if path is not None:
            argv += [
                "-drive",
                _drive(ident, path, readonly=ident == "jobs"),
                "-device",
                f"virtio-blk-pci,drive={ident},serial={serial}",
            ]
    return argv


class BootOutcome(BaseModel):
    model_config = ConfigDict(frozen=True)

    returncode: int | None = Field(description="qemu's exit status; None if it had to be stopped.")
    timed_out: bool = Field(description="The hard timeout ran out and qemu was stopped.")
    seconds: float = Field(description="Wall time from qemu's start to its end, in seconds.")
    console: str = Field(description="Everything the guest printed on its serial console.")
    marks: tuple[Mark, ...] = Field(description="The guest's markers, with the host time each was seen.")
    stderr: str = Field("", description="qemu's own error output.")

    @property
    def stage(self) -> str:
        return last_stage(self.marks)

    def tail(self, lines: int = 40) -> str:
        return "\n".join(self.console.splitlines()[-lines:])

    def first_seen(self, kind: str, text: str) -> float | None:
        return next((m.host_s for m in self.marks if m.kind == kind and m.text.split()[0] == text), None)


def boot(
    argv: Sequence[str],
    console: str,
    *,
    timeout: float,
    on_mark: Callable[[Mark], None] | None = None,
    stop_when: Callable[[Mark], bool] | None = None,
    poll: float = 0.2,
) -> BootOutcome:
    """Run qemu until it exits, `stop_when` says so, or `timeout` seconds pass."""
    open(console, "wb").close()
    marks: list[Mark] = []
    timed_out = False
    with open(console, "rb") as con, spawn(argv, stdout_to_stderr=True) as proc:
        pending = b""
        while True:
            done = proc.poll() is not None
            pending += con.read()
            *lines, pending = pending.split(b"\n")
            now = proc.elapsed_s
            stop = False
            for raw in lines:
                mark = parse_mark(raw.decode(errors="replace"), round(now, 2))
                if mark is not None:
                    marks.append(mark)
                    if on_mark is not None:
                        on_mark(mark)
                    stop = stop or (stop_when is not None and stop_when(mark))
            if done or stop:
                break
            if now > timeout:
                timed_out = True
                proc.stop(f"timed out after {timeout:g} s")
                break
            time.sleep(poll)
    with open(console, "rb") as f:
        text = f.read().decode(errors="replace")
    return BootOutcome(
        returncode=None if timed_out else proc.returncode,
        timed_out=timed_out,
        seconds=round(proc.elapsed_s, 2),
        console=text,
        marks=tuple(marks),
        stderr=proc.stderr,
    )
