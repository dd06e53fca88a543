"""`podplan`: the command line. Bad input ends in one line on stderr and exit status 2."""

from __future__ import annotations

import gc
import os
import signal
import sys
from typing import TYPE_CHECKING

from planners.errors import PodplanError

if TYPE_CHECKING:
    import argparse

EXIT_OK, EXIT_USAGE = 0, 2
COMMANDS = (
    "plan",
    "script",
    "example",
    "schema",
    "tui",
    "rehearse",
    "validate",
    "check",
    "predict",
    "sweep",
    "grow",
    "report",
)


def build_parser() -> argparse.ArgumentParser:
    """Every command's parser (app.cli.parser, imported only here: opening the TUI needs none of it)."""
    from app.cli.parser import build_parser as build

    return build()


def _sigterm(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _stop_on_sigterm() -> None:
    """SIGTERM (kill, a service manager, a CI timeout) stops podplan as Ctrl+C does: fio and
    qemu are stopped and waited for, files, loop devices and VM images removed, partial
    results kept. Python's default would end the process on the spot and leave them."""
    if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
        signal.signal(signal.SIGTERM, _sigterm)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    _stop_on_sigterm()
    if not argv or (argv[0] not in COMMANDS and not argv[0].startswith("-")):
        argv = ["tui", *argv]
    try:
        if argv[0] == "tui" and len(argv) <= 2 and not any(a.startswith("-") for a in argv[1:]):
            # Opening the TUI needs none of the other commands' parsers (and their imports):
            # the first paint comes sooner. Anything else goes through the full parser.
            # Start-up allocates a few hundred thousand objects that live as long as the app
            # (Textual's classes and styles, pydantic's schemas): the cyclic collector would walk
            # them over and over while they are made. The app turns it back on after its first
            # paint (PodplanApp._collect_garbage_again).
            gc.disable()
            return _tui(argv[1] if len(argv) == 2 else None)
        args = build_parser().parse_args(argv)
        if args.command is None:
            build_parser().print_help()
            return EXIT_USAGE
        if args.transcript:
            from runners import transcript

            transcript.use(args.transcript)
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
    """The command's own module, imported only when it is the one asked for; each checks its flags."""
    if args.command in ("plan", "script", "example", "schema"):
        from app.cli.plan import dispatch as plan_dispatch

        return plan_dispatch(args)
    if args.command == "tui":
        return _tui(args.plan_file)
    if args.command in ("predict", "sweep"):
        from app.cli.predict import dispatch as predict_dispatch

        return predict_dispatch(args)
    if args.command == "report":
        from app.cli.scale import rebuild_report

        return rebuild_report(args.dir, args.output, args.force)
    if args.command == "grow":
        from app.cli.grow import dispatch as grow_dispatch

        return grow_dispatch(args)
    if args.command == "validate" and (args.health or args.burn_in or args.resume):
        from app.cli.validate_health import dispatch as health_dispatch

        return health_dispatch(args)
    if args.command == "validate" and (args.scale or args.html):
        from app.cli.validate_scale import dispatch as scale_dispatch

        return scale_dispatch(args)
    if args.command in ("validate", "check"):
        from app.cli.validate import dispatch

        return dispatch(args)
    if args.command == "rehearse":
        from app.cli.rehearse import dispatch as rehearse_dispatch

        return rehearse_dispatch(args)
    raise AssertionError(args.command)


def _tui(plan_file: str | None) -> int:
    from app.shared.planfile import load_plan
    from app.tui import run_tui
    from planners.example import example_pod

    plan = load_plan(plan_file) if plan_file else example_pod()
    return run_tui(plan, plan_file)


if __name__ == "__main__":
    sys.exit(main())
