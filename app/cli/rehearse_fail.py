"""`podplan rehearse --fail N`: a failed member, the degraded array, the rebuild, the data, in the lab:
the comparison app.usecases.rehearse made, as a table or JSON."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Console, JustifyMethod
from rich.table import Table

from app.shared.console import cli_console
from app.usecases.rehearse import Rehearsal

if TYPE_CHECKING:
    from app.usecases.rehearse import FailureCheck


def render_failure(out: Rehearsal, err: Console, as_json: bool) -> None:
    checks, facts = out.checks, out.facts
    if as_json:
        from app.shared.documents import dumps
        from app.shared.documents_built import RehearseFailureDocument

        doc = RehearseFailureDocument(
            all_match=out.ok,
            script_exit_status=out.script_exit_status,
            group=facts["group"],
            failed=facts["failed"],
            disk_bytes=list(out.disk_bytes),
            disk_bytes_per_s=facts["disk_bytes_per_s"],
            kernel=out.kernel,
            script_seconds=out.script_s,
            checks=out.rows,
        )
        print(dumps(doc))
    else:
        t = Table(title=f"Failure rehearsal of {facts['group']}: predicted | measured", title_justify="left")
        columns: tuple[tuple[str, JustifyMethod], ...] = (
            ("figure", "left"),
            ("predicted", "right"),
            ("measured", "right"),
            ("match", "left"),
            ("limited by", "left"),
        )
        for col, just in columns:
            t.add_column(col, justify=just)
        for c in checks:
            t.add_row(c.figure, c.shown, _fmt(c.actual), _verdict(c), c.why)
        cli_console().print(t)
    if out.script_exit_status != 0:
        err.print(
            f"[red]podplan: the rehearsal script exited with status {out.script_exit_status} during stage "
            f"{out.stage}:[/red]"
        )
        err.print("\n".join((out.stdout + out.stderr).strip().splitlines()[-8:]))
    if not as_json:
        bad = sum(c.witnessed and not c.match for c in checks)
        unseen = sum(not c.witnessed for c in checks)
        err.print(
            f"{len(checks) - unseen} figures compared"
            + (f" ({unseen} not witnessed: a band from 0 holds any lower figure)" if unseen else "")
            + ": "
            + ("[green]all match[/green]" if out.ok else f"[red]{bad} differ[/red]")
            + f" (numbers within {int(checks[0].tolerance * 100) if checks else 0} %); script took "
            f"{out.script_s or 0:.0f} s"
        )


def _verdict(c: FailureCheck) -> str:
    if not c.witnessed:
        return "[yellow]not witnessed[/yellow]"
    return "[green]yes[/green]" if c.match else "[bold red]NO[/bold red]"


def _fmt(v) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:,.2f}"
    return str(v)
