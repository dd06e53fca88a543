"""The parser of every `podplan` command; a bad flag ends in one line and status 2 (PlanError)."""

from __future__ import annotations

import argparse
import sys

from planners.errors import PlanError


class _Parser(argparse.ArgumentParser):
    """argparse that reports a bad flag in one line (no usage dump) with status 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise PlanError(f"{message} (see podplan {self.prog.split()[-1]} --help)" if " " in self.prog else message)


class _Version(argparse.Action):
    """--version as written, two lines (argparse's own action would rewrap them)."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        sys.stdout.write(version_text() + "\n")
        parser.exit(0)


def version_text() -> str:
    from planners import __version__
    from planners.versions import BTRFS_PROGS, ToolVersions

    t = ToolVersions()
    return (
        f"podplan {__version__}\n"
        f"figures follow mdadm {t.mdadm}, lvm2 {t.lvm2}, e2fsprogs {t.e2fsprogs}, xfsprogs {t.xfsprogs}, "
        f"Linux {t.kernel} unless a plan's [tools] says otherwise, and btrfs-progs {BTRFS_PROGS}"
    )


def build_parser() -> argparse.ArgumentParser:
    from app.cli.flags import add_plan_flags, add_save_flags

    p = _Parser(prog="podplan", description="Plan, build and validate Linux storage arrays (md, LVM, ext4/XFS, btrfs).")
    p.add_argument(
        "-V",
        "--version",
        action=_Version,
        nargs=0,
        help="print podplan's version and the tool versions its figures follow, then exit",
    )
    sub = p.add_subparsers(dest="command", parser_class=_Parser, metavar="COMMAND")
    pl = sub.add_parser("plan", help="compute a plan: capacity to the byte, alignment, mkfs geometry")
    add_plan_flags(pl)
    pl.add_argument("--json", action="store_true", help="print JSON (see `podplan schema`)")
    add_save_flags(pl)
    sc = sub.add_parser("script", help="write the guarded build script for a plan")
    add_plan_flags(sc)
    sc.add_argument("-o", "--output", metavar="FILE", help="write to FILE (executable) instead of stdout")
    sc.add_argument("--force", action="store_true", help="overwrite FILE if it exists")
    sc.add_argument(
        "--mount-over",
        metavar="DIR",
        action="append",
        default=[],
        help="mount the filesystem over DIR although it is a system directory (/, /etc, /var, /home, ...): "
        "refused unless named here",
    )
    rh = sub.add_parser("rehearse", help="run the plan's build script on virtual disks in a throwaway VM and compare")
    rh.add_argument("plan_file", nargs="?", metavar="PLAN.toml", help="plan file (default: the example pod)")
    rh.add_argument("--disk-size", metavar="SIZE", help="size of the largest virtual disk (default: small but enough)")
    rh.add_argument("--json", action="store_true", help="print the comparison as JSON")
    rh.add_argument(
        "--keep", metavar="DIR", help="keep the script, console log and checks in DIR, a new or empty directory"
    )
    rh.add_argument(
        "--rebuild-kit", action="store_true", help="rebuild the VM boot kit even if the cached one is current"
    )
    rh.add_argument(
        "--fail",
        type=int,
        metavar="N",
        help="after the build, fail N members of one array while data is "
        "written, measure it degraded, rebuild and check the data",
    )
    rh.add_argument("--group", metavar="NAME", help="with --fail: the md array to fail (default: the first)")
    rh.add_argument(
        "--grow",
        metavar="NEWPLAN.toml",
        help="after the build and some data, run the grow script that "
        "takes the pod to NEWPLAN (see podplan grow --save), then compare every figure and the data",
    )
    ex = sub.add_parser("example", help="print an example plan as TOML (the 45-disk pod unless named)")
    ex.add_argument("name", nargs="?", default="pod45", help="which example (--list shows them)")
    ex.add_argument("--list", action="store_true", help="list the examples, one stack each")
    sub.add_parser("schema", help="print the JSON schema of `podplan plan --json`")
    tui = sub.add_parser("tui", help="open the interactive planner (the default)")
    tui.add_argument("plan_file", nargs="?", metavar="PLAN.toml")
    from app.cli.validate import add_parsers as add_validate_parsers

    add_validate_parsers(sub)
    from app.cli.predict import add_parsers as add_predict_parsers

    add_predict_parsers(sub)
    from app.cli.grow import add_parsers as add_grow_parsers

    add_grow_parsers(sub)
    from app.cli.scale import add_report_parser

    add_report_parser(sub)
    # Global, and taken after the command too (`podplan validate DIR --transcript F`), where one types it last.
    p.add_argument("--transcript", metavar="FILE", help=TRANSCRIPT_HELP)
    for command in sub.choices.values():
        command.add_argument("--transcript", metavar="FILE", default=argparse.SUPPRESS, help=TRANSCRIPT_HELP)
    return p


TRANSCRIPT_HELP = (
    "append a record of every command podplan runs on this machine (argv, start, duration, exit "
    "status, last lines of stderr) to FILE instead of $XDG_STATE_HOME/podplan/commands.log"
)
