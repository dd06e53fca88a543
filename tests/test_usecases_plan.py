"""The plan's outputs as the use-case layer gives them to `podplan plan`, `script`, `check` and the TUI."""

from __future__ import annotations

import dataclasses
import json

import pytest

from app.cli.main import main
from app.usecases.check import CheckRequest, check_built
from app.usecases.plan import PlanRequest, build_script, plan_outputs
from planners.errors import PlanError
from planners.example import example_pod


def test_the_outcome_is_what_plan_json_prints(capsys: pytest.CaptureFixture[str]) -> None:
    out = plan_outputs(PlanRequest(example_pod()))
    assert main(["plan", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == json.loads(out.report().model_dump_json())
    assert not out.has_errors and [f.severity for f in out.result.findings] == ["info"] * len(out.result.findings)


def test_the_script_names_its_placeholders() -> None:
    pod = example_pod()
    script = build_script(PlanRequest(pod))
    assert script.text.startswith("#!/usr/bin/env bash") and script.unnamed == sum(d.count for d in pod.disks)
    devices = [f"/dev/sd{chr(ord('b') + i)}" for i in range(4)]
    four = pod.model_copy(update={"disks": [pod.disks[0].model_copy(update={"count": 4, "devices": devices})]})
    data = four.model_dump()
    data["groups"] = [{"name": "md0", "level": 5, "members": 4}]
    named = type(pod).model_validate(data)
    assert build_script(PlanRequest(named)).unnamed == 0


def test_check_needs_a_plan_and_a_target() -> None:
    with pytest.raises(PlanError, match="needs the plan"):
        check_built(CheckRequest("/", None))
    with pytest.raises(PlanError, match="no such device"):
        check_built(CheckRequest("/nonexistent/pod", example_pod()))


def test_requests_and_outcomes_are_frozen() -> None:
    out = plan_outputs(PlanRequest(example_pod()))
    with pytest.raises(dataclasses.FrozenInstanceError):
        out.result = out.result  # type: ignore[misc]
