"""The documents `--json` prints for sweep, grow, check and rehearse (see documents for the rules they share)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field, PlainSerializer
from pydantic.json_schema import SkipJsonSchema

from app.shared.documents import DOC, Fields, schema_field
from planners.built.asbuilt import Difference
from planners.grow import Growth
from planners.grow.btrfs import BtrfsGrowth
from planners.layouts.sweep import Sweep, SweepRow
from planners.models import Plan


class SweepRowDoc(SweepRow):
    """A sweep row as --json prints it: without its plan (a plan file's worth per row)."""

    plan: SkipJsonSchema[Plan | None] = Field(None, exclude=True)  # type: ignore[assignment]  # left out


class SweepDocument(BaseModel):
    """`podplan sweep --json`: the fields of planners.layouts.sweep.Sweep, the rank and the CPU origin."""

    model_config = DOC
    schema_: Literal["podplan/sweep/1"] = schema_field("podplan/sweep/1")
    workload: str = Field(description="Workload the speed figure is for.")
    disks: int = Field(description="Disks swept, count.")
    rows: list[SweepRowDoc] = Field(description="Layouts; 'cost' only when the plan has prices.")
    skips: dict[str, int] = Field(description="Layouts left out, count by reason.")
    max_loss: float = Field(description="Yearly loss odds (4 % AFR) above which a layout is risky, 0-1.")
    max_rebuild_loss: float = Field(description="Share of rebuilds losing data to a URE above which it is risky, 0-1.")
    skipped: int = Field(description="Layouts left out, count.")
    rank: str | None = Field(None, description="The ranking asked for; absent for the Pareto front (the default).")
    cpu: Fields = Field(description="Where the parity CPU figures came from: 'summary' and the origin's fields.")

    @classmethod
    def of(cls, sweep: Sweep, *, rank: str, cpu: Fields) -> SweepDocument:
        # model_construct: the rows are SweepRows already checked; the document only leaves their plan out.
        rows = [SweepRowDoc.model_construct(**dict(r)) for r in sweep.rows]
        fields = {k: getattr(sweep, k) for k in ("workload", "disks", "skips", "max_loss", "max_rebuild_loss")}
        return cls(**fields, rows=rows, skipped=sweep.skipped, rank=rank, cpu=cpu)


def _sparse(plan: Plan) -> Fields:
    return plan.model_dump(mode="json", exclude_none=True)


# A plan file's keys only: those left unset stay out, as in a saved plan.
SparsePlan = Annotated[Plan, PlainSerializer(_sparse)]


class GrowDocument(BaseModel):
    """`podplan grow --json` for md and LVM."""

    model_config = DOC
    schema_: Literal["podplan/grow/1"] = schema_field("podplan/grow/1")
    growth: Growth = Field(description="The growth step by step, with its figures.")
    also_possible: list[str] = Field(description="The other modes that would work, a line each.")
    target_plan: SparsePlan = Field(description="The plan after the growth (keys left unset are absent).")


class GrowBtrfsDocument(BaseModel):
    """`podplan grow --json` for a btrfs across raw disks."""

    model_config = DOC
    schema_: Literal["podplan/grow-btrfs/1"] = schema_field("podplan/grow-btrfs/1")
    growth: BtrfsGrowth = Field(description="Device add and balance, with the figures before and after.")
    target_plan: SparsePlan = Field(description="The plan after the growth (keys left unset are absent).")


class CheckDocument(BaseModel):
    """`podplan check --json`."""

    model_config = DOC
    schema_: Literal["podplan/check/1"] = schema_field("podplan/check/1")
    target: str = Field(description="The device or directory checked, as given.")
    found: str = Field(description="What podplan found there, a line.")
    compared: int = Field(description="Figures compared with the plan, count.")
    differences: list[Difference] = Field(description="Each figure that differs from the plan.")


class RehearseDocument(BaseModel):
    """`podplan rehearse --json`: the build in a throwaway VM, checked against the plan."""

    model_config = DOC
    schema_: Literal["podplan/rehearse/1"] = schema_field("podplan/rehearse/1")
    all_match: bool = Field(description="The script ran and every witnessed figure matches.")
    script_exit_status: int | None = Field(description="The build script's exit status; null when it did not run.")
    disk_bytes: list[int] = Field(description="The VM's disks, bytes each.")
    kernel: str = Field(description="The VM's kernel release.")
    boot_seconds: float | None = Field(description="Until the disks were ready, seconds.")
    script_seconds: float | None = Field(description="The script and the resync, seconds.")
    checks: list[Fields] = Field(description="Each figure: predicted, actual, match and witnessed (checks.json).")


class RehearseFailureDocument(BaseModel):
    """`podplan rehearse --fail --json`: a member failed and rebuilt in the VM."""

    model_config = DOC
    schema_: Literal["podplan/rehearse-failure/1"] = schema_field("podplan/rehearse-failure/1")
    all_match: bool = Field(description="The script ran and every witnessed figure matches.")
    script_exit_status: int | None = Field(description="The rehearsal script's exit status; null when it did not run.")
    group: str = Field(description="The group failed.")
    failed: int = Field(description="Members failed, count.")
    disk_bytes: list[int] = Field(description="The VM's disks, bytes each.")
    disk_bytes_per_s: int = Field(description="The disks' throttled speed, bytes per second.")
    kernel: str = Field(description="The VM's kernel release.")
    script_seconds: float | None = Field(description="The rehearsal script, seconds.")
    checks: list[Fields] = Field(description="Each figure: predicted, measured, match and witnessed.")


class RehearseGrowthDocument(BaseModel):
    """`podplan rehearse --grow --json`: the grow script run in the VM."""

    model_config = DOC
    schema_: Literal["podplan/rehearse-growth/1"] = schema_field("podplan/rehearse-growth/1")
    all_match: bool = Field(description="The script ran and every witnessed figure matches.")
    script_exit_status: int | None = Field(description="The rehearsal script's exit status; null when it did not run.")
    mode: str = Field(description="The grow mode rehearsed.")
    disk_bytes: list[int] = Field(description="The VM's disks, bytes each.")
    kernel: str = Field(description="The VM's kernel release.")
    grow_seconds: float | None = Field(description="The grow script, seconds.")
    checks: list[Fields] = Field(description="Each figure: predicted, actual, match and witnessed.")
