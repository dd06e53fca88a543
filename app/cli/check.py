"""`podplan check TARGET --plan PLAN.toml`: the array as built against its plan, every difference
with what it costs. Exit 0 when it matches, 1 when something differs."""

from __future__ import annotations

import re

from rich.console import Console

from app.shared.console import cli_console
from app.shared.fit import Col, FitTable
from app.usecases.check import CheckRequest, Difference, check_built
from planners.models import Plan

EXIT_OK, EXIT_DIFFERENT = 0, 1
_DELTA = re.compile(r" \(([+-][\d,]+) against the plan\)")


def run_check(target: str, *, plan: Plan | None, as_json: bool) -> int:
    out = check_built(CheckRequest(target, plan))
    diffs = list(out.differences)
    if as_json:
        from app.shared.documents import dumps
        from app.shared.documents_built import CheckDocument

        print(dumps(CheckDocument(target=target, found=out.found, compared=out.compared, differences=diffs)))
    else:
        print_differences(cli_console(), target, out.compared, diffs, out.found)
    return EXIT_DIFFERENT if diffs else EXIT_OK


def print_differences(console: Console, target: str, compared: int, diffs: list[Difference], found: str = "") -> None:
    if found:
        console.print(f"found {found}")
    if not diffs:
        console.print(f"{target}: built as planned ({compared} figures compared)")
        return

    # Many figures share one consequence (every size above a bigger array, everything of an array
    # that is not there): the table gives each figure's own difference, the notes say each cost once.
    def note_of(d: Difference) -> str:
        return _DELTA.sub("", d.consequence)

    notes = list(dict.fromkeys(note_of(d) for d in diffs))
    deltas = [_DELTA.search(d.consequence) for d in diffs]
    # Narrower than the table, the figure names wrap between words; then the difference (actual less
    # planned) goes, then the layer (the figure's name says it): planned and actual stay whole.
    console.print(
        FitTable(
            [
                Col("layer", [d.layer for d in diffs], right=False, spare=True),
                Col("figure", [d.figure for d in diffs], right=False, words=True),
                Col("planned", [_figure(d.planned) for d in diffs]),
                Col("actual", ["missing" if d.actual is None else _figure(d.actual) for d in diffs]),
                Col("difference", [m.group(1) if m else "" for m in deltas], spare=True),
                Col("why", [f"[{notes.index(note_of(d)) + 1}]" for d in diffs]),
            ],
            [("difference",), ("difference", "layer")],
            table=dict(
                title=f"{target}: {len(diffs)} of {compared} figures differ from the plan", title_justify="left"
            ),
        )
    )
    for i, note in enumerate(notes, start=1):
        console.print(f"[{i}] {note}", markup=False, highlight=False)


def _figure(v: int | str) -> str:
    """Whole numbers grouped in thousands, as the difference column and `podplan plan` write them."""
    return f"{v:,}" if isinstance(v, int) else v
