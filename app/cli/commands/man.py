"""`podplan man`: the man page podplan(1), from the parser (docs/podplan.1 is its copy)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from app.cli.command import EXIT_OK, Command, no_arguments

if TYPE_CHECKING:
    import argparse


def run(args: argparse.Namespace) -> int:
    from app.cli.manpage import man_page

    sys.stdout.write(man_page(args.build_parser()))
    return EXIT_OK


COMMAND = Command(
    name="man",
    help="print podplan's man page (roff), written from its commands and flags",
    description="Print the man page podplan(1) in roff, written from the same parser and text as --help: "
    "every command, its flags, examples and exit statuses.",
    examples=(
        ("podplan man | man -l -", "read it"),
        ("podplan man > /usr/local/share/man/man1/podplan.1", "install it for man podplan"),
    ),
    add_arguments=no_arguments,
    run=run,
)
