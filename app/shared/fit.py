"""Tables that fit the width they are given without cutting a figure.

Rich squeezes a table that is too wide by narrowing its columns in proportion: a figure column
then ends in an ellipsis ("945.87 T…") or, when it may wrap, is folded over two lines. A
`FitTable` decides at render time, from the width it is offered: it drops whole columns in the
order the reader would miss them least, then lets the columns of words wrap between words, and
keeps every figure on one line. When even the fewest columns do not fit, each row becomes a
short list of "heading: value" lines.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from rich import box
from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, Group, RenderResult
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text


@dataclass(frozen=True)
class Col:
    """One column: its heading and cells, and whether its cells are words that may wrap."""

    head: str
    cells: Sequence[str | Text]
    right: bool = True
    """Right-justified (figures)."""
    words: bool = False
    """The cells are words (labels, reasons) that may wrap between words; figures never wrap."""
    style: str = ""
    spare: bool = False
    """Another spelling of a figure another column shows (TB beside the bytes): it may go without
    a trace. A column that is not spare and does not fit is written under the table instead."""


def _plain(cell: str | Text) -> str:
    return cell.plain if isinstance(cell, Text) else cell


def _natural(c: Col, header: bool) -> int:
    return max([cell_len(c.head) if header else 0, *(cell_len(_plain(x)) for x in c.cells)])


def _least(c: Col, header: bool) -> int:
    """The narrowest the column may be: its longest word when it wraps (its heading whole), else
    its longest cell."""
    if not c.words:
        return _natural(c, header)
    return max([cell_len(c.head) if header else 0, *(cell_len(w) for x in c.cells for w in _plain(x).split())])


@dataclass
class FitTable:
    """A table that fits its width: columns dropped in `drops` order, words wrapped, figures whole.

    `drops` lists the sets of headings to leave out, tried in order after the full table (the
    first set that fits wins); `table` holds the keyword arguments of Rich's Table (title, box,
    show_header, ...).
    """

    columns: list[Col]
    drops: list[tuple[str, ...]] = field(default_factory=list)
    row_styles: Sequence[str] | None = None
    table: dict[str, Any] = field(default_factory=dict)
    rows_are: str = "row"
    """What a row is, for the lines under the table: 'offset 129M on every array'."""
    wrap_first: bool = True
    """Wrap the words before moving a column under the table (False: short names that read badly
    over two lines, such as a limit's name, keep their line and the column moves first)."""

    def _build(self, cols: list[Col], widths: list[int] | None = None, moved: list[Col] | None = None) -> Any:
        """The table of these columns; with `moved` columns, the table and those columns under it."""
        if moved:
            return Group(self._build(cols, widths), self._under(moved))
        t = Table(**self.table)
        for i, c in enumerate(cols):
            t.add_column(
                c.head,
                justify="right" if c.right else "left",
                style=c.style or None,
                no_wrap=not c.words,
                overflow="fold",
                width=widths[i] if widths else None,
            )
        for r in range(len(cols[0].cells) if cols else 0):
            t.add_row(*(c.cells[r] for c in cols), style=self.row_styles[r] if self.row_styles else None)
        return t

    def _overhead(self, console: Console, options: ConsoleOptions, cols: list[Col]) -> int:
        """Borders and padding: what the table takes beyond its cells."""
        whole = Measurement.get(console, options.update(width=100_000, max_width=100_000), self._sample(cols))
        return whole.maximum - sum(_natural(c, self._header) for c in cols)

    def _sample(self, cols: list[Col]) -> Table:
        """The table of only the rows that set its measure: each column's widest cell and the cell
        holding its longest word. Rich measures every cell of every row, and a table of thousands
        of rows (a generated job file's sections) would be measured for seconds to the same result."""
        keep: set[int] = set()
        for c in cols:
            plain = [_plain(x) for x in c.cells]
            if plain:
                keep.add(max(range(len(plain)), key=lambda r: cell_len(plain[r])))
                keep.add(max(range(len(plain)), key=lambda r: max(map(cell_len, plain[r].split()), default=0)))
        rows = sorted(keep)
        sampled = [replace(c, cells=[c.cells[r] for r in rows]) for c in cols]
        return self._build(sampled)

    @property
    def _header(self) -> bool:
        return bool(self.table.get("show_header", True))

    def _forms(self) -> list[list[Col]]:
        return [[c for c in self.columns if c.head not in dropped] for dropped in [(), *self.drops]]

    def layout(self, console: Console, options: ConsoleOptions) -> Any:
        """The table for `options.max_width`, or the rows as lists when no table fits."""
        width = options.max_width
        forms = self._forms()
        # Another spelling of a figure goes before a label wraps; a figure moves under the table after.
        for cols in forms:
            if self.wrap_first and not all(c.spare for c in self.columns if c not in cols):
                continue
            if sum(_natural(c, self._header) for c in cols) + self._overhead(console, options, cols) <= width:
                return self._build(cols, moved=[c for c in self.columns if c not in cols and not c.spare])
        for cols in forms:
            over = self._overhead(console, options, cols)
            natural = [_natural(c, self._header) for c in cols]
            least = [_least(c, self._header) for c in cols]
            if sum(least) + over > width:
                continue
            # Narrow the widest columns of words first, never below their longest word.
            widths, excess = list(natural), sum(natural) + over - width
            while excess > 0:
                i = max((j for j, c in enumerate(cols) if c.words and widths[j] > least[j]), key=lambda j: widths[j])
                widths[i] -= 1
                excess -= 1
            return self._build(
                cols,
                widths if widths != natural else None,
                moved=[c for c in self.columns if c not in cols and not c.spare],
            )
        return self._records()

    def _under(self, moved: list[Col]) -> Group:
        """The dropped columns' figures, under the table: a line for a figure every row shares, and
        a table of its own, by the rows' first cells, for the others."""
        same = [c for c in moved if len({_plain(x) for x in c.cells}) == 1]
        out = Text(style="dim")
        for c in same:
            out.append(f"{c.head}: {_plain(c.cells[0])} on every {self.rows_are}\n")
        out.rstrip()
        rest = [c for c in moved if c not in same]
        if not rest:
            return Group(out)
        rows = [r for r in range(len(rest[0].cells)) if any(_plain(c.cells[r]) for c in rest)]
        first = self.columns[0]
        pick = [Col(c.head, [c.cells[r] for r in rows], c.right, c.words) for c in (first, *rest)]
        return Group(*([out] if same else []), FitTable(pick, table=dict(box=box.SIMPLE_HEAD, show_edge=False)))

    def _records(self) -> Text:
        """Each row as its first cell, then one 'heading: value' line per other column."""
        out = Text()
        if self.table.get("title"):
            out.append(f"{self.table['title']}\n", style="italic")
        first, rest = self.columns[0], self.columns[1:]
        for r in range(len(first.cells)):
            out.append(first.cells[r] if isinstance(first.cells[r], Text) else Text(str(first.cells[r]), style="bold"))
            out.append("\n")
            for c in rest:
                if _plain(c.cells[r]):
                    out.append(f"  {c.head}: " if c.head else "  ", style="dim")
                    out.append(c.cells[r])
                    out.append("\n")
        if self.table.get("caption"):
            out.append(f"{self.table['caption']}\n", style="dim")
        return out

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield self.layout(console, options)

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        full = Measurement.get(console, options, self._sample(self.columns))
        return Measurement(min(full.minimum, options.max_width), full.maximum)
