"""Disk models a sysadmin is likely to own, with the exact byte counts they report.

Sizes follow the IDEMA LBA1-03 formula that drive vendors use for capacities above 50 GB, so
a preset's size is what `blockdev --getsize64` shows on a real drive of that class.
"""

from __future__ import annotations

from typing import NamedTuple


def idema_bytes(gigabytes: int, logical_sector: int = 512) -> int:
    """Capacity in bytes of a drive sold as `gigabytes` GB with the given logical sector."""
    if logical_sector == 4096:
        return (12212046 + 244188 * (gigabytes - 50)) * 4096
    return (97696368 + 1953504 * (gigabytes - 50)) * 512


class DiskPreset(NamedTuple):
    key: str
    label: str
    model: str
    size: int
    logical_sector: int
    physical_sector: int
    rotational: bool


PRESETS: tuple[DiskPreset, ...] = (
    DiskPreset("hdd2", "2TB HDD", "2 TB 7200 rpm SATA", idema_bytes(2000), 512, 4096, True),
    DiskPreset("hdd4", "4TB HDD", "4 TB 7200 rpm SATA", idema_bytes(4000), 512, 4096, True),
    DiskPreset("hdd8", "8TB HDD", "8 TB 7200 rpm SATA", idema_bytes(8000), 512, 4096, True),
    DiskPreset("hdd12", "12TB HDD", "12 TB 7200 rpm SATA", idema_bytes(12000), 512, 4096, True),
    DiskPreset("hdd16", "16TB HDD", "16 TB 7200 rpm SATA", idema_bytes(16000), 512, 4096, True),
    DiskPreset("hdd20", "20TB HDD", "20 TB 7200 rpm SATA", idema_bytes(20000), 512, 4096, True),
    DiskPreset("hdd20n", "20TB HDD 4Kn", "20 TB 7200 rpm SAS 4Kn", idema_bytes(20000, 4096), 4096, 4096, True),
    DiskPreset("ssd960", "960GB SSD", "960 GB SATA SSD", idema_bytes(960), 512, 4096, False),
    DiskPreset("nvme3840", "3.84TB NVMe", "3.84 TB NVMe", idema_bytes(3840), 512, 512, False),
    DiskPreset("nvme7680", "7.68TB NVMe", "7.68 TB NVMe", idema_bytes(7680), 512, 512, False),
)

BY_KEY = {p.key: p for p in PRESETS}


def preset_for(size: int, logical_sector: int, physical_sector: int, rotational: bool) -> str:
    """The key of the preset these disk properties match exactly, or '' for a custom disk."""
    for p in PRESETS:
        if (p.size, p.logical_sector, p.physical_sector, p.rotational) == (
            size,
            logical_sector,
            physical_sector,
            rotational,
        ):
            return p.key
    return ""
