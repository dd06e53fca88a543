"""One `podplan` command as the registry holds it: its name, its parser's text and flags, its handler.

A command's module (app/cli/commands/NAME.py) declares one `Command`. Its module imports nothing
at the top but this: `podplan --help` reads every command's name and line, and only the command
that runs imports what it uses (its flags' choices, the use case, Rich).
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import argparse

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130
# What status 1 means, command by command, as `podplan --help` and the man page say it.
EXIT_ONE = (
    "the answer is no: a plan finding is an error (plan), the array differs from its plan (check), a "
    "rehearsal did not match (rehearse), a workload failed (validate), no job could be predicted "
    "(predict); or a program podplan runs is missing or failed"
)


@dataclass(frozen=True)
class Command:
    name: str
    help: str
    """The command's line in `podplan --help`."""
    description: str
    """The paragraph `podplan NAME --help` opens with."""
    examples: tuple[tuple[str, str], ...]
    """Command lines a user can type as they are, each with what it does."""
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]
    exit_one: str = ""
    """What exit status 1 means for this command ("" when the command itself never returns it)."""

    def epilog(self) -> str:
        lines = ["examples:"]
        for line, what in self.examples:
            lines += [f"  {line}", *textwrap.wrap(what, 76, initial_indent="      ", subsequent_indent="      ")]
        lines += ["", *textwrap.wrap(exit_statuses(self.exit_one), 78, subsequent_indent="  ")]
        return "\n".join(lines)

    def wrapped_description(self) -> str:
        return textwrap.fill(self.description, 78)


def exit_statuses(one: str = "") -> str:
    """The exit statuses as `podplan --help` and each command's help list them."""
    parts = ["0 ok", *([f"1 {one}"] if one else []), "2 bad input (a flag, a file, a target)", "130 interrupted"]
    return f"exit status: {'; '.join(parts)}."


def no_arguments(p: argparse.ArgumentParser) -> None:
    """A command that takes no argument of its own."""


def subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """The commands' parsers of `podplan`'s parser, by name, in the order --help lists them."""
    import argparse

    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def unknown_command(word: str, names: Iterable[str]) -> str:
    """One line for a word that is neither a command nor a plan file: the command meant, where one is close."""
    import difflib

    close = difflib.get_close_matches(word, list(names), n=1, cutoff=0.6)
    meant = f"did you mean {close[0]}? " if close else ""
    return f"{word}: no such command; {meant}(podplan help lists them; a plan file is opened as a path: ./{word})"
