"""`podplan schema`: the JSON schema of `podplan plan --json`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.cli.command import EXIT_OK, Command, no_arguments

if TYPE_CHECKING:
    import argparse


def run(args: argparse.Namespace) -> int:
    import json

    from planners.results import PlanReport

    print(json.dumps(PlanReport.model_json_schema(), indent=2))
    return EXIT_OK


COMMAND = Command(
    name="schema",
    help="print the JSON schema of `podplan plan --json`",
    description="Print the JSON schema of the document `podplan plan --json` prints, "
    "generated from the models that make it.",
    examples=(
        ("podplan schema > plan.schema.json", "keep it beside the scripts that read plan --json"),
        ("podplan schema | jq '.properties | keys'", "the top-level keys of the document"),
    ),
    add_arguments=no_arguments,
    run=run,
)
