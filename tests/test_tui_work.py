"""The TUI loses no work and never freezes: long pastes into number fields, job files loaded again
and again, and an exit status that says when the app crashed."""

from __future__ import annotations

import time

import pytest
from textual import events
from textual.widgets import Input

from app.tui.app import PodplanApp
from planners.example import example_pod
from tests.tui_helpers import SIZE, text_of

NUMBER_FIELDS = ["count", "groups", "members", "spares", "reserved"]


async def _paste(pilot, field: str, text: str) -> float:  # type: ignore[no-untyped-def]
    widget = pilot.app.screen.query_one(f"#{field}", Input)
    widget.focus()
    await pilot.pause()
    start = time.perf_counter()
    widget.post_message(events.Paste(text))
    await pilot.pause()
    return time.perf_counter() - start


@pytest.mark.parametrize("field", NUMBER_FIELDS)
async def test_a_long_paste_into_a_number_field_is_answered_at_once(field: str) -> None:
    app = PodplanApp(example_pod())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        before = app.screen.query_one(f"#{field}", Input).value
        # Textual's integer type backtracked exponentially on digits that end in a refused character.
        took = await _paste(pilot, field, "1" * 10_000 + "x")
        assert took < 1.0, f"{took:.1f} s to refuse a 10,001-character paste"
        assert app.screen.query_one(f"#{field}", Input).value == before


async def test_a_number_too_long_for_python_is_one_line_not_a_crash() -> None:
    app = PodplanApp(example_pod())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        widget = app.screen.query_one("#count", Input)
        widget.value = ""
        took = await _paste(pilot, "count", "9" * 10_000)
        await pilot.pause()
        assert took < 1.0
        assert app.is_running
        assert "count" in text_of(app, "#form-error")
        assert len(text_of(app, "#form-error")) < 200
