"""A grow plan and a sweep as the use-case layer gives them, against what the command line prints."""

from __future__ import annotations

import json

import pytest

from app.cli.main import main
from app.usecases.grow import GrowPlanRequest, plan_growth
from app.usecases.sweep import CpuSource, SweepRequest, sweep_layouts
from planners.errors import PlanError
from planners.example import example_pod
from planners.grow import GrowRequest


def test_a_grow_plan_is_what_podplan_grow_prints(capsys: pytest.CaptureFixture[str]) -> None:
    grown = plan_growth(GrowPlanRequest(example_pod(), request=GrowRequest(add_disks=2)))
    assert main(["grow", "--add-disks", "2", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["growth"] == grown.growth.model_dump(mode="json")
    assert doc["target_plan"] == grown.target.model_dump(mode="json", exclude_none=True)
    assert len(doc["also_possible"]) == len(grown.alternatives)
    assert all(mode != grown.growth.mode for mode, _ in grown.alternatives)
    assert grown.script().startswith("#!/usr/bin/env bash")


def test_a_target_layout_grows_as_the_request_that_made_it() -> None:
    old = example_pod()
    asked = plan_growth(GrowPlanRequest(old, request=GrowRequest(add_disks=2)))
    to = plan_growth(GrowPlanRequest(old, target=asked.target))
    assert to.growth == asked.growth and to.alternatives == ()


def test_a_grow_plan_needs_one_request() -> None:
    with pytest.raises(PlanError, match="not both"):
        plan_growth(GrowPlanRequest(example_pod()))
    with pytest.raises(PlanError, match="not both"):
        plan_growth(GrowPlanRequest(example_pod(), request=GrowRequest(add_disks=1), target=example_pod()))


def test_a_sweep_is_what_podplan_sweep_prints(capsys: pytest.CaptureFixture[str]) -> None:
    out = sweep_layouts(SweepRequest(example_pod(), "rand-read-4k", cpu=CpuSource(no_host_cpu=True)))
    assert main(["sweep", "--workload", "rand-read-4k", "--no-host-cpu", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc.pop("schema") == "podplan/sweep/1" and doc.pop("cpu")["summary"].endswith("(--no-host-cpu)")
    # Without prices or watts the rows' cost (None each) is left out, as before there was one.
    assert not out.priced and all("cost" not in r for r in doc["rows"])
    assert doc == out.sweep.model_dump(mode="json", exclude={"rows": {"__all__": {"plan", "cost"}}})
    assert out.sweep.workload == "rand-read-4k" and out.cpu.raid6_gen.source != "kernel log"
