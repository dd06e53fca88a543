"""One registry of commands: each command's name, parser and handler in its own module, said once."""

import ast
import shlex
from pathlib import Path

import pytest

from app.cli.commands import COMMANDS
from app.cli.main import build_parser, main

ROOT = Path(__file__).resolve().parent.parent
CLI = ROOT / "app" / "cli"


def test_each_command_is_one_module_of_the_registry():
    modules = {p.stem for p in (CLI / "commands").glob("*.py")} - {"__init__"}
    assert modules == set(COMMANDS)
    for name, command in COMMANDS.items():
        assert command.run.__module__ == f"app.cli.commands.{name}", name


def test_no_other_module_names_a_command_to_route_it():
    """main and the parser read the registry: a command's name is a string in its own module only."""
    for path in (CLI / "main.py", CLI / "parser.py"):
        strings = {n.value for n in ast.walk(ast.parse(path.read_text())) if isinstance(n, ast.Constant)}
        assert not strings & set(COMMANDS), path.name


def test_help_lists_the_registry_in_its_order(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    listed = [
        line.split()[0] for line in out.split("COMMAND\n", 1)[1].split("\noptions:")[0].splitlines() if line[4:5] != " "
    ]
    assert listed == list(COMMANDS)


@pytest.mark.parametrize("name", list(COMMANDS))
def test_each_command_s_help_has_a_description_examples_and_its_exit_statuses(capsys, name):
    command = COMMANDS[name]
    assert 2 <= len(command.examples) <= 3, name
    with pytest.raises(SystemExit):
        main([name, "--help"])
    out = capsys.readouterr().out
    assert command.wrapped_description().splitlines()[0] in out
    assert "\nexamples:\n" in out
    for line, _ in command.examples:
        assert f"\n  {line}\n" in out
    flat = " ".join(out.split())
    assert "exit status: 0 ok;" in flat and "2 bad input (a flag, a file, a target)" in flat


@pytest.mark.parametrize(
    "line", [line for c in COMMANDS.values() for line, _ in c.examples], ids=lambda line: line[:60]
)
def test_every_example_is_a_command_line_podplan_accepts(line):
    argv = shlex.split(line.split(" > ")[0].split(" | ")[0])[1:]
    assert line.startswith("podplan")
    if not argv or argv[0] not in COMMANDS:
        argv = ["tui", *argv]  # `podplan` alone and `podplan PLAN.toml` open the planner
    args = build_parser().parse_args(argv)
    assert args.command == argv[0]
