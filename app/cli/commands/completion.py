"""`podplan completion SHELL`: the shell's completion script, generated from the parser (shtab)."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from app.cli.command import EXIT_OK, Command, subparsers

if TYPE_CHECKING:
    import argparse

SHELLS = ("bash", "zsh", "fish")
# Block devices as lsblk lists them when the completion runs (whole disks and partitions, by path).
DEVICES = "lsblk -pnro NAME 2>/dev/null"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("shell", choices=SHELLS, help="the shell to complete podplan in")


def completions(names: Iterable[str]) -> dict[str, Any]:
    """What each kind of value completes to, by the metavar the flags give it."""
    import shtab

    from planners.example import EXAMPLES

    plan_files, devices = shtab.glob("*.toml"), shtab.cmd(DEVICES)
    return {
        "PLAN.toml": plan_files,
        "NEWPLAN.toml": plan_files,
        "FILE.fio": shtab.glob("*.fio"),
        "RESULT.json": shtab.glob("*.json"),
        "FILE": shtab.FILE,
        "DIR": shtab.DIRECTORY,
        "TARGET": shtab.FILE,  # a device, a mount point or a directory
        "DEVICE": devices,
        "PATH": devices,
        "PATH,...": devices,
        "EXAMPLE": shtab.cmd(f"echo {' '.join(EXAMPLES)}"),
        "COMMAND": shtab.cmd("echo " + " ".join(names)),
    }


def completion_script(parser: argparse.ArgumentParser, shell: str) -> str:
    """The script for SHELL, from podplan's parser with every command's flags."""
    import argparse

    import shtab

    kinds = completions(subparsers(parser))
    parsers = [parser]
    while parsers:
        p = parsers.pop()
        for action in p._actions:
            if isinstance(action, argparse._SubParsersAction):
                parsers += action.choices.values()
                continue  # the commands: shtab lists them itself
            # example's positional is `name`, shown as is: it is completed from the examples' names.
            metavar = "EXAMPLE" if (p.prog.endswith(" example") and action.dest == "name") else action.metavar
            if isinstance(metavar, str) and metavar in kinds:
                action.complete = kinds[metavar]  # type: ignore[attr-defined]
    script: str = shtab.complete(parser, shell=shell)
    return script


def run(args: argparse.Namespace) -> int:
    sys.stdout.write(completion_script(args.build_parser(), args.shell))
    return EXIT_OK


COMMAND = Command(
    name="completion",
    help="print the shell completion script for bash, zsh or fish",
    description="Print the script that completes podplan's commands and flags in a shell: plan files "
    "(*.toml), fio job files (*.fio), workloads, examples, block devices and directories where a flag "
    "takes one.",
    examples=(
        ("podplan completion bash > /etc/bash_completion.d/podplan", "bash, for every user (or: source <(...))"),
        ("podplan completion zsh > ~/.zfunc/_podplan", "zsh, in a directory of your fpath"),
        ("podplan completion fish > ~/.config/fish/completions/podplan.fish", "fish"),
    ),
    add_arguments=add_arguments,
    run=run,
)
