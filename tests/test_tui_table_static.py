"""TableStatic paints the lines Textual rendered to learn the table's height: one render a layout, not two,
and the same lines a Static shows."""

from __future__ import annotations

import pytest
from rich.table import Table
from textual.app import App, ComposeResult
from textual.widgets import Static

from app.tui.widgets.table_static import TableStatic


def _table() -> Table:
    table = Table(title="Capacity")
    table.add_column("step")
    table.add_column("bytes", justify="right")
    for i in range(5):
        table.add_row(f"step {i}", f"{i * 1_000_000_007:,}")
    return table


class _One(App[None]):
    def __init__(self, widget: Static) -> None:
        super().__init__()
        self.widget = widget

    def compose(self) -> ComposeResult:
        yield self.widget


async def _lines_and_renders(widget: Static, monkeypatch: pytest.MonkeyPatch) -> tuple[list[str], int]:
    renders = 0
    rich_console = Table.__rich_console__

    def counted(self, console, options):  # type: ignore[no-untyped-def]
        nonlocal renders
        renders += 1
        yield from rich_console(self, console, options)

    app = _One(widget)
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.pause()
        monkeypatch.setattr(Table, "__rich_console__", counted)
        widget.update(_table())
        await pilot.pause()
        painted = renders
        lines = [strip.text for strip in widget.render_lines(widget.region.reset_offset)]
    monkeypatch.undo()
    return lines, painted


async def test_a_table_is_rendered_once_a_layout_and_shows_as_a_static_shows_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    static_lines, static_renders = await _lines_and_renders(Static(), monkeypatch)
    lines, renders = await _lines_and_renders(TableStatic(), monkeypatch)
    assert "1,000,000,007" in "".join(lines)
    assert lines == static_lines
    assert renders == 1 < static_renders  # a Static renders it to measure it and again to paint it
