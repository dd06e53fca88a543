"""Pilot tests of the TUI at a fixed terminal size: the form drives the figures, files round-trip."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from textual.widgets import DataTable, Input, Static

from app.cli.main import main as cli_main
from app.shared.planfile import load_plan, plan_to_toml
from app.tui.app import PodplanApp
from app.tui.screens.compare_screen import CompareScreen
from app.tui.screens.dialogs import Confirm, PathPrompt, QuitDialog
from app.tui.screens.script_screen import ScriptScreen
from app.tui.widgets.choice import Choice
from planners.compute import compute
from planners.example import example_pod
from planners.script.build import build_script
from planners.units import format_bytes_binary as tib
from tests.tui_helpers import SIZE, plan_with, rendered, text_of


async def _focus(pilot, field: str) -> None:
    """Move to a field as tab would (it scrolls into view); the mouse is tested on visible fields."""
    pilot.app.screen.query_one(f"#{field}").focus()
    await pilot.pause()


async def _type(pilot, field: str, text: str) -> None:
    """Go to the field, clear it and type, one key at a time as a person would."""
    await _focus(pilot, field)
    widget = pilot.app.screen.query_one(f"#{field}", Input)
    await pilot.press("end", *["backspace"] * len(widget.value), *text)
    await pilot.pause()


async def _open(pilot, path: Path) -> None:
    await pilot.press("ctrl+o")
    await pilot.pause()
    assert isinstance(pilot.app.screen, PathPrompt)
    pilot.app.screen.query_one("#path", Input).value = str(path)
    await pilot.press("enter")
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def test_disk_count_updates_usable_bytes() -> None:
    app = PodplanApp(example_pod())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        before = compute(example_pod()).usable_bytes
        assert f"{before:,} B" in text_of(app, "#summary")
        await _type(pilot, "count", "60")
        expected = compute(plan_with(count="60")).usable_bytes
        assert expected != before
        assert app.result is not None and app.result.usable_bytes == expected
        assert f"{expected:,} B" in text_of(app, "#summary")
        assert "60 disks" in text_of(app, "#summary")


async def test_raid6_with_three_disks_shows_the_reason_and_keeps_the_last_results() -> None:
    app = PodplanApp(example_pod())
    async with app.run_test(size=SIZE) as pilot:
        await _type(pilot, "groups", "1")
        assert app.result.usable_bytes == compute(plan_with(groups="1")).usable_bytes
        # Backspacing "45" passes through "4", a valid 4-disk RAID6: the last figures before "3".
        await _type(pilot, "count", "3")
        last_valid = compute(plan_with(groups="1", count="4")).usable_bytes
        reason = "md0: RAID6 needs at least 4 members, got 3"
        assert text_of(app, "#form-error") == f"members: {reason}"
        assert app.screen.query_one("#label-members").has_class("-error")
        assert app.screen.query_one("#members").has_class("-error")
        summary = text_of(app, "#summary")
        assert summary.startswith(f"Not computed: {reason}")
        assert f"last valid: {last_valid:,} B" in summary  # the last valid figures stay
        assert app.result.usable_bytes == last_valid
        await _type(pilot, "count", "4")
        assert text_of(app, "#form-error") == ""
        assert not app.screen.query(".-error")
        assert "Not computed" not in text_of(app, "#summary")
        assert app.result.disk_count == 4


async def test_choices_cycle_and_keep_the_form_consistent() -> None:
    app = PodplanApp(example_pod())
    async with app.run_test(size=SIZE) as pilot:
        await _focus(pilot, "level")
        await pilot.press("1")  # jumps to the next level whose label has a 1: RAID10, then RAID1
        await pilot.pause()
        assert app.plan.groups[0].level == 10
        assert app.screen.query_one("#layout", Choice).values == ["", "n2", "n3", "f2", "f3", "o2", "o3"]
        await pilot.press("1")
        await pilot.pause()
        assert app.plan.groups[0].level == 1
        assert app.screen.query_one("#chunk").disabled
        await pilot.press("right")
        await pilot.pause()
        assert app.plan.groups[0].level == 4
        await pilot.click("#preset", offset=(5, 0))  # a click steps forward: 2TB -> 4TB
        await pilot.pause()
        await pilot.pause()
        assert app.plan.disks[0].size == 4000787030016
        await _type(pilot, "size", "4000787030017")  # no longer a preset, and not whole sectors
        assert app.screen.query_one("#preset", Choice).value == ""
        assert app.screen.query_one("#label-size").has_class("-error")


async def test_save_then_reopen_round_trips_and_asks_before_overwriting(tmp_path: Path) -> None:
    target = tmp_path / "pod.toml"
    app = PodplanApp(example_pod())
    async with app.run_test(size=SIZE) as pilot:
        await _type(pilot, "chunk", "256K")
        await _type(pilot, "label", "archive")
        await _focus(pilot, "fs")
        await pilot.press("right")  # XFS -> ext4
        await pilot.pause()
        edited = app.plan
        assert edited.filesystem.type == "ext4" and edited.groups[0].chunk == 256 * 1024

        async def save(answer: str | None, to: Path = target) -> None:
            await pilot.press("ctrl+s")
            await pilot.pause()
            assert isinstance(app.screen, PathPrompt)
            app.screen.query_one("#path", Input).value = str(to)
            await pilot.press("enter")
            await pilot.pause()
            if answer is not None:
                assert isinstance(app.screen, Confirm)
                await pilot.press(answer)
            await app.workers.wait_for_complete()
            await pilot.pause()

        await save(None)
        assert load_plan(target) == edited
        assert target.read_text() == plan_to_toml(edited)
        assert not list(tmp_path.glob(".*.tmp"))  # the temporary file was renamed, not left behind

        await _type(pilot, "label", "other")
        someone_elses = tmp_path / "theirs.toml"
        someone_elses.write_text(plan_to_toml(example_pod()))
        await save("n", someone_elses)
        assert load_plan(someone_elses) == example_pod()  # declined: untouched
        await save("y", someone_elses)
        assert load_plan(someone_elses).filesystem.label == "other"
        # The plan's own file now, unchanged on disk since it was saved: written without a question.
        await _type(pilot, "label", "third")
        await save(None, someone_elses)
        assert load_plan(someone_elses).filesystem.label == "third"

        # Start from the example again and open the first plan back.
        target.write_text(plan_to_toml(edited))
        await _open(pilot, target)
        assert app.plan == edited
        assert app.screen.query_one("#label", Input).value == "archive"
        assert app.plan_file == target


async def test_opening_a_bad_file_notifies_and_keeps_the_plan(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("[[disks]]\ncount = 'many'\n")
    app = PodplanApp(example_pod())
    async with app.run_test(size=SIZE) as pilot:
        await _open(pilot, bad)
        assert app.plan == example_pod()
        assert any(str(bad) in str(n.message) for n in app._notifications)


async def test_script_screen_shows_what_podplan_script_prints(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["script"]) == 0
    printed = capsys.readouterr().out
    app = PodplanApp(example_pod())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f2")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ScriptScreen)
        assert screen.script == printed == build_script(example_pod(), compute(example_pod()))
        assert screen.query_one("#script", Static).content.code == printed
        # The example names no devices: the screen says the script would stop, and how to name them.
        note = " ".join(str(s.content) for s in screen.query(".stale-note").results(Static))
        assert "45 disks have no device path" in note and "f7" in note and "--devices" in note
        await pilot.press("c")
        assert app.clipboard == printed
        # podplan cannot know whether the terminal took it: it says where it went and the way out.
        said = [n.message for n in app._notifications]
        assert any("terminal's clipboard" in m and "s to save it" in m for m in said), said
        assert not any(m.startswith("Copied") for m in said)
        await pilot.press("escape")
        await _type(pilot, "count", "48")
        await pilot.press("f2")
        await pilot.pause()
        assert app.screen.script == build_script(plan_with(count="48"), compute(plan_with(count="48")))


async def test_compare_pinned_variants_side_by_side() -> None:
    app = PodplanApp(example_pod())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f4")
        await _type(pilot, "groups", "1")
        await pilot.press("f4")
        await _type(pilot, "groups", "5")
        await pilot.press("f3")
        await pilot.pause()
        assert isinstance(app.screen, CompareScreen)
        table = app.screen.query_one(DataTable)
        assert [str(c.label) for c in table.columns.values()] == ["", "A", "B", "current"]
        usable = next(row for row in (table.get_row_at(i) for i in range(table.row_count)) if row[0] == "usable bytes")
        assert usable[1:] == [
            f"{compute(p).usable_bytes:,}" for p in (example_pod(), plan_with(groups="1"), plan_with(groups="5"))
        ]
        await pilot.press("right", "right", "l")  # load variant B back into the form
        await pilot.pause()
        assert app.plan == plan_with(groups="1")
        assert app.screen.query_one("#groups", Input).value == "1"


async def test_every_action_is_in_the_palette_and_the_theme_toggles() -> None:
    app = PodplanApp(example_pod())
    async with app.run_test(size=SIZE) as pilot:
        titles = {c.title for c in app.get_system_commands(app.screen)}
        assert {
            "Help",
            "Show build script",
            "Compare variants",
            "Pin current plan",
            "Save plan",
            "Open plan",
            "Toggle dark/light theme",
            "Validate array",
        } <= titles
        assert "Theme" not in titles  # Textual's picker of every theme: podplan's colours are for its two
        assert app.current_theme.dark
        await pilot.press("ctrl+t")
        assert not app.current_theme.dark
        await pilot.press("f1")
        await pilot.pause()
        assert type(app.screen).__name__ == "HelpScreen"


async def test_the_result_tabs_are_in_the_palette() -> None:
    """Typed in the palette, 'Findings' reaches the Findings tab (and says its key)."""
    from textual.widgets import TabbedContent

    app = PodplanApp(example_pod())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        commands = {c.title: c for c in app.get_system_commands(app.screen)}
        assert {"Capacity tab", "Alignment tab", "Findings tab", "Perf tab"} <= set(commands)
        assert "alt+3" in commands["Findings tab"].help
        await pilot.press("ctrl+p", *"Findings", "enter")
        await pilot.pause()
        assert app.screen.query_one("#result-tabs", TabbedContent).active == "tab-findings"


async def test_perf_tab_draws_each_workload_and_names_the_cpu_source() -> None:
    from textual.widgets import TabbedContent

    app = PodplanApp(example_pod())
    async with app.run_test(size=(120, 60)) as pilot:
        for _ in range(100):  # this host's kernel log is read in a worker a second after start
            if app.host_parity is not None:
                break
            await pilot.pause(0.1)
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        pilot.app.screen.query_one("#result-tabs", TabbedContent).active = "tab-performance"
        for _ in range(100):  # the tab is predicted in a worker once shown; a loaded machine takes longer
            await pilot.app.workers.wait_for_complete()
            await pilot.pause()
            text = rendered(pilot.app, "#perf", width=118)
            if text.strip():
                break
        for name in ("seq-read", "seq-write", "rand-read-4k", "rand-write-4k", "Reliability"):
            assert name in text, text
        # The one loss figure, its parts named as `podplan predict` names them.
        assert "array loss (a failure too many)" in text and "data lost to UREs in" in text, text
        # The same source `podplan predict` would name: this host's log when it has the figures, else a preset.
        assert "CPU: raid6 gen()" in text and ("kernel log" in text or "preset" in text), text


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_no_result_tab_cuts_a_figure_or_a_finding(size) -> None:
    """Every tab, reached with f8, shows its figures and sentences whole: wrapped, never '…'."""
    app = PodplanApp(example_pod())
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        seen = []
        for _ in range(4):
            seen.append(app.screen.query_one("#result-tabs").active)
            assert "…" not in app.export_screenshot(), f"{seen[-1]} at {size} cuts something"
            await pilot.press("f8")
            await pilot.pause()
        assert seen == ["tab-capacity", "tab-alignment", "tab-findings", "tab-performance"]
        await pilot.press("alt+3")
        await pilot.pause()
        assert app.screen.query_one("#result-tabs").active == "tab-findings"


async def test_findings_tab_warns_of_a_layout_that_loses_data_in_most_rebuilds() -> None:
    from planners.models import MdGroup

    pod = example_pod()
    plan = pod.model_copy(
        update={
            "disks": [pod.disks[0].model_copy(update={"size": 18 * 10**12})],
            "groups": [MdGroup(name=f"md{i}", level=5, members=9, chunk=512 * 1024) for i in range(5)],
        }
    )
    app = PodplanApp(plan)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("alt+3")
        await pilot.pause()
        text = " ".join(rendered(app, "#findings", width=118).split())
        assert "md0 to md4 (5 arrays, RAID5 of 9)" in text and "100% of them lose a stripe's data" in text, text


async def test_a_disk_size_says_what_it_was_understood_as() -> None:
    app = PodplanApp(example_pod())
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        app.screen.query_one("#size").value = "18T"
        await pilot.pause()
        assert str(app.screen.query_one("#meaning-size").content) == "= 18.00 TiB = 19.79 TB"
        app.screen.query_one("#size").value = "18TB"
        await pilot.pause()
        assert str(app.screen.query_one("#meaning-size").content) == "= 16.37 TiB = 18.00 TB"


async def test_tabbing_through_an_empty_members_field_stays_unmarked() -> None:
    app = PodplanApp(example_pod())
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.pause()
        members = app.screen.query_one("#members")
        members.focus()
        await pilot.press("tab")
        await pilot.pause()
        assert members.value == "" and not members.has_class("-invalid") and not members.has_class("-error")


def _app_on_a_file(tmp_path) -> tuple[PodplanApp, Path]:
    """The app on the example pod as a saved file: nothing unsaved at start."""
    path = tmp_path / "pod.toml"
    path.write_text(plan_to_toml(example_pod()))
    return PodplanApp(load_plan(path), path), path


async def test_unsaved_changes_are_marked_and_asked_about(tmp_path) -> None:
    app, path = _app_on_a_file(tmp_path)
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.pause()
        assert app.sub_title == str(path) and not app.modified
        app.screen.query_one("#groups").value = "5"
        await pilot.pause()
        assert app.sub_title == f"{path} [modified]"
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert isinstance(app.screen, QuitDialog)  # not gone: it asks
        await pilot.press("n")
        await pilot.pause()
        assert app.is_running and not isinstance(app.screen, QuitDialog)
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert isinstance(app.screen, Confirm)
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, (Confirm, PathPrompt))
        app.screen.query_one("#groups").value = "3"  # back to the file's plan: nothing to lose
        await pilot.pause()
        assert not app.modified and app.sub_title == str(path)
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert not app.is_running


async def test_an_edit_the_plan_cannot_take_is_unsaved_too(tmp_path) -> None:
    """A half-typed size is the user's work: marked, and asked about before it is thrown away."""
    app, path = _app_on_a_file(tmp_path)
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.pause()
        app.screen.query_one("#size").value = "2000398934016x"
        await pilot.pause()
        assert app.error and app.sub_title == f"{path} [modified]"
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert isinstance(app.screen, Confirm)
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert isinstance(app.screen, QuitDialog) and app.is_running


@pytest.mark.parametrize("count,size", [("45", "2TB"), ("60", "2TB"), ("60", "18TB"), ("90", "24TB")])
async def test_the_capacity_tables_fit_the_pane_at_80x24(count, size) -> None:
    """Narrow panes drop columns and wrap labels, never the end of a figure (a cropped '109.1' for
    '109.16', or '982.2' for '982.25' TiB once a pod passes a petabyte)."""
    app = PodplanApp(example_pod())
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        app.screen.query_one("#count").value = count
        app.screen.query_one("#size").value = size
        await pilot.pause()
        room = app.screen.query_one("#tab-capacity .result-scroll").scrollable_content_region.width
        for table in ("#waterfall", "#arrays"):
            content = app.screen.query_one(table, Static).content
            assert app.console.measure(content).maximum <= room, table
        assert f"{compute(app.plan).groups[0].md.array_bytes:,}" in rendered(app, "#arrays", room)
        shown = rendered(app, "#waterfall", room)
        for step in compute(app.plan).capacity:
            whole = rf"{step.remaining_bytes:,} +{re.escape(tib(step.remaining_bytes).removesuffix(' TiB'))}$"
            assert re.search(whole, shown, re.M), step.key


async def test_several_filesystems_are_each_shown() -> None:
    app = PodplanApp(example_pod())
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        app.screen.query_one("#lvm").value = False
        await pilot.pause()
        assert "in 3 filesystems" in str(app.screen.query_one("#summary", Static).content)
        listed = str(app.screen.query_one("#filesystems", Static).content)
        for v in compute(app.plan).volumes:
            assert f"{v.mount_point} on {v.device}: {v.df_available_bytes:,} B available" in listed


@pytest.mark.parametrize("theme", ["textual-dark", "textual-light"])
async def test_the_focused_field_stands_out_in_both_themes(theme) -> None:
    app = PodplanApp(example_pod())
    async with app.run_test(size=(100, 32)) as pilot:
        app.theme = theme
        await pilot.pause()
        count, size = app.screen.query_one("#count"), app.screen.query_one("#size")
        count.focus()
        await pilot.pause()
        focused, other = count.styles.background, size.styles.background
        # Far enough apart to see at a glance, not one shade of grey.
        assert sum(abs(a - b) for a, b in zip(focused.rgb, other.rgb, strict=True)) > 60, (focused, other)
        heading = app.screen.query_one(".form-section")
        ground = heading.background_colors[1] if hasattr(heading, "background_colors") else app.screen.styles.background
        assert _contrast(heading.styles.color.rgb, ground.rgb) >= 3.0  # WCAG's floor for bold headings


def _contrast(a: tuple[int, int, int], b: tuple[int, int, int]) -> float:
    def lum(rgb: tuple[int, int, int]) -> float:
        c = [v / 255 for v in rgb]
        c = [v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4 for v in c]
        return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]

    hi, lo = sorted((lum(a), lum(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


async def test_the_perf_tab_predicts_a_loaded_job_file(tmp_path) -> None:

    job = tmp_path / "mine.fio"
    job.write_text(
        "[global]\nioengine=libaio\ndirect=1\nstartdelay=5\n[db-writes]\nrw=randwrite\nbs=8k\nnumjobs=5\n"
        "[scan]\nrw=read\nbs=1m\n[late]\nstonewall\nrw=read\n"
    )
    app = PodplanApp(example_pod())
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+j")
        await pilot.pause()
        assert isinstance(app.screen, PathPrompt)
        app.screen.query_one(Input).value = str(job)
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.screen.query_one("#result-tabs").active == "tab-performance"
        shown = rendered(app, "#perf")
        assert "db-writes" in shown and "startdelay ignored" in shown
        # How fio groups the sections, in one line: the first two run together.
        assert "sections run together: db-writes, scan; then late (stonewall)" in " ".join(shown.split())
