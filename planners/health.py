"""A disk's SMART health from `smartctl -j -x` (pure: the JSON text in, a frozen model out).

The figures that predict a disk failing its first rebuild: the drive's own verdict, sectors it
could not read (pending, offline-uncorrectable) or had to move (reallocated), link CRC errors,
and on NVMe the critical-warning bits, media errors, wear and spare. Key names are smartctl's
(ataprint.cpp, nvmeprint.cpp, smartctl.cpp in smartmontools); a key smartctl did not print is
None here, never 0, so an unread counter is never reported as clean.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

# ATA attribute IDs (the raw value is a count on every vendor that reports them)
REALLOCATED, PENDING, OFFLINE_UNCORRECTABLE, CRC_ERRORS = 5, 197, 198, 199
# NVMe critical warning bits (NVMe base spec, SMART/Health log byte 0), as smartctl names them
NVME_WARNINGS = (
    (0x01, "available spare below its threshold: replace it"),
    (0x02, "temperature above or below its threshold: check its cooling before trusting it"),
    (0x04, "NVM subsystem reliability degraded: replace it"),
    (0x08, "media placed in read-only mode: replace it"),
    (0x10, "volatile memory backup failed: replace it"),
)
_FROZEN = ConfigDict(frozen=True)
# Counters whose rise during a burn-in names the disk (the disk found sectors it cannot trust).
MOVING = ("reallocated", "pending", "offline_uncorrectable", "crc_errors", "media_errors", "critical_warning")


class DiskHealth(BaseModel):
    """What smartctl said of one device; counters are None where it printed none."""

    model_config = _FROZEN

    device: str = Field(description="The device smartctl was pointed at.")
    smart: bool = Field(description="True if smartctl read SMART data from it.")
    why_not: str = Field("", description="Why there is no SMART data (smartctl's own message), '' when there is.")
    protocol: str = Field("", description="smartctl's device.protocol: ATA, NVMe, SCSI ('' unknown).")
    model: str = Field("", description="The drive's model name ('' unknown).")
    serial: str = Field("", description="The drive's serial number ('' unknown).")
    passed: bool | None = Field(None, description="The drive's overall SMART verdict (smart_status.passed).")
    power_on_hours: int | None = Field(None, description="Power-on time, hours.")
    temperature_c: int | None = Field(None, description="Current temperature, degrees Celsius.")
    reallocated: int | None = Field(None, description="ATA attribute 5 raw: sectors moved to spares, count.")
    pending: int | None = Field(None, description="ATA attribute 197 raw: sectors waiting to be remapped, count.")
    offline_uncorrectable: int | None = Field(None, description="ATA attribute 198 raw: unreadable sectors, count.")
    crc_errors: int | None = Field(None, description="ATA attribute 199 raw: interface CRC errors, count.")
    critical_warning: int | None = Field(None, description="NVMe critical warning bit field (0 = none).")
    media_errors: int | None = Field(None, description="NVMe media and data integrity errors, count.")
    percentage_used: int | None = Field(None, description="NVMe endurance used, percent (may exceed 100).")
    available_spare: int | None = Field(None, description="NVMe spare capacity left, percent.")
    spare_threshold: int | None = Field(None, description="NVMe spare threshold, percent.")

    @property
    def failing(self) -> tuple[str, ...]:
        """What says this disk should not go into service, each with what to do."""
        out = []
        if self.passed is False:
            out.append("SMART overall health FAILED: replace it before the array goes into service")
        for n, what in ((self.pending, "pending"), (self.offline_uncorrectable, "offline-uncorrectable")):
            if n:
                out.append(
                    f"{n:,} {what} sectors (unreadable): replace it, or write the whole disk "
                    "(validate --burn-in --destroy-data) and keep it only if the count returns to 0"
                )
        warn = self.critical_warning or 0
        for bit, text in NVME_WARNINGS:
            if warn & bit:
                out.append(f"NVMe critical warning: {text}")
        if self.media_errors:
            out.append(f"{self.media_errors:,} NVMe media errors: replace it")
        return tuple(out)

    @property
    def watch(self) -> tuple[str, ...]:
        """What does not fail the disk yet but says where to look."""
        out = []
        if self.reallocated:
            out.append(f"{self.reallocated:,} reallocated sectors: a count that climbs during a burn-in fails it")
        if self.crc_errors:
            out.append(f"{self.crc_errors:,} CRC errors: reseat or replace the cable or backplane slot")
        if self.percentage_used is not None and self.percentage_used >= 90:
            out.append(f"{self.percentage_used} % of its rated endurance used: plan its replacement")
        return tuple(out)


def _int(v: Any) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def _raw(table: list[Any], ident: int) -> int | None:
    for row in table:
        if isinstance(row, dict) and row.get("id") == ident:
            raw = row.get("raw")
            return _int(raw.get("value")) if isinstance(raw, dict) else None
    return None


def _why_not(device: str, doc: dict[str, Any]) -> str:
    msgs = (doc.get("smartctl") or {}).get("messages") or []
    errors = [str(m.get("string", "")) for m in msgs if isinstance(m, dict) and m.get("severity") == "error"]
    # smartctl starts most messages with the device's name, which the line that shows this names already
    said = "; ".join(e.removeprefix(f"{device}: ") for e in errors if e)
    if said:
        return f"smartctl: {said}"
    support = doc.get("smart_support")
    if isinstance(support, dict) and support.get("available") is False:
        return "smartctl: the device reports no SMART support"  # a virtual SCSI disk, for one
    return "smartctl printed no SMART data"


def parse_smartctl(device: str, text: str) -> DiskHealth:
    """One device's health from `smartctl -j -x DEV`'s stdout (its exit status is a bit field that is
    non-zero on healthy disks too, so the JSON decides)."""
    try:
        doc = json.loads(text)
    except ValueError:
        doc = None
    if not isinstance(doc, dict):
        return DiskHealth(device=device, smart=False, why_not="smartctl printed no JSON")
    status = doc.get("smart_status")
    nvme = doc.get("nvme_smart_health_information_log")
    attrs = (doc.get("ata_smart_attributes") or {}).get("table")
    if not isinstance(status, dict) and not isinstance(nvme, dict) and not isinstance(attrs, list):
        return DiskHealth(device=device, smart=False, why_not=_why_not(device, doc))
    nvme = nvme if isinstance(nvme, dict) else {}
    attrs = attrs if isinstance(attrs, list) else []
    passed = status.get("passed") if isinstance(status, dict) else None
    return DiskHealth(
        device=device,
        smart=True,
        protocol=str((doc.get("device") or {}).get("protocol", "")),
        model=str(doc.get("model_name", "")),
        serial=str(doc.get("serial_number", "")),
        passed=passed if isinstance(passed, bool) else None,
        power_on_hours=_int((doc.get("power_on_time") or {}).get("hours")),
        temperature_c=_int((doc.get("temperature") or {}).get("current")),
        reallocated=_raw(attrs, REALLOCATED),
        pending=_raw(attrs, PENDING),
        offline_uncorrectable=_raw(attrs, OFFLINE_UNCORRECTABLE),
        crc_errors=_raw(attrs, CRC_ERRORS),
        critical_warning=_int(nvme.get("critical_warning")),
        media_errors=_int(nvme.get("media_errors")),
        percentage_used=_int(nvme.get("percentage_used")),
        available_spare=_int(nvme.get("available_spare")),
        spare_threshold=_int(nvme.get("available_spare_threshold")),
    )


def counters_moved(before: DiskHealth, after: DiskHealth) -> tuple[str, ...]:
    """The error counters that rose between two readings of one disk (a burn-in's verdict)."""
    out = []
    for name in MOVING:
        a, b = getattr(before, name), getattr(after, name)
        if a is not None and b is not None and b > a:
            out.append(f"{name.replace('_', ' ')} {a:,} -> {b:,}")
    if before.passed is not False and after.passed is False:
        out.append("overall health passed -> FAILED")
    return tuple(out)


def health_json(disks: tuple[DiskHealth, ...]) -> list[dict[str, object]]:
    """Each disk's figures, with what fails it and what to watch (each with what to do)."""
    return [{**d.model_dump(mode="json"), "failing": list(d.failing), "watch": list(d.watch)} for d in disks]
