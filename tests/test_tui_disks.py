"""Pilot tests of the detected-disks screen: a recorded guest's disks through the real parser, a
failing inventory, and this machine's own disks."""

from __future__ import annotations

import pathlib

import pytest
from textual.widgets import DataTable, Input

import runners.host.disks as host_disks
from app.tui.app import PodplanApp
from app.tui.screens.disks_screen import DisksScreen
from app.tui.screens.plan_screen import PlanScreen
from planners.example import example_pod
from planners.layouts.from_disks import plan_from_disks
from runners.exec import have
from runners.host.disks import HostDisks, InventoryError, whole_disks
from runners.host.inventory import parse_lsblk
from tests.tui_helpers import SIZE, open_screen, text_of

LAB = pathlib.Path(__file__).parent / "fixtures" / "inventory" / "lab_lsblk.json"
FREE_64M = [f"sd{c}" for c in "ijklmnop"]


def lab_guest() -> HostDisks:
    return HostDisks(disks=whole_disks(parse_lsblk(LAB.read_text())), note="")


def _messages(app: PodplanApp) -> list[str]:
    return [str(n.message) for n in app._notifications]


async def _open(pilot, monkeypatch: pytest.MonkeyPatch, reader) -> DisksScreen:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(host_disks, "read_host_disks", reader)
    return await open_screen(pilot, "f7", DisksScreen)


def _row(screen: DisksScreen, name: str) -> list[str]:
    table = screen.query_one(DataTable)
    return [str(c) for c in table.get_row(name)]


async def _goto(pilot, screen: DisksScreen, name: str) -> None:  # type: ignore[no-untyped-def]
    table = screen.query_one(DataTable)
    table.move_cursor(row=table.get_row_index(name))
    await pilot.pause()


async def test_free_disks_are_preselected_and_busy_ones_shown_with_who_uses_them(monkeypatch) -> None:
    app = PodplanApp(example_pod())
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(pilot, monkeypatch, lab_guest)
        assert screen.query_one(DataTable).row_count == 18
        assert _row(screen, "sda") == [
            "[ ]",
            "sda",
            "134.22 MB",
            "QEMU HARDDISK",
            "",
            "HDD",
            "512/512",
            "md member (md0); mounted at /srv/pod",
        ]
        assert _row(screen, "sdi")[0] == "[x]" and _row(screen, "sdi")[-1] == "free"
        assert _row(screen, "vda")[0] == "" and _row(screen, "vda")[-1] == "too small for md"
        assert screen.chosen == {*FREE_64M, "vdb"}
        assert "18 disks, 9 free" in text_of(app, "#disks-status")
        assert text_of(app, "#disks-selection").startswith("9 selected (1 x 268.44 MB, 8 x 67.11 MB): new plan pod9")
        assert not screen.query_one("#disks-warning").has_class("-shown")


async def test_choosing_a_busy_disk_warns_and_a_selects_every_free_disk_like_this_one(monkeypatch) -> None:
    app = PodplanApp(example_pod())
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(pilot, monkeypatch, lab_guest)
        await pilot.press("n")
        assert screen.chosen == set() and text_of(app, "#disks-selection") == "Nothing selected."
        await _goto(pilot, screen, "sdc")
        await pilot.press("space")
        assert screen.chosen == {"sdc"} and _row(screen, "sdc")[0] == "[x]"
        warning = text_of(app, "#disks-warning")
        assert screen.query_one("#disks-warning").has_class("-shown")
        assert warning.startswith("In use and selected: sdc (md member (md0), mounted at /srv/pod).")
        assert "select at least two disks" in text_of(app, "#disks-selection")
        await pilot.press("space")  # and back: the warning goes with it
        assert screen.chosen == set() and not screen.query_one("#disks-warning").has_class("-shown")
        await _goto(pilot, screen, "sdl")
        await pilot.press("a")  # every free 64 MiB QEMU disk; not the busy 128 MiB ones, not vdb
        assert screen.chosen == set(FREE_64M)
        await _goto(pilot, screen, "vda")
        await pilot.press("space")
        assert "vda" not in screen.chosen and any("too small" in m for m in _messages(app))


async def test_create_starts_a_new_plan_from_the_selection(monkeypatch) -> None:
    app = PodplanApp(example_pod())
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(pilot, monkeypatch, lab_guest)
        await pilot.press("n")
        await _goto(pilot, screen, "sdi")
        await pilot.press("a")
        await _goto(pilot, screen, "sda")
        await pilot.press("enter")  # enter toggles as space does: sda joins, in use
        chosen = [d.found() for d in screen.selected()]
        assert len(chosen) == 9
        await pilot.press("c")
        await pilot.pause()
        assert isinstance(app.screen, PlanScreen)
        expected = plan_from_disks(chosen, example_pod())
        assert app.screen.base == expected and app.plan_file is None
        assert expected.disks[0].devices == ["/dev/sda"] and expected.groups[0].level == 6
        assert app.screen.query_one("#count", Input).value == "1"
        assert app.screen.query_one("#count2", Input).value == "8"
        assert app.screen.query_one("#size2", Input).value == str(64 * 2**20)
        assert app.sub_title == "new plan pod9 from detected disks (not saved)"
        assert any("1 of the disks in pod9 are in use" in m for m in _messages(app))


async def test_fewer_than_two_disks_make_no_plan(monkeypatch) -> None:
    app = PodplanApp(example_pod())
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(pilot, monkeypatch, lab_guest)
        await pilot.press("n", "c")
        await pilot.pause()
        assert app.screen is screen and app.plan == example_pod()
        assert any("select at least two disks" in m for m in _messages(app))


@pytest.mark.parametrize(
    ("error", "line"),
    [
        (
            InventoryError("Cannot list the disks: lsblk not found: install util-linux (apt-get install util-linux)"),
            "Cannot list the disks: lsblk not found: install util-linux (apt-get install util-linux)",
        ),
        (PermissionError(13, "Permission denied"), "Cannot list the disks: Permission denied"),
        (ValueError("bad\nsecond line"), "Cannot list the disks: bad"),
    ],
)
async def test_a_failing_inventory_is_one_line(monkeypatch, error: Exception, line: str) -> None:
    def broken() -> HostDisks:
        raise error

    app = PodplanApp(example_pod())
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(pilot, monkeypatch, broken)
        assert text_of(app, "#disks-status") == line
        assert _messages(app) == [line]
        assert screen.query_one(DataTable).row_count == 0
        await pilot.press("space", "a", "c")  # nothing to choose, nothing breaks
        await pilot.pause()
        assert app.screen is screen


@pytest.mark.skipif(not have("lsblk"), reason="lsblk is not installed")
async def test_this_machines_disks_open_without_error() -> None:
    expected = host_disks.read_host_disks()
    app = PodplanApp(example_pod())
    async with app.run_test(size=SIZE) as pilot:
        assert "New plan from detected disks" in {c.title for c in app.get_system_commands(app.screen)}
        screen = await open_screen(pilot, "f7", DisksScreen)
        assert not any(n.severity == "error" for n in app._notifications)
        assert [d.info.name for d in screen.disks] == [d.info.name for d in expected.disks]
        assert screen.query_one(DataTable).row_count == len(expected.disks)
        assert text_of(app, "#disks-status").startswith(f"{len(expected.disks)} disk") or not expected.disks
        root = [d.info.name for d in screen.disks if d.root]
        assert not screen.chosen & set(root)  # the root disk is never preselected
