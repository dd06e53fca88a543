"""The command line and the TUI ask the same use case the same question and get the same answer."""

from __future__ import annotations

import json

from app.cli.main import main as cli_main
from app.shared.planfile import plan_to_toml
from app.tui.app import PodplanApp
from app.tui.screens.grow_screen import GrowScreen
from planners.errors import PlanError
from planners.example import example_btrfs, example_pod
from planners.layouts.groups import members_per_group
from tests.tui_helpers import SIZE, open_screen, rendered, text_of


async def _type(pilot, field: str, text: str) -> None:  # type: ignore[no-untyped-def]
    pilot.app.screen.query_one(f"#{field}").focus()
    widget = pilot.app.screen.query_one(f"#{field}")
    await pilot.press("end", *["backspace"] * len(widget.value), *text)
    await pilot.pause()


async def test_45_disks_in_4_groups_is_one_refusal_in_both(capsys) -> None:  # type: ignore[no-untyped-def]
    """4 x 11 would leave the 45th disk in the pod unused: both front ends refuse, in the same words."""
    try:
        members_per_group(45, 4, 0)
    except PlanError as exc:
        said = exc.message
    assert said.startswith("45 disks do not split into 4 equal groups (4 x 11 leaves 1 disk unused)")
    assert cli_main(["plan", "--groups", "4"]) == 2
    assert capsys.readouterr().err.strip() == f"podplan: {said}"
    app = PodplanApp(example_pod())
    async with app.run_test(size=SIZE) as pilot:
        await _type(pilot, "groups", "4")
        assert text_of(app, "#form-error") == f"groups: {said}"
        assert app.plan is not None and [g.members for g in app.plan.groups] == [15, 15, 15]  # the last valid plan


async def test_the_btrfs6_grow_is_one_answer_in_both(capsys, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A btrfs across raw disks grows by device add and a balance, on the command line and on f9 alike."""
    plan = example_btrfs()
    path = tmp_path / "btrfs6.toml"
    path.write_text(plan_to_toml(plan))
    assert cli_main(["grow", str(path), "--add-disks", "1", "--json"]) == 0
    said = json.loads(capsys.readouterr().out)
    assert cli_main(["grow", str(path), "--add-disks", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    app = PodplanApp(plan)
    async with app.run_test(size=(200, 50)) as pilot:
        screen = await open_screen(pilot, "f9", GrowScreen)  # one disk to add is the screen's default
        assert screen.error == ""
        assert screen.grown is not None and screen.grown.growth.model_dump(mode="json") == said["growth"]
        assert screen.grown.target.model_dump(mode="json", exclude_none=True) == said["target_plan"]
        shown = rendered(app, "#grow-result", width=200).splitlines()
        assert [line.rstrip() for line in shown[: len(lines)]] == lines
