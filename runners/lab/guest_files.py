"""The guest-side scripts that travel on the jobs disk, read from the package's guest/ folder."""

from __future__ import annotations

from pathlib import Path

from runners.probes.lvm import LV_FIELDS, PV_FIELDS, VG_FIELDS

GUEST_DIR = Path(__file__).parent / "guest"


def guest_file(name: str) -> bytes:
    return (GUEST_DIR / name).read_bytes()


def collect_script() -> str:
    """collect.sh with the LVM report fields the host's parsers expect."""
    text = guest_file("collect.sh").decode()
    for key, value in (("PV_FIELDS", PV_FIELDS), ("VG_FIELDS", VG_FIELDS), ("LV_FIELDS", LV_FIELDS)):
        text = text.replace(f"@@{key}@@", value)
    return text
