"""As built against as planned: each difference with what it costs, in one sentence.

Pure: the figures arrive as (layer, figure, planned, actual) from whoever read them (the
host inventory or the lab's collector); this module only judges them.
"""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict, Field


class Difference(BaseModel):
    """One figure where the array differs from its plan."""

    model_config = ConfigDict(frozen=True)

    layer: str = Field(description="md, lvm, filesystem or tuning.")
    figure: str = Field(description="What differs, with its unit, e.g. 'md0 chunk (bytes)'.")
    planned: int | str = Field(description="The plan's figure.")
    actual: int | str | None = Field(description="What the system reports; None if it reports nothing.")
    consequence: str = Field(description="What the difference costs, one sentence.")


_STRIPE_AWARE = (
    "the filesystem does not know the real stripe: allocations and large writes no longer start on "
    "stripe boundaries, so RAID5/6 writes turn into read-modify-write"
)
# (substring of the figure, sentence when actual is smaller, sentence when larger); first match wins.
_RULES: tuple[tuple[str, str, str], ...] = (
    (" level", "a different RAID level: capacity, redundancy and speed are not the ones planned", ""),
    (
        " members",
        "fewer members: less capacity, and a different full stripe, so every alignment above md is off",
        "more members: a different full stripe, so every alignment above md is off",
    ),
    (
        " spares",
        "fewer hot spares than planned: after a failure the array stays degraded until a person acts",
        "more hot spares than planned: capacity the plan counted on sits idle",
    ),
    (
        "chunk",
        (
            "a different chunk changes the full stripe: pe_start, su/sw and stride computed for the plan no longer "
            "line up, so full-stripe writes become read-modify-write"
        ),
        "",
    ),
    (
        "data offset",
        (
            "data starts earlier on each member than planned: mdadm's version or options differ, so sizes "
            "above md may differ too"
        ),
        "data starts later on each member than planned: each member gives up more space to metadata",
    ),
    (
        "component",
        "each member holds less data than planned: the array is smaller",
        "each member holds more data than planned: the array is bigger than the figures above it assumed",
    ),
    ("io_min", "the kernel advertises a different stripe unit: pvcreate and mkfs aligned to that, not to the plan", ""),
    ("io_opt", "the kernel advertises a different full stripe: pvcreate and mkfs aligned to that, not to the plan", ""),
    (
        "pe_start",
        (
            "LVM extents do not start on a full-stripe boundary: every stripe-sized write to the LV straddles "
            "two stripes"
        ),
        "",
    ),
    ("extent size", "a different extent size: the LV rounds to other boundaries and its size differs", ""),
    (
        "start in the LV",
        (
            "the array's data begins elsewhere in the LV than planned: the arrays were concatenated in "
            "another order or with other extents"
        ),
        "",
    ),
    (
        "past a full stripe",
        "the array starts nearer a full stripe of the LV than planned",
        (
            "the array starts inside a full stripe of the LV: every full-stripe write to it straddles two stripes, a "
            "read-modify-write on RAID5/6"
        ),
    ),
    (
        "LV stripes",
        "the LV stripes over fewer arrays than planned: sequential throughput scales down with it",
        "the LV stripes over more arrays than planned",
    ),
    (
        "readahead",
        "readahead below plan: a buffered sequential reader keeps fewer disks busy",
        "readahead above plan: more memory per reader, little harm",
    ),
    (
        "stripe_cache_size",
        ("a smaller stripe cache: md gathers fewer full stripes, so sequential writes read parity back more often"),
        "a bigger stripe cache: more memory, little harm",
    ),
    ("sunit", _STRIPE_AWARE, ""),
    ("swidth", _STRIPE_AWARE, ""),
    ("stride", _STRIPE_AWARE, ""),
    ("stripe_width", _STRIPE_AWARE, ""),
    ("agcount", "a different XFS allocation-group count: parallel allocation differs from the plan", ""),
    ("agsize", "a different XFS allocation-group size: AGs no longer start on the planned stripe boundaries", ""),
    ("log", "a smaller journal than planned: metadata-heavy work waits on the log sooner", "a bigger journal"),
    ("journal", "a smaller journal than planned: metadata-heavy work waits on the journal sooner", "a bigger journal"),
    ("inode count", "fewer inodes than planned: the filesystem can hold fewer files", "more inodes than planned"),
    ("reserved", "fewer blocks reserved for root than planned", "more blocks reserved for root: less space for users"),
)


def _delta(planned: int, actual: int) -> str:
    d = actual - planned
    return f" ({'+' if d > 0 else ''}{d:,} against the plan)"


def consequence(figure: str, planned: int | str, actual: int | str | None) -> str:
    """One sentence: what this difference costs."""
    if actual is None:
        # The same for every missing figure (its row names it), so a report says it once.
        return "not found: not built as planned, not assembled, or not mounted"
    numbers = isinstance(planned, int) and isinstance(actual, int)
    smaller = numbers and actual < planned  # type: ignore[operator]
    if any(k in figure for k in ("size (bytes)", "available", "extents", "data blocks", "block count")):
        delta = _delta(planned, actual) if numbers else ""  # type: ignore[arg-type]
        return (
            ("less space than planned" if smaller else "a different size than planned")
            + delta
            + ": every size computed above this layer differs too"
        )
    for key, lower, higher in _RULES:
        if key in figure:
            text = lower if (smaller or not higher) else higher
            return text + (_delta(planned, actual) if numbers and key not in (" level",) else "")  # type: ignore[arg-type]
    return "differs from the plan"


def differences(figures: Iterable[tuple[str, str, int | str, int | str | None]]) -> list[Difference]:
    """Every (layer, figure, planned, actual) that differs, with its consequence."""
    return [
        Difference(layer=layer, figure=fig, planned=p, actual=a, consequence=consequence(fig, p, a))
        for layer, fig, p, a in figures
        if a != p
    ]
