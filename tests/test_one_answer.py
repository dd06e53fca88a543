"""The command line and the TUI ask the same use case the same question and get the same answer."""

from __future__ import annotations

from app.cli.main import main as cli_main
from app.tui.app import PodplanApp
from planners.errors import PlanError
from planners.example import example_pod
from planners.layouts.groups import members_per_group
from tests.tui_helpers import SIZE, text_of


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
