"""Shared helpers for the TUI tests: the app at a fixed size and plain-text views of its widgets."""

from __future__ import annotations

from typing import TypeVar

from textual.screen import Screen
from textual.widgets import Input, Static

from app.tui.app import PodplanApp
from app.tui.form_model import plan_from_values, values_from_plan
from planners.example import example_pod
from planners.models import Plan

SIZE = (100, 32)
S = TypeVar("S", bound=Screen)


def plan_with(base: Plan | None = None, **changes: object) -> Plan:
    """The plan the form yields after the given field edits (the same path the TUI takes)."""
    base = base or example_pod()
    return plan_from_values(base, {**values_from_plan(base), **changes})


def text_of(app: PodplanApp, selector: str) -> str:
    return str(app.screen.query_one(selector, Static).content)


def no_blink(app: PodplanApp) -> None:
    for widget in app.screen.query(Input):
        widget.cursor_blink = False


async def open_screen(pilot, key: str, screen_type: type[S]) -> S:  # type: ignore[no-untyped-def]
    """Press `key`, wait for the workers it starts, and return the screen it opened."""
    await pilot.press(key)
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    screen = pilot.app.screen
    assert isinstance(screen, screen_type)
    return screen


def rendered(app: PodplanApp, selector: str, width: int = 200) -> str:
    """A widget's Rich content as plain text, at `width` columns (tables and groups included)."""
    import io

    from rich.console import Console

    console = Console(width=width, record=True, file=io.StringIO())
    console.print(app.screen.query_one(selector, Static).content)
    return console.export_text()
