"""Tool versions a plan assumes. The arithmetic follows these; the script prints them."""

from __future__ import annotations

from functools import lru_cache

from pydantic import BaseModel, ConfigDict, Field

Version = tuple[int, ...]


@lru_cache(maxsize=256)  # every figure of a plan asks its tools' versions again
def parse_version(text: str) -> Version:
    """'4.2' -> (4, 2); '2.03.16' -> (2, 3, 16); trailing non-digits are ignored."""
    parts: list[int] = []
    for piece in text.strip().lstrip("v").split("."):
        digits = ""
        for ch in piece:
            if not ch.isdigit():
                break
            digits += ch
        if not digits:
            break
        parts.append(int(digits))
    if not parts:
        raise ValueError(f"not a version: {text!r}")
    return tuple(parts)


def format_version(v: Version) -> str:
    return ".".join(str(p) for p in v)


class ToolVersions(BaseModel):
    """Versions of the tools whose behaviour the figures depend on (Debian 12 by default)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    mdadm: str = Field("4.2", description="mdadm version (data offset, bitmap defaults).")
    lvm2: str = Field("2.03.16", description="lvm2 version (pe_start, extent rules).")
    e2fsprogs: str = Field("1.47.0", description="e2fsprogs version (mke2fs defaults).")
    xfsprogs: str = Field("6.1.0", description="xfsprogs version (mkfs.xfs AG and log rules).")
    kernel: str = Field("6.1", description="Linux kernel version (md topology, df accounting).")

    def v(self, tool: str) -> Version:
        return parse_version(getattr(self, tool))
