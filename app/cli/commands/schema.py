"""`podplan schema [DOCUMENT]`: the JSON schema of a `--json` document (plan's without one)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.cli.command import EXIT_OK, Command

if TYPE_CHECKING:
    import argparse

# The names of app.shared.documents.DOCUMENTS, spelt here so that `--help` and completion need no import.
NAMES = (
    "plan",
    "predict",
    "predict-scale",
    "sweep",
    "grow",
    "grow-btrfs",
    "check",
    "rehearse",
    "rehearse-failure",
    "rehearse-growth",
    "validate",
    "validate-hosts",
    "validate-scale",
    "validate-health",
    "validate-burn-in",
    "compare",
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "document",
        nargs="?",
        default="plan",
        choices=NAMES,
        metavar="DOCUMENT",
        help='the document, as its "schema" key names it (podplan/DOCUMENT/N): ' + ", ".join(NAMES),
    )


def run(args: argparse.Namespace) -> int:
    import json

    from app.shared.documents import document_model

    print(json.dumps(document_model(args.document).model_json_schema(), indent=2))
    return EXIT_OK


COMMAND = Command(
    name="schema",
    help="print the JSON schema of a --json document (plan's by default)",
    description="Print the JSON schema of a document a command prints with --json, generated from the models "
    'that make it. Each document names its schema in its first key, "schema": podplan/DOCUMENT/N; N grows '
    "when a key is removed or changes meaning, not when one is added.",
    examples=(
        ("podplan schema > plan.schema.json", "keep it beside the scripts that read plan --json"),
        ("podplan schema predict | jq '.properties | keys'", "the top-level keys of predict --json"),
        ("podplan schema validate-health", "what validate --health --json prints"),
    ),
    add_arguments=add_arguments,
    run=run,
)
