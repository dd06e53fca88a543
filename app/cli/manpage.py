"""podplan(1): the man page, written from the parser and the registry, so that it says what --help says."""

from __future__ import annotations

import argparse
import re

from app.cli.command import EXIT_ONE, Command, exit_statuses, subparsers


def roff(text: str) -> str:
    """Text as roff reads it literally: backslashes and hyphens escaped, no line taken for a request."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    return re.sub(r"^([.'])", r"\\&\1", text, flags=re.MULTILINE)


def _invocation(action: argparse.Action) -> str:
    if not action.option_strings:
        return f"\\fI{roff(str(action.metavar or action.dest))}\\fR"
    flags = ", ".join(f"\\fB{roff(o)}\\fR" for o in action.option_strings)
    if action.nargs == 0:
        return flags
    if action.metavar is not None:
        value = str(action.metavar)
    elif action.choices is not None:
        value = "{" + ",".join(str(c) for c in action.choices) + "}"
    else:
        value = action.dest.upper()
    return f"{flags} \\fI{roff(value)}\\fR"


def _help(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    text = action.help or ""
    if "%" in text:  # %(default)s and the like, expanded as argparse does for --help
        params = {**vars(action), "prog": parser.prog}
        if params.get("choices") is not None:
            params["choices"] = ", ".join(str(c) for c in params["choices"])
        text = text % params
    return roff(text)


def _options(parser: argparse.ArgumentParser) -> list[str]:
    lines: list[str] = []
    for action in parser._actions:
        if action.help == argparse.SUPPRESS or isinstance(action, argparse._SubParsersAction):
            continue
        lines += [".TP", _invocation(action), _help(parser, action)]
    return lines


def _command(c: Command, parser: argparse.ArgumentParser) -> list[str]:
    lines = [f".SS {roff(f'podplan {c.name}')}", roff(c.description), *_options(parser), ".PP", "Examples:"]
    for line, what in c.examples:
        lines += [".RS 4", ".nf", f"\\fB{roff(line)}\\fR", ".fi", ".RS 4", roff(what), ".RE", ".RE"]
    if c.exit_one:
        lines += [".PP", roff(f"Exit status 1: {c.exit_one}.")]
    return lines


def man_page(parser: argparse.ArgumentParser) -> str:
    """podplan(1) in roff, from podplan's parser with every command's flags (each knows its command)."""
    from planners import __version__

    lines = [
        f'.TH PODPLAN 1 "" "podplan {__version__}" "User Commands"',
        ".SH NAME",
        "podplan \\- plan, build and validate Linux storage arrays (md, LVM, ext4/XFS, btrfs)",
        ".SH SYNOPSIS",
        ".B podplan",
        "[\\fIPLAN.toml\\fR]",
        ".br",
        ".B podplan",
        "\\fICOMMAND\\fR [\\fIOPTIONS\\fR]",
        ".SH DESCRIPTION",
        roff(
            "podplan shows what every layout of a set of disks gives: usable bytes as df -B1 will report "
            "them, the alignment each layer needs, predicted throughput with the part that limits it, and "
            "the odds of losing data. It writes the script that builds the chosen layout, rehearses it in "
            "a throwaway VM, and measures the built array beside the prediction. Without a command it "
            "opens the interactive planner."
        ),
        ".SH OPTIONS",
        *_options(parser),
        ".SH COMMANDS",
    ]
    for cp in subparsers(parser).values():
        command: Command | None = getattr(cp, "command", None)
        if command is not None:
            lines += _command(command, cp)
    lines += [
        ".SH EXIT STATUS",
        roff(exit_statuses(EXIT_ONE)),
        ".SH FILES",
        ".TP",
        "\\fI$XDG_STATE_HOME/podplan/commands.log\\fR",
        roff("every command podplan runs on the machine (see --transcript)"),
        ".SH SEE ALSO",
        "\\fBmdadm\\fR(8), \\fBlvm\\fR(8), \\fBmkfs.xfs\\fR(8), \\fBmke2fs\\fR(8), \\fBmkfs.btrfs\\fR(8), \\fBfio\\fR(1)",
    ]
    return "\n".join(lines) + "\n"
