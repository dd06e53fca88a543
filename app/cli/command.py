"""One `podplan` command as the registry holds it: its name, its parser's text and flags, its handler.

A command's module (app/cli/commands/NAME.py) declares one `Command`. Its module imports nothing
at the top but this: `podplan --help` reads every command's name and line, and only the command
that runs imports what it uses (its flags' choices, the use case, Rich).
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import argparse

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


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
