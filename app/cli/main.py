"""`podplan`: the command line. Bad input ends in one line on stderr and exit status 2."""

from __future__ import annotations

import gc
import os
import signal
import sys
import types
from typing import TYPE_CHECKING

from app.cli.commands import COMMANDS
from app.cli.commands.tui import COMMAND as TUI
from app.cli.commands.tui import open_tui
from planners.errors import PodplanError

if TYPE_CHECKING:
    import argparse

EXIT_OK, EXIT_USAGE = 0, 2


def _no_pydantic_plugins() -> None:
    """pydantic looks for plugins in every installed package's entry points when it builds its first
    model: importing importlib.metadata for that (email, zipfile, csv...) and reading the packages'
    metadata cost about 40 ms of CPU, a tenth of `podplan plan --json`, and as much before the TUI's
    first paint. podplan uses no pydantic plugin, so its loader is one that finds none, put in place
    before pydantic imports its own. (PYDANTIC_DISABLE_PLUGINS, the documented switch, is read only
    after that import.) tests/test_cli_startup.py holds that this still avoids the import."""
    name = "pydantic.plugin._loader"
    if name not in sys.modules:
        loader = types.ModuleType(name)
        loader.get_plugins = tuple  # type: ignore[attr-defined]  # get_plugins() -> no plugin
        sys.modules[name] = loader


_no_pydantic_plugins()


def build_parser(command: str | None = "*") -> argparse.ArgumentParser:
    """The parser (app.cli.parser, imported only here: opening the TUI needs none of it), with the
    flags of COMMAND only ("*": of every command)."""
    from app.cli.parser import build_parser as build

    return build(command)


def _names_a_file(word: str) -> bool:
    """`podplan WORD` opens the planner on WORD when it is a file or reads as a path (a slash, a
    suffix), so that a missing plan file is said to be missing; any other word is a mistyped command."""
    return "/" in word or "." in word or os.path.exists(word)


def _sigterm(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _stop_on_sigterm() -> None:
    """SIGTERM (kill, a service manager, a CI timeout) stops podplan as Ctrl+C does: fio and
    qemu are stopped and waited for, files, loop devices and VM images removed, partial
    results kept. Python's default would end the process on the spot and leave them."""
    if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
        signal.signal(signal.SIGTERM, _sigterm)


def main(argv: list[str] | None = None) -> int:
    try:
        return _main(list(sys.argv[1:] if argv is None else argv))
    finally:
        if argv is None:
            # The process's entry (the console script, python -m): what the command leaves, the
            # process's exit frees. Frozen, the interpreter's last collections skip it instead of
            # walking every object start-up made (pydantic's schemas, the models, the tables):
            # about 50 M instructions, a twentieth of `plan --json`. A caller in the same process
            # (a test) passes argv and keeps a heap the collector walks.
            gc.freeze()


def _main(argv: list[str]) -> int:
    _stop_on_sigterm()
    if argv and argv[0] not in COMMANDS and not argv[0].startswith("-") and not _names_a_file(argv[0]):
        from app.cli.command import unknown_command

        print(f"podplan: {unknown_command(argv[0], COMMANDS)}", file=sys.stderr)
        return EXIT_USAGE
    if not argv or (argv[0] not in COMMANDS and not argv[0].startswith("-")):
        argv = [TUI.name, *argv]
    try:
        if argv[0] == TUI.name and len(argv) <= 2 and not any(a.startswith("-") for a in argv[1:]):
            # Opening the TUI needs none of the other commands' parsers (and their imports):
            # the first paint comes sooner. Anything else goes through the full parser.
            # Start-up allocates a few hundred thousand objects that live as long as the app
            # (Textual's classes and styles, pydantic's schemas): the cyclic collector would walk
            # them over and over while they are made. The app turns it back on after its first
            # paint (PodplanApp._collect_garbage_again).
            gc.disable()
            return open_tui(argv[1] if len(argv) == 2 else None)
        # Only the command asked for gets its flags: --help and --version import no command's.
        args = build_parser(next((a for a in argv if a in COMMANDS), None)).parse_args(argv)
        if args.command is None:
            build_parser(None).print_help()
            return EXIT_USAGE
        if args.transcript:
            from app.usecases.files import use_transcript

            use_transcript(args.transcript)
        return _dispatch(args)
    except PodplanError as exc:
        # Every error podplan raises for a person derives from it: a bad flag or file (2), a program
        # podplan needed missing or failing where no command expected it (1). One line, no traceback.
        print(f"podplan: {exc.message}", file=sys.stderr)
        return exc.exit_status
    except KeyboardInterrupt:
        print("podplan: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # `podplan example | head` closes the pipe early: not an error worth a traceback.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK


def _dispatch(args: argparse.Namespace) -> int:
    """The command's handler; it imports what it uses when it runs, and checks its flags."""
    return COMMANDS[args.command].run(args)


if __name__ == "__main__":
    sys.exit(main())
