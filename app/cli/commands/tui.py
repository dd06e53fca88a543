"""`podplan tui` (and `podplan` alone, or `podplan PLAN.toml`): the interactive planner."""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.cli.command import Command

if TYPE_CHECKING:
    import argparse


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("plan_file", nargs="?", metavar="PLAN.toml")


def open_tui(plan_file: str | None) -> int:
    from app.shared.config import example_plan, read_config
    from app.shared.planfile import load_plan
    from app.tui import run_tui

    config = read_config()  # before the screen changes: a bad config file is one line on the terminal
    plan = load_plan(plan_file) if plan_file else example_plan()
    return run_tui(plan, plan_file, theme=config.theme, units=config.units)


def run(args: argparse.Namespace) -> int:
    return open_tui(args.plan_file)


COMMAND = Command(
    name="tui",
    help="open the interactive planner (the default)",
    description="Open the interactive planner: every figure recomputed as you type, the script, the "
    "rehearsal and validate a key away (F1 lists the keys). `podplan` alone opens it on the example "
    "pod, `podplan PLAN.toml` on a plan file.",
    examples=(
        ("podplan", "the planner on the example pod"),
        ("podplan pod.toml", "the planner on a plan file; saving writes it back"),
    ),
    add_arguments=add_arguments,
    run=run,
)
