"""The documents `podplan validate --json` prints (the suite, per host, a sweep, SMART, a burn-in), one model each.

Apart from documents (what podplan plans) so that a planning command does not import fio's side. The same
rules: the first key, "schema", names the schema and its version; `podplan schema COMMAND` prints it.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from app.shared.documents import DOC, Fields, schema_field
from planners.hardware.disks import DiskPerf
from planners.perf.scale import PointPrediction
from runners.fio.baseline import Baseline
from runners.validate.burnin import DiskVerdict
from runners.validate.compare import SideBySide
from runners.validate.hosts import HostStatus
from runners.validate.scale import ScaleReport
from runners.validate.suite import ValidateReport


class SectionRefused(BaseModel):
    model_config = DOC
    section: str = Field(description="The job section podplan does not run.")
    reason: str = Field(description="Why.")


class ValidateDocument(BaseModel):
    """`podplan validate --json`; 'baseline', 'disk_override' and 'health' only with --baseline."""

    model_config = DOC
    schema_: Literal["podplan/validate/1"] = schema_field("podplan/validate/1")
    report: ValidateReport = Field(description="What fio measured, per workload.")
    side_by_side: list[SideBySide] = Field(description="Measured beside predicted, per workload, with the reasons.")
    prediction: bool = Field(description="A prediction was compared (a plan of this storage was given).")
    cpu: Fields | None = Field(description="Where the parity CPU figures came from; null without a prediction.")
    plan_mismatch: list[str] = Field(description="Why the plan given does not describe the target.")
    refused_sections: list[SectionRefused] = Field(description="Job sections not run.")
    baseline: Baseline | None = Field(None, description="The member disks measured alone (--baseline).")
    disk_override: DiskPerf | None = Field(None, description="The disk figures the model was fed from the baseline.")
    health: list[Fields] | None = Field(None, description="SMART of every disk, as validate --health prints it.")


class HostDoc(BaseModel):
    model_config = DOC
    host: str = Field(description="Host label, name[:port].")
    status: HostStatus = Field(description="done, partial, failed, unreachable, skipped.")
    reason: str = Field(description="Why, for a status other than done.")
    report: ValidateReport | None = Field(description="What fio measured there; null when nothing ran.")
    side_by_side: list[SideBySide] = Field(description="Measured beside predicted, per workload.")
    prediction: bool = Field(description="A prediction was compared.")


class ValidateHostsDocument(BaseModel):
    """`podplan validate --hosts H1,H2 --json`."""

    model_config = DOC
    schema_: Literal["podplan/validate-hosts/1"] = schema_field("podplan/validate-hosts/1")
    target: str = Field(description="Device or directory on each host, as given.")
    duration_s: float = Field(description="Wall time of the whole run, in seconds.")
    hosts: list[HostDoc] = Field(description="Per host, in the order given.")


class ValidateScaleDocument(BaseModel):
    """`podplan validate --scale KEY=V1,V2 --json`."""

    model_config = DOC
    schema_: Literal["podplan/validate-scale/1"] = schema_field("podplan/validate-scale/1")
    scale: ScaleReport = Field(description="What fio measured at each point.")
    predictions: list[PointPrediction] = Field(description="The model's figure at each point; [] without a plan.")
    curves: list[Fields] = Field(description="The curves the report draws (curves.json).")


class HealthDocument(BaseModel):
    """`podplan validate --health --json`."""

    model_config = DOC
    schema_: Literal["podplan/validate-health/1"] = schema_field("podplan/validate-health/1")
    target: str = Field(description="The device or directory, as given.")
    health: list[Fields] = Field(
        description="Per disk: its SMART figures, 'failing' (what fails it) and 'watch' (what to watch)."
    )


class VerdictDoc(BaseModel):
    """A disk's burn-in verdict (runners.validate.burnin.DiskVerdict), its SMART as validate --health prints it."""

    model_config = DOC
    device: str = Field(description="Device path.")
    size_bytes: int = Field(description="Device size, in bytes.")
    done_bytes: int = Field(description="Bytes covered, in bytes.")
    moved: list[str] = Field(description="Error counters that rose, 'name before -> after' each.")
    error: str = Field(description="Why the disk stopped early, '' if it did not.")
    before: Fields = Field(description="SMART before.")
    after: Fields | None = Field(description="SMART after (null when stopped early).")

    @classmethod
    def of(cls, v: DiskVerdict) -> VerdictDoc:
        from planners.health import health_json

        return cls(
            **v.model_dump(exclude={"before", "after"}),
            before=health_json((v.before,))[0],
            after=health_json((v.after,))[0] if v.after else None,
        )


class BurnInDocument(BaseModel):
    """`podplan validate --burn-in --json`."""

    model_config = DOC
    schema_: Literal["podplan/validate-burn-in/1"] = schema_field("podplan/validate-burn-in/1")
    target: str = Field(description="The device or directory, as given.")
    write: bool = Field(description="Written then read (destroying data), else read only.")
    stopped: bool = Field(description="Stopped before the end (resume with --resume).")
    state_file: str | None = Field(description="Where the progress is kept, when stopped.")
    disks: list[VerdictDoc] = Field(description="Per disk: its verdict, with SMART before and after.")
