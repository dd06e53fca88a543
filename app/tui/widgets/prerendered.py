"""A Static whose content was rendered once into lines, at the width it is shown at.

The Perf tab's figures for a job file of hundreds of sections are a table of hundreds of rows: as
a plain Static, every layout of the screen (each keystroke in the form) measured and rendered it
all again, seconds a key. Rendered once (in the worker that predicts it), its height is known and
only the lines in view are drawn. `content` still holds the renderable, for whoever reads it.
"""

from __future__ import annotations

import io

from rich.console import Console, RenderableType
from textual.geometry import Size
from textual.strip import Strip
from textual.widgets import Static


def render_strips(content: RenderableType, width: int) -> list[Strip]:
    """`content` as lines of `width` cells (safe in a thread: a console of its own)."""
    console = Console(width=max(1, width), file=io.StringIO(), force_terminal=True, color_system="truecolor")
    return [Strip(line) for line in console.render_lines(content, console.options, pad=False)]


class Prerendered(Static):
    """Shows lines rendered beforehand (`show`); falls back to a Static's rendering until then."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._strips: list[Strip] | None = None

    def show(self, content: RenderableType, strips: list[Strip]) -> None:
        self._strips = strips
        self.update(content)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        if self._strips is None:
            return super().get_content_height(container, viewport, width)
        return len(self._strips)

    def render_line(self, y: int) -> Strip:
        if self._strips is None:
            return super().render_line(y)
        return self._strips[y] if y < len(self._strips) else Strip.blank(self.size.width)
