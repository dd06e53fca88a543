"""A plan may state the tools an old array was built with: it is computed, its figures that follow newer
rules than those tools are said to be not witnessed, and no build script is written for it."""

from __future__ import annotations

import pytest

from app.cli.main import main
from app.shared.planfile import plan_to_toml
from planners.compute import compute
from planners.errors import PlanError
from planners.example import example_pod
from planners.script.build import build_script
from planners.versions import ToolVersions


def _with(**tools: str):  # type: ignore[no-untyped-def]
    plan = example_pod()
    return plan.model_copy(update={"tools": ToolVersions(**tools)})


def _unwitnessed(plan) -> list[str]:  # type: ignore[no-untyped-def]
    return [f.message for f in compute(plan).findings if "not witnessed" in f.message]


def test_an_xfs_plan_on_a_2_6_kernel_is_written_down_with_its_df_marked() -> None:
    old, new = compute(_with(kernel="2.6.32")), compute(_with())
    assert old.df_size_bytes == new.df_size_bytes and old.usable_bytes == new.usable_bytes
    (said,) = _unwitnessed(_with(kernel="2.6.32"))
    assert "Linux 6.1's xfs accounting" in said and "2.6.32" in said
    assert _unwitnessed(_with()) == []


@pytest.mark.parametrize("tool,old", [("mdadm", "3.2.5"), ("xfsprogs", "3.1.9"), ("lvm2", "2.02.98")])
def test_an_older_tool_gets_the_oldest_rules_and_says_so(tool: str, old: str) -> None:
    plan = _with(**{tool: old})
    modelled = _with(**{tool: {"mdadm": "3.3", "xfsprogs": "5.19", "lvm2": "2.02"}[tool]})
    assert compute(plan).usable_bytes == compute(modelled).usable_bytes
    said = _unwitnessed(plan)
    if tool == "lvm2":  # 2.02.98 is within the modelled 2.02 series
        assert said == []
        return
    (one,) = said
    assert f"{tool} {old} is older" in one


def test_no_build_script_for_tools_older_than_its_commands() -> None:
    plan = _with(mdadm="3.2.5")
    with pytest.raises(PlanError, match="writes no script"):
        build_script(plan, compute(plan))
    build_script(_with(kernel="2.6.32"), compute(_with(kernel="2.6.32")))  # the kernel alone changes no command


def test_the_cli_plans_an_old_array_and_refuses_its_script(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "old.toml"
    path.write_text(plan_to_toml(_with(mdadm="3.1.4", xfsprogs="3.1.4", kernel="2.6.32")))
    assert main(["plan", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.count("not witnessed") == 3
    assert main(["script", str(path)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "mdadm 3.1.4" in err


@pytest.mark.parametrize("tool,text", [("mdadm", "1.12"), ("xfsprogs", "2.7"), ("e2fsprogs", "1.38")])
def test_older_than_any_layout_podplan_plans_is_refused(tool: str, text: str) -> None:
    with pytest.raises(ValueError, match="not modelled"):
        ToolVersions(**{tool: text})


def test_no_grow_script_for_tools_older_than_its_commands() -> None:
    from planners.grow import GrowRequest, growth_between, target_plan
    from planners.script.grow import grow_script

    old = _with(mdadm="3.2.5")
    with pytest.raises(PlanError, match="writes no script"):
        grow_script(old, growth_between(old, target_plan(old, GrowRequest(add_disks=1))))
