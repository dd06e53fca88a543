"""Tool versions a plan assumes. The arithmetic follows these; the script prints them."""

from __future__ import annotations

import re
from functools import lru_cache

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from planners.errors import PlanError
from planners.tool_defaults import BTRFS_PROGS as BTRFS_PROGS
from planners.tool_defaults import DEFAULT_TOOLS

Version = tuple[int, ...]

# Each tool's versions whose behaviour the figures follow, [first, last): a plan outside them is
# refused rather than given figures from rules its tools do not follow. mdadm: the v1.x data offset
# since 3.3, the bitmap defaults up to 4.4; lvm2: the 2.02 and 2.03 series (the first metadata area
# grew in 2.03.03); e2fsprogs: mke2fs's sizing rules since 1.44.3, through the 1.47 series;
# xfsprogs: mkfs.xfs's AG and log rules, 5.19 to 6.4; Linux: the dirty throttling the performance
# model follows since 2.6, up to the last kernel whose XFS free space accounting is modelled.
MODELLED_TEXT: dict[str, tuple[str, str]] = {
    "mdadm": ("3.3", "4.5"),
    "lvm2": ("2.02", "2.04"),
    "e2fsprogs": ("1.44.3", "1.48"),
    "xfsprogs": ("5.19", "6.5"),
    "kernel": ("2.6", "6.19"),
}
# What a plan may state: the tools an array was built with, back to the first of each series that made
# the layouts podplan plans (mdadm 2.0: v1.x superblocks; e2fsprogs 1.39: ext3 with resize_inode and
# dir_index; xfsprogs 2.8: su/sw and lazy counters' predecessors). A plan for predict or check may name
# an older tool than the rules above follow: its capacity figures are then computed with the oldest
# rules modelled and marked not witnessed (planners.era), and the build script refuses it.
ACCEPTED_TEXT: dict[str, tuple[str, str]] = {
    **MODELLED_TEXT,
    "mdadm": ("2.0", "4.5"),
    "e2fsprogs": ("1.39", "1.48"),
    "xfsprogs": ("2.8", "6.5"),
}
_SHOWN = {"kernel": "Linux"}
# What a version may look like: the build script prints it, so nothing a shell would read
# ("6.1.0-18-amd64", "4.2-5" and lvm's "2.03.16(2)" are fine; a newline or a `;` is not).
_VERSION_TEXT = re.compile(r"v?[0-9]+(\.[0-9]+)*[A-Za-z0-9.+~_()-]*")


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


MODELLED: dict[str, tuple[Version, Version]] = {
    tool: (parse_version(low), parse_version(high)) for tool, (low, high) in MODELLED_TEXT.items()
}
ACCEPTED: dict[str, tuple[Version, Version]] = {
    tool: (parse_version(low), parse_version(high)) for tool, (low, high) in ACCEPTED_TEXT.items()
}


class ToolVersions(BaseModel):
    """Versions of the tools whose behaviour the figures depend on (Debian 12 by default)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    mdadm: str = Field(DEFAULT_TOOLS["mdadm"], description="mdadm version (data offset, bitmap defaults).")
    lvm2: str = Field(DEFAULT_TOOLS["lvm2"], description="lvm2 version (pe_start, extent rules).")
    e2fsprogs: str = Field(DEFAULT_TOOLS["e2fsprogs"], description="e2fsprogs version (mke2fs defaults).")
    xfsprogs: str = Field(DEFAULT_TOOLS["xfsprogs"], description="xfsprogs version (mkfs.xfs AG and log rules).")
    kernel: str = Field(DEFAULT_TOOLS["kernel"], description="Linux kernel version (md topology, df accounting).")

    @field_validator("mdadm", "lvm2", "e2fsprogs", "xfsprogs", "kernel")
    @classmethod
    def _modelled(cls, text: str, info: ValidationInfo) -> str:
        tool = str(info.field_name)
        low, high = ACCEPTED[tool]
        shown = ACCEPTED_TEXT[tool]
        known = f"it knows {_SHOWN.get(tool, tool)} {shown[0]} up to (not including) {shown[1]}"
        try:
            if not _VERSION_TEXT.fullmatch(text):
                raise ValueError(text)
            version = parse_version(text)
        except ValueError:
            raise PlanError(f"{text!r} is not a version podplan can read; {known}", f"tools.{tool}") from None
        if not low <= version < high:
            raise PlanError(f"{text} is not modelled; {known}", f"tools.{tool}")
        return text

    def v(self, tool: str) -> Version:
        return parse_version(getattr(self, tool))

    def rules(self, tool: str) -> Version:
        """The version whose rules the figures follow: the stated one, or the oldest modelled one for a
        tool older than that (its figures are then not witnessed: `older`)."""
        return max(self.v(tool), MODELLED[tool][0])

    def older(self) -> tuple[str, ...]:
        """The tools stated older than the rules the figures follow, in field order."""
        return tuple(t for t in MODELLED if self.v(t) < MODELLED[t][0])
