"""Snapshot tests of the TUI (pinned Textual, fixed sizes, no cursor blink). Update with --snapshot-update."""

from __future__ import annotations

from app.tui.app import PodplanApp
from planners.example import example_pod
from tests.tui_helpers import no_blink


async def _steady(pilot) -> None:  # type: ignore[no-untyped-def]
    no_blink(pilot.app)
    await pilot.pause()


def test_plan_screen_80x24(snap_compare) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(PodplanApp(example_pod()), terminal_size=(80, 24), run_before=_steady)


def test_plan_screen_wide(snap_compare) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(PodplanApp(example_pod()), terminal_size=(150, 40), run_before=_steady)


def test_impossible_plan_80x24(snap_compare) -> None:  # type: ignore[no-untyped-def]
    async def raid6_on_three(pilot) -> None:  # type: ignore[no-untyped-def]
        await _steady(pilot)
        pilot.app.screen.query_one("#groups").value = "1"
        pilot.app.screen.query_one("#count").value = "3"
        await pilot.pause()

    assert snap_compare(PodplanApp(example_pod()), terminal_size=(80, 24), run_before=raid6_on_three)


def test_script_screen_light(snap_compare) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(PodplanApp(example_pod()), press=["ctrl+t", "f2"], terminal_size=(100, 30), run_before=_steady)


def test_compare_screen(snap_compare) -> None:  # type: ignore[no-untyped-def]
    async def two_variants(pilot) -> None:  # type: ignore[no-untyped-def]
        await _steady(pilot)
        await pilot.press("f4")
        pilot.app.screen.query_one("#groups").value = "1"
        await pilot.pause()
        await pilot.press("f3")
        await pilot.pause()

    assert snap_compare(PodplanApp(example_pod()), terminal_size=(100, 30), run_before=two_variants)


def test_findings_80x24(snap_compare) -> None:  # type: ignore[no-untyped-def]
    """Every finding readable in full at 80x24: the sentences wrap to the pane."""
    assert snap_compare(PodplanApp(example_pod()), press=["f8", "f8"], terminal_size=(80, 24), run_before=_steady)
