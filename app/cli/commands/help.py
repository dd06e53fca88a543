"""`podplan help [COMMAND]`: what `podplan --help` or `podplan COMMAND --help` prints."""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.cli.command import EXIT_OK, Command, subparsers, unknown_command

if TYPE_CHECKING:
    import argparse


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("topic", nargs="?", metavar="COMMAND", help="the command to describe (default: list them all)")


def run(args: argparse.Namespace) -> int:
    from planners.errors import PlanError

    if args.topic is None:
        args.build_parser(None).print_help()
        return EXIT_OK
    commands = subparsers(args.build_parser(args.topic))
    if args.topic not in commands:
        raise PlanError(unknown_command(args.topic, commands))
    commands[args.topic].print_help()
    return EXIT_OK


COMMAND = Command(
    name="help",
    help="describe podplan, or one command with its flags and examples",
    description="Describe podplan and list its commands, or describe one command: what it does, its "
    "flags, examples and exit statuses (as `podplan COMMAND --help`).",
    examples=(
        ("podplan help", "the commands, one line each"),
        ("podplan help validate", "validate's flags and examples"),
    ),
    add_arguments=add_arguments,
    run=run,
)
