"""The parser of every `podplan` command; a bad flag ends in one line and status 2 (PlanError)."""

from __future__ import annotations

import argparse
import sys
import textwrap
from typing import TYPE_CHECKING

from planners.errors import PlanError

if TYPE_CHECKING:
    from app.cli.command import Command


class _Parser(argparse.ArgumentParser):
    """argparse that reports a bad flag in one line (no usage dump) with status 2."""

    command: Command | None = None
    """The registry's command this parser is the parser of (None: podplan's own)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise PlanError(f"{message} (see podplan {self.prog.split()[-1]} --help)" if " " in self.prog else message)


class _Version(argparse.Action):
    """--version as written, two lines (argparse's own action would rewrap them)."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        sys.stdout.write(version_text() + "\n")
        parser.exit(0)


def version_text() -> str:
    from planners import __version__
    from planners.tool_defaults import BTRFS_PROGS, DEFAULT_TOOLS

    t = DEFAULT_TOOLS
    return (
        f"podplan {__version__}\n"
        f"figures follow mdadm {t['mdadm']}, lvm2 {t['lvm2']}, e2fsprogs {t['e2fsprogs']}, xfsprogs "
        f"{t['xfsprogs']}, Linux {t['kernel']} unless a plan's [tools] says otherwise, and btrfs-progs {BTRFS_PROGS}"
    )


EVERY = "*"
"""build_parser(EVERY): every command's flags (the man page, completion)."""


def build_parser(command: str | None = EVERY) -> argparse.ArgumentParser:
    """The parser of `podplan`, every command listed, with the flags of COMMAND only (of each for
    EVERY, of none for None): a command's flags import what they offer (presets, the plan's models),
    which `podplan --help` or another command does not need."""
    from app.cli.command import EXIT_ONE, exit_statuses
    from app.cli.commands import COMMANDS

    p = _Parser(
        prog="podplan",
        description="Plan, build and validate Linux storage arrays (md, LVM, ext4/XFS, btrfs).",
        epilog=EPILOG + "\n\n" + textwrap.fill(exit_statuses(EXIT_ONE), 78, subsequent_indent="  "),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "-V",
        "--version",
        action=_Version,
        nargs=0,
        help="print podplan's version and the tool versions its figures follow, then exit",
    )
    sub = p.add_subparsers(dest="command", parser_class=_Parser, metavar="COMMAND")
    for c in COMMANDS.values():
        cp: _Parser = sub.add_parser(
            c.name,
            help=c.help,
            description=c.wrapped_description(),
            epilog=c.epilog(),
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        cp.command = c
        if command in (EVERY, c.name):
            c.add_arguments(cp)
    # help, man and completion read the parser; given it here, they import neither it nor the registry.
    p.set_defaults(build_parser=build_parser)
    # Global, and taken after the command too (`podplan validate DIR --transcript F`), where one types it last.
    p.add_argument("--transcript", metavar="FILE", help=TRANSCRIPT_HELP)
    for cp in sub.choices.values():
        cp.add_argument("--transcript", metavar="FILE", default=argparse.SUPPRESS, help=TRANSCRIPT_HELP)
    return p


EPILOG = """\
`podplan` alone opens the interactive planner on the example pod, and
`podplan PLAN.toml` on a plan file. `podplan help COMMAND` (or `podplan
COMMAND --help`) describes a command, with examples; `podplan man` is the
whole manual and `podplan completion bash|zsh|fish` completes commands."""
TRANSCRIPT_HELP = (
    "append a record of every command podplan runs on this machine (argv, start, duration, exit "
    "status, last lines of stderr) to FILE instead of $XDG_STATE_HOME/podplan/commands.log"
)
