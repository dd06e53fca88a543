"""The registry of `podplan` commands: each in its own module, declared there once (name, parser, handler).

The order is the order `podplan --help` lists them in.
"""

from __future__ import annotations

from app.cli.command import Command
from app.cli.commands import (
    check,
    compare,
    completion,
    config,
    example,
    grow,
    man,
    plan,
    predict,
    rehearse,
    report,
    schema,
    script,
    sweep,
    tui,
    validate,
)
from app.cli.commands import help as help_command

COMMANDS: dict[str, Command] = {
    c.name: c
    for c in (
        plan.COMMAND,
        script.COMMAND,
        rehearse.COMMAND,
        example.COMMAND,
        schema.COMMAND,
        tui.COMMAND,
        validate.COMMAND,
        check.COMMAND,
        predict.COMMAND,
        compare.COMMAND,
        sweep.COMMAND,
        grow.COMMAND,
        report.COMMAND,
        help_command.COMMAND,
        completion.COMMAND,
        config.COMMAND,
        man.COMMAND,
    )
}
