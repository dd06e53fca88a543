"""The command line and the TUI ask the same use case the same question and get the same answer."""

from __future__ import annotations

import json

from textual.widgets import DataTable

from app.cli.main import main as cli_main
from app.shared.planfile import plan_to_toml
from app.tui.app import PodplanApp
from app.tui.screens.compare_screen import CompareScreen
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


# A CPU whose raid6 gen() is slower than the example pod's disks: parity binds its sequential write,
# so the figure moves with the host's kernel log (the fixture logs' CPUs are all faster than the md thread).
SLOW_LOG = """\
[    1.544014] xor: using function: 8regs (300.000 MB/sec)
[    1.611038] raid6: int32x1     150 MB/s
[    1.816038] raid6: using algorithm int32x1 (150 MB/s)
"""


async def test_the_compare_screen_the_perf_tab_and_predict_give_one_mb_s(capsys, tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """This host's parity figures reach all three: the compare screen predicted without them."""
    from app.shared import host_cpu
    from runners.host.kernel_log import read_log_file

    log = tmp_path / "dmesg.txt"
    log.write_text(SLOW_LOG)
    monkeypatch.setattr(host_cpu, "host_parity", lambda: (read_log_file(str(log)), "this host's kernel log", ""))
    assert cli_main(["predict", "--workload", "seq-write", "--json"]) == 0
    (said,) = json.loads(capsys.readouterr().out)["predictions"]
    shown = f"{said['mb_s']:,.0f} MB/s"
    assert said["binding"] == "parity CPU" and shown == "157 MB/s"
    app = PodplanApp(example_pod())
    async with app.run_test(size=(200, 50)) as pilot:
        await pilot.pause(1.3)  # this host's figures are read a second after the first frame
        await app.workers.wait_for_complete()
        assert app.host_parity is not None
        app.screen.query_one("#result-tabs").active = "tab-performance"  # type: ignore[attr-defined]
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert f"seq-write  {shown}  limited by parity CPU" in rendered(app, "#perf", width=200)
        screen = await open_screen(pilot, "f3", CompareScreen)
        table = screen.query_one(DataTable)
        rows = {row[0]: row[1:] for row in (table.get_row_at(i) for i in range(table.row_count))}
        assert rows["seq write"] == [shown] and rows["  limited by"] == ["parity CPU"]
