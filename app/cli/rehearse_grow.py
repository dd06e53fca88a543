"""`podplan rehearse --grow NEWPLAN`: the grow script, unmodified, on the old pod in the lab: the
comparison app.usecases.rehearse made, as a table or JSON."""

from __future__ import annotations

from rich.console import Console

from app.shared.console import cli_console
from app.shared.render import checks_table
from app.usecases.rehearse import Rehearsal


def render_growth(out: Rehearsal, err: Console, as_json: bool) -> None:
    tail = "\n".join((out.stdout + out.stderr).strip().splitlines()[-8:])
    if out.not_collected:
        err.print(f"[red]podplan: nothing was collected ({out.not_collected})[/red]")
        err.print(tail)
        return
    checks, grow_s = out.checks, out.facts["grow_s"]
    if as_json:
        from app.shared.documents import dumps
        from app.shared.documents_built import RehearseGrowthDocument

        doc = RehearseGrowthDocument(
            all_match=out.ok,
            script_exit_status=out.script_exit_status,
            mode=out.facts["mode"],
            disk_bytes=list(out.disk_bytes),
            kernel=out.kernel,
            grow_seconds=float(grow_s) if grow_s else None,
            checks=out.rows,
        )
        print(dumps(doc))
    else:
        cli_console().print(checks_table("Growth rehearsal: predicted | actual", checks))
        err.print(
            f"{len(checks)} figures compared: "
            + ("[green]all match[/green]" if out.ok else f"[red]{sum(not c.match for c in checks)} differ[/red]")
            + f"; the grow script took {grow_s or '?'} s"
        )
    if out.script_exit_status != 0:
        err.print(
            f"[red]podplan: the rehearsal stopped with status {out.script_exit_status} during stage {out.stage}:[/red]"
        )
        err.print(tail)
