"""A Static that renders its Rich table once per layout, not twice.

Textual renders a Rich renderable once to learn its height (RichVisual.get_height) and again to
paint it: for the capacity tab's waterfall and md arrays tables, 10-15 ms of CPU before the first
paint, and again at every keystroke that lays the pane out.
Here the lines rendered to learn the height are kept, and painted as they are when the paint asks
for the same width and style (otherwise rendered again, as Textual would).
"""

from __future__ import annotations

from typing import cast

from rich.console import Group, RenderableType
from rich.table import Table
from textual.app import RenderResult
from textual.css.styles import RulesMap
from textual.strip import Strip
from textual.style import Style
from textual.visual import RenderOptions, RichVisual
from textual.widget import Widget
from textual.widgets import Static


class _RenderedOnce(RichVisual):
    def __init__(self, widget: Widget, renderable: RenderableType) -> None:
        super().__init__(widget, renderable)
        self.renderable = renderable
        self._kept: tuple[int, Style, list[Strip]] | None = None

    def get_height(self, rules: RulesMap, width: int) -> int:
        # Asked again in one layout pass (the widget's own height cache is cleared between): answered
        # from the lines kept.
        style = self._widget.visual_style
        if self._kept is None or self._kept[:2] != (width, style):
            # RichVisual.render_strips reads no render option: none is needed to render here.
            self._kept = (width, style, super().render_strips(width, None, style, cast(RenderOptions, None)))
        return len(self._kept[2])

    def render_strips(self, width: int, height: int | None, style: Style, options: RenderOptions) -> list[Strip]:
        kept = self._kept
        if kept is not None and kept[0] == width and kept[1] == style and (height is None or height >= len(kept[2])):
            return kept[2]
        return super().render_strips(width, height, style, options)


class TableStatic(Static):
    """A Static for a Rich table (or a group of them): each one rendered once per layout."""

    _once: _RenderedOnce | None = None

    def render(self) -> RenderResult:
        content = self.content
        if not isinstance(content, (Table, Group)):
            return super().render()
        if self._once is None or self._once.renderable is not content:
            self._once = _RenderedOnce(self, content)
        return self._once
