"""Scenarios for the lab: a bash script, its arguments and its own virtual disks.

One boot runs a batch of scenarios in order. Each scenario gets disks of its own, named
by serials derived from its name, so the path a script sees for its disks is known
before the VM boots (a generated build script can name them). After each scenario the
guest collects what the tools report, then stops every md array and LVM volume.
"""

from __future__ import annotations

import io
import re
import shlex
import tarfile
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from planners.models import Disk
from runners.lab.guest_files import collect_script, guest_file

SCSI_BY_ID = "/dev/disk/by-id/scsi-0QEMU_QEMU_HARDDISK_"
NVME_BY_ID = "/dev/disk/by-id/nvme-"  # the guest's init links each NVMe namespace by its controller's serial
JOBS_SERIAL = "podplan-jobs"
RESULTS_SERIAL = "podplan-results"
_NAME = re.compile(r"[a-z0-9][a-z0-9_]{0,15}")


class LabDisk(BaseModel):
    """One virtual disk: a sparse raw file behind a virtio-scsi disk (or qemu's emulated AHCI or NVMe)."""

    model_config = ConfigDict(frozen=True)

    size_bytes: int = Field(gt=0, description="Disk size in bytes (a multiple of 512).")
    bps_total: int | None = Field(None, gt=0, description="Throttle: bytes per second, reads and writes together.")
    iops_total: int | None = Field(None, gt=0, description="Throttle: I/O operations per second, all kinds.")
    rotational: bool = Field(True, description="Reported as a spinning disk (False: the guest sees an SSD).")
    logical_sector: int = Field(512, description="Logical sector size the guest sees, bytes (512 or 4096).")
    physical_sector: int = Field(512, description="Physical sector size the guest sees, bytes (512 or 4096).")
    bus: Literal["scsi", "ahci", "nvme"] = Field(
        "scsi",
        description="How the guest sees it: virtio-scsi, an ATA disk on an AHCI controller (SMART attributes), "
        "or an NVMe controller (its SMART/health log); at most 6 AHCI disks.",
    )

    @field_validator("size_bytes")
    @classmethod
    def _whole_sectors(cls, v: int) -> int:
        if v % 512:
            raise ValueError("disk size must be a multiple of 512 bytes")
        return v

    @model_validator(mode="after")
    def _sectors(self) -> LabDisk:
        if {self.logical_sector, self.physical_sector} - {512, 4096} or self.physical_sector < self.logical_sector:
            raise ValueError("sectors must be 512 or 4096 bytes, the physical no smaller than the logical")
        if self.size_bytes % self.logical_sector:
            raise ValueError(f"disk size must be a multiple of the {self.logical_sector}-byte logical sector")
        return self

    @classmethod
    def like(cls, disk: Disk, **overrides) -> LabDisk:
        """A virtual disk the plan's build script accepts for `disk`: its size, sectors and rotation
        (throttles and any of those given in `overrides`)."""
        return cls(
            **{
                "size_bytes": disk.size,
                "rotational": disk.rotational,
                "logical_sector": disk.logical_sector,
                "physical_sector": disk.physical_sector,
                **overrides,
            }
        )


class Scenario(BaseModel):
    """Run `script` with `args` under bash in the guest, with `disks` attached; then collect."""

    model_config = ConfigDict(frozen=True)

    name: str = Field(description="Unique in the batch: 1-16 of a-z, 0-9, _ (names disks and results).")
    script: str = Field(description="Bash script text, run as ./script.sh from the scenario's directory.")
    args: tuple[str, ...] = Field((), description="Arguments passed to the script.")
    disks: tuple[LabDisk, ...] = Field((), description="The scenario's own disks, in order.")
    files: dict[str, str] = Field(default_factory=dict, description="Extra files beside the script, name -> text.")
    timeout_s: float = Field(300.0, gt=0, description="Limit on the script's run time, in seconds.")
    collect: bool = Field(True, description="Run the standard collection after the script.")
    prepare: str = Field(
        "",
        description="Bash run before the script with the disks as arguments, e.g. to put a "
        "filesystem signature on a member; its exit status is in prepare_rc.",
    )
    fingerprint: bool = Field(
        False,
        description="Record each disk's signature and first/last MiB digests before "
        "and after the script (disks.before / disks.after).",
    )

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        if not _NAME.fullmatch(v):
            raise ValueError(f"scenario name {v!r}: use 1-16 of a-z, 0-9 and _ (starting with a letter or digit)")
        return v

    @field_validator("files")
    @classmethod
    def _files(cls, v: dict[str, str]) -> dict[str, str]:
        for name in v:
            if "/" in name or name in ("", ".", "..", "script.sh", "prepare.sh", "config"):
                raise ValueError(f"bad scenario file name {name!r}")
        return v

    def serial(self, index: int) -> str:
        return f"{self.name}-{index}"

    def disk_paths(self) -> tuple[str, ...]:
        """Where the guest shows this scenario's disks, in order."""
        return tuple((NVME_BY_ID if d.bus == "nvme" else SCSI_BY_ID) + self.serial(i) for i, d in enumerate(self.disks))


def check_batch(scenarios: Sequence[Scenario]) -> None:
    names = [s.name for s in scenarios]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        raise ValueError(f"scenario names repeat: {', '.join(sorted(dup))}")
    if not scenarios:
        raise ValueError("a batch needs at least one scenario")


def _config(s: Scenario) -> str:
    q = shlex.quote
    return (
        f"name={q(s.name)}\ntimeout={int(s.timeout_s)}\ncollect={1 if s.collect else 0}\n"
        f"fingerprint={1 if s.fingerprint else 0}\n"
        f"args=({' '.join(q(a) for a in s.args)})\ndisks=({' '.join(q(p) for p in s.disk_paths())})\n"
    )


def jobs_tar(scenarios: Sequence[Scenario]) -> bytes:
    """The jobs disk's content: the batch runner, collector, teardown and each scenario."""
    check_batch(scenarios)
    members: dict[str, tuple[bytes, int]] = {
        "run.sh": (guest_file("run.sh"), 0o755),
        "teardown.sh": (guest_file("teardown.sh"), 0o755),
        "collect.sh": (collect_script().encode(), 0o755),
        "order": ("".join(s.name + "\n" for s in scenarios).encode(), 0o644),
    }
    for s in scenarios:
        base = f"scenarios/{s.name}/"
        members[base + "script.sh"] = (s.script.encode(), 0o755)
        members[base + "config"] = (_config(s).encode(), 0o644)
        if s.prepare:
            members[base + "prepare.sh"] = (s.prepare.encode(), 0o755)
        for name, text in s.files.items():
            members[base + name] = (text.encode(), 0o644)
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        for path, (data, mode) in sorted(members.items()):
            info = tarfile.TarInfo(path)
            info.size, info.mode, info.mtime = len(data), mode, 0
            tar.addfile(info, io.BytesIO(data))
    out = buf.getvalue()
    return out + b"\0" * (-len(out) % (1 << 20))
