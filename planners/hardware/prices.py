"""What a pod costs to buy and to run, as a plan states it: the bounds of a price and a power draw, and the
pod's own costs beside its disks' (`[hardware.cost]`). The arithmetic over them is planners.cost."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, Field, SerializerFunctionWrapHandler, field_validator

from planners.hardware.bounds import Frozen
from planners.names import check_text

# A price in the plan's own currency, from nothing to a trillion of it (any pod's parts, in any currency);
# a power draw from nothing to 100 kW (past any disk, and past any one pod).
Price = Annotated[float, Field(ge=0, le=1e12)]
Watts = Annotated[float, Field(ge=0, le=1e5)]
CURRENCY_MAX = 16


class PodCost(BaseModel):
    """The pod's costs beyond its disks, each in `currency`; those left out cost nothing."""

    model_config = Frozen

    currency: str = Field(
        "", max_length=CURRENCY_MAX, description="What every price is in, shown as written ('USD', 'EUR', '$')."
    )
    chassis: Price | None = Field(None, description="Enclosure, power supplies and fans, in `currency`.")
    controllers: Price | None = Field(None, description="HBAs, SATA cards and backplanes, in `currency`.")
    other: Price | None = Field(None, description="Everything else: board, CPU, memory, boot disk, in `currency`.")

    @field_validator("currency")
    @classmethod
    def _currency(cls, value: str) -> str:
        return check_text(value, "currency", "hardware.cost.currency")

    @property
    def parts(self) -> dict[str, float]:
        """The costs the plan gives, by name, in `currency`."""
        return {k: v for k in ("chassis", "controllers", "other") if (v := getattr(self, k)) is not None}


def without_unset(data: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    """`data` less the optional cost keys left unset: a plan without prices dumps as it did before them."""
    return {k: v for k, v in data.items() if not (k in keys and v is None)}


def dump_without_unset(model: BaseModel, handler: SerializerFunctionWrapHandler, keys: tuple[str, ...]) -> Any:
    data = handler(model)
    return without_unset(data, keys) if isinstance(data, dict) else data
