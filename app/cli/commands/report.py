"""`podplan report`: the HTML report drawn again from a kept measured sweep."""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.cli.command import Command

if TYPE_CHECKING:
    import argparse


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("dir", metavar="DIR", help="the --report directory (its curves.json)")
    p.add_argument("-o", "--output", metavar="FILE", help="where to write it (default DIR/report.html)")
    p.add_argument("--force", action="store_true", help="overwrite FILE (or DIR/report.html) if it exists")


def run(args: argparse.Namespace) -> int:
    """report.html from the curves.json a measured sweep kept."""
    import os

    from app.cli.scale import write_html
    from app.shared.kept_report import read_kept_report

    doc = read_kept_report(os.path.join(args.dir, "curves.json"))
    out = args.output or os.path.join(args.dir, "report.html")
    write_html(out, doc, force=args.force)
    print(f"wrote {out}")
    return 0


COMMAND = Command(
    name="report",
    help="draw the HTML report again from a directory validate --scale --report kept",
    description="Draw the HTML report again from the curves.json that `validate --scale --report DIR` "
    "kept: after an upgrade of podplan, or to have it elsewhere.",
    examples=(
        ("podplan report run1", "run1/report.html from run1/curves.json"),
        ("podplan report run1 -o /tmp/sweep.html --force", "to another file, replacing it"),
    ),
    add_arguments=add_arguments,
    run=run,
)
