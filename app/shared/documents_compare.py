"""The document `podplan compare --json` prints: a fio output's jobs beside the plan's prediction for them.

Apart from documents_measured (validate's), which imports the suite's runners that compare does not use.
The same rules: the first key, "schema", names the schema and its version; `podplan schema compare` prints it.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from app.shared.documents import DOC, schema_field
from app.shared.kept_report import KeptMeasured
from planners.perf.predict import WorkloadPrediction


class ComparedJobDocument(BaseModel):
    model_config = DOC
    job: str = Field(description="The job's name (its section of the job file).")
    metric: Literal["MB/s", "IOPS"] = Field(
        description="The figure compared: IOPS for requests under 64 KiB, MB/s (10^6 bytes/s) above, as validate."
    )
    measured: float = Field(description="What fio measured, in `metric`: its clones and hosts added up.")
    predicted: float | None = Field(description="The plan's prediction, in `metric`; null when not predicted.")
    diff_pct: float | None = Field(description="(measured - predicted) / predicted, in per cent; null without one.")
    limited_by: str = Field(description="The term that limits the prediction ('' without one).")
    measured_mb_s: float = Field(description="Measured MB/s (10^6 bytes/s), read and write together.")
    measured_iops: float = Field(description="Measured I/Os per second, read and write together.")
    entries: int = Field(description="The entries fio reported for the job (clones without group_reporting, hosts).")
    figures: KeptMeasured | None = Field(
        description="The steady window and whole-run figures, the window's spread and the completion latency, "
        "as the report shows them; null when several entries were added up."
    )
    prediction: WorkloadPrediction | None = Field(description="The prediction in full, as predict --job gives it.")


class CompareDocument(BaseModel):
    """`podplan compare PLAN --fio RESULT.json --json`."""

    model_config = DOC
    schema_: Literal["podplan/compare/1"] = schema_field("podplan/compare/1")
    podplan_version: str = Field(description="The podplan that predicted.")
    plan: str = Field(description="The plan's name.")
    fio: str = Field(description="The fio output read, as given.")
    fio_version: str = Field(description="The fio that wrote it, as it says ('' when it does not).")
    jobs_from: str = Field(description="The job file the predictions were made from, or the output's own options.")
    jobs: list[ComparedJobDocument] = Field(description="One per job fio reported, in its order.")
    notes: list[str] = Field(description="What the job options mean for the prediction, and what was not compared.")
    report: str | None = Field(description="The --report directory written (report.html, curves.json), or null.")
