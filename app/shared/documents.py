"""The documents `--json` prints, one model each: the rules they share, the registry of names, predict's.

Each document names its schema and version in its first key, "schema" (podplan/COMMAND/N); `podplan schema
COMMAND` prints the JSON Schema generated from these models, so the schema and the output cannot drift.
N grows when a key is removed or changes meaning; an added key keeps N (docs/commands.md). What validate prints
is in documents_measured, what sweep, grow, check and rehearse print in documents_built: each command imports
only the models of its own document.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from planners.cost import Cost
from planners.perf.predict import WorkloadPrediction
from planners.perf.scale import PointPrediction
from planners.reliability.loss import Reliability

# serialize_by_alias: the schema key is spelt "schema" however a model is dumped.
DOC = ConfigDict(frozen=True, serialize_by_alias=True)
# A dict another function already shapes (its keys are described where it is built).
Fields = dict[str, Any]


# The documents by the name their schema key gives (podplan/NAME/N): the model that makes each, imported
# only when `podplan schema NAME` asks, so that the planning commands do not import the measuring side.
DOCUMENTS = {
    "plan": "planners.results:PlanReport",
    "predict": "app.shared.documents:PredictDocument",
    "predict-scale": "app.shared.documents:PredictScaleDocument",
    "sweep": "app.shared.documents_built:SweepDocument",
    "grow": "app.shared.documents_built:GrowDocument",
    "grow-btrfs": "app.shared.documents_built:GrowBtrfsDocument",
    "check": "app.shared.documents_built:CheckDocument",
    "rehearse": "app.shared.documents_built:RehearseDocument",
    "rehearse-failure": "app.shared.documents_built:RehearseFailureDocument",
    "rehearse-growth": "app.shared.documents_built:RehearseGrowthDocument",
    "validate": "app.shared.documents_measured:ValidateDocument",
    "validate-hosts": "app.shared.documents_measured:ValidateHostsDocument",
    "validate-scale": "app.shared.documents_measured:ValidateScaleDocument",
    "validate-health": "app.shared.documents_measured:HealthDocument",
    "validate-burn-in": "app.shared.documents_measured:BurnInDocument",
    "compare": "app.shared.documents_compare:CompareDocument",
}


def document_model(name: str) -> type[BaseModel]:
    """The model of document NAME (a key of DOCUMENTS)."""
    import importlib

    module, _, cls = DOCUMENTS[name].partition(":")
    model: type[BaseModel] = getattr(importlib.import_module(module), cls)
    return model


def schema_field(name: str) -> Any:
    return Field(name, alias="schema", description="The schema this document follows and its version.")


def dumps(doc: BaseModel, exclude: Any = None) -> str:
    """The document as --json prints it: json.dumps's layout, as the commands printed before they had models."""
    return json.dumps(doc.model_dump(mode="json", exclude=exclude), indent=2)


class JobSectionRefused(BaseModel):
    model_config = DOC
    file: str = Field(description="The job file, as given.")
    section: str = Field(description="The job section podplan does not predict.")
    reason: str = Field(description="Why.")


class PredictDocument(BaseModel):
    """`podplan predict --json` (also with --job)."""

    model_config = DOC
    schema_: Literal["podplan/predict/1"] = schema_field("podplan/predict/1")
    podplan_version: str = Field(description="The podplan that predicted.")
    plan: str = Field(description="The plan's name.")
    mode: str = Field(description="The prediction mode (normal, degraded, rebuild).")
    cpu: Fields = Field(description="Where the parity CPU figures came from: 'summary' and the origin's fields.")
    predictions: list[WorkloadPrediction] = Field(description="One per workload or job section.")
    reliability: Reliability = Field(description="The odds of losing data.")
    job_notes: list[str] = Field(description="What the job files' options mean for the prediction.")
    job_grouping: list[str] = Field(description="'FILE: how its sections run together', per job file.")
    refused_sections: list[JobSectionRefused] = Field(description="Job sections not predicted.")
    cost: Cost | None = Field(None, description="Price, power and replacements; absent without prices.")


class PredictScaleDocument(BaseModel):
    """`podplan predict --scale KEY=V1,V2 --json`."""

    model_config = DOC
    schema_: Literal["podplan/predict-scale/1"] = schema_field("podplan/predict-scale/1")
    podplan_version: str = Field(description="The podplan that predicted.")
    plan: str = Field(description="The plan's name.")
    mode: str = Field(description="The prediction mode (normal, degraded, rebuild).")
    cpu: Fields = Field(description="Where the parity CPU figures came from: 'summary' and the origin's fields.")
    scale: list[Fields] = Field(description="The axes swept: each its key and values.")
    predictions: list[PointPrediction] = Field(description="One per workload and point.")
    job_notes: list[str] = Field(description="What the job files' options mean for the prediction.")
