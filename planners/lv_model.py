"""LVs of the plan's VG: an LV's size ("10GB", "25%", "rest") and several LVs each with its filesystem."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, model_validator

from planners.errors import PlanError
from planners.names import LV_NAME, check_path
from planners.units import parse_size

Frozen = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)


def _lv_size(value: object) -> int | str | None:
    """An LV's size: bytes ("10GB"), "rest" (what the VG has left) or a percent of the VG ("25%")."""
    if value is None or value == "":
        return None
    if isinstance(value, str):
        text = value.strip().lower()
        if text == "rest":
            return "rest"
        if text.endswith("%"):
            digits = text[:-1].strip()
            if not digits.isdigit() or not 1 <= int(digits) <= 100:
                raise PlanError(f"LV size {value!r}: a percent of the volume group is 1% to 100%", "lvm.lv_size")
            return f"{int(digits)}%"
    return parse_size(value, what="LV size")  # type: ignore[arg-type]


LvSize = Annotated[int | str | None, BeforeValidator(_lv_size)]


class LogicalVolume(BaseModel):
    """One of several LVs on the plan's VG ([[lvm.volumes]]), each with its own filesystem."""

    model_config = Frozen

    name: str = Field(description="LV name: the device is /dev/VG/NAME.")
    size: LvSize = Field(
        description="Bytes (rounded up to whole extents, as lvcreate -L), 'N%' of the VG, or 'rest': what the LVs "
        "before it leave (the last LV only)."
    )
    fs: Literal["xfs", "ext4", "ext3"] | None = Field(
        None, description="Its filesystem type; None = the plan's [filesystem] type, with the other settings there."
    )
    mount_point: str | None = Field(None, description="Where it is mounted; None = the plan's mount point + /NAME.")
    label: str = Field("", description="Its filesystem label ('' none).")

    @model_validator(mode="after")
    def _valid(self) -> LogicalVolume:
        LV_NAME.check(self.name, "lvm.volumes.name")
        if self.size is None:
            raise PlanError(f"LV {self.name}: give a size (bytes, N% or rest)", "lvm.volumes.size")
        if self.mount_point is not None:
            check_path(self.mount_point, "mount point", "lvm.volumes.mount_point")
        return self
