"""Every --json document names its schema (podplan/NAME/N) in its first key and validates against the JSON
Schema `podplan schema NAME` prints: the real output of each command, run as a user runs it (the measuring
ones on a directory or a loop device, briefly; rehearse from a constructed outcome, as it needs a VM)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from app.cli.commands.schema import NAMES
from app.cli.main import main
from app.shared.documents import DOCUMENTS, document_model
from app.shared.planfile import plan_to_toml
from planners.example import example_btrfs, example_pod

PRICED = Path(__file__).parent / "fixtures" / "plans" / "pod45-priced.toml"
JOB = "[global]\nioengine=psync\nsize=8m\nruntime=2\n[rr]\nrw=randread\nbs=4k\n"


def _schema(name: str, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    capsys.readouterr()
    assert main(["schema", name]) == 0
    schema: dict[str, Any] = json.loads(capsys.readouterr().out)
    return schema


def _holds(out: str, name: str, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    """The document, checked: its first key names NAME's schema, and it validates against what `schema` prints."""
    doc: dict[str, Any] = json.loads(out)
    assert next(iter(doc)) == "schema" and doc["schema"] == f"podplan/{name}/1"
    jsonschema.Draft202012Validator(_schema(name, capsys)).validate(doc)
    return doc


def _run(argv: list[str], capsys: pytest.CaptureFixture[str], codes: tuple[int, ...] = (0,)) -> str:
    capsys.readouterr()
    assert main(argv) in codes
    return capsys.readouterr().out


def test_every_document_has_a_schema_the_command_prints(capsys):
    assert set(NAMES) == set(DOCUMENTS)
    for name in NAMES:
        schema = _schema(name, capsys)
        assert schema["properties"]["schema"]["const"] == f"podplan/{name}/1"
        jsonschema.Draft202012Validator.check_schema(schema)
    capsys.readouterr()
    assert main(["schema"]) == 0  # plan's, as before there were others
    assert json.loads(capsys.readouterr().out) == document_model("plan").model_json_schema()


@pytest.mark.parametrize(
    ("name", "argv"),
    [
        ("plan", ["plan", "{pod}", "--json"]),
        ("predict", ["predict", "{pod}", "--json"]),
        ("predict", ["predict", "{pod}", "--job", "{job}", "--json"]),
        ("predict", ["predict", "{priced}", "--json"]),
        ("predict-scale", ["predict", "{pod}", "--job", "{job}", "--scale", "iodepth=1,8", "--json"]),
        ("sweep", ["sweep", "{pod}", "--json"]),
        ("sweep", ["sweep", "{priced}", "--rank", "cost", "--json"]),
        ("grow", ["grow", "{pod}", "--add-disks", "15", "--json"]),
        ("grow-btrfs", ["grow", "{btrfs}", "--add-disks", "1", "--json"]),
    ],
)
def test_the_planning_commands_print_what_their_schema_says(name, argv, tmp_path, capsys):
    files = {"pod": tmp_path / "pod.toml", "btrfs": tmp_path / "bt.toml", "job": tmp_path / "j.fio", "priced": PRICED}
    files["pod"].write_text(plan_to_toml(example_pod()))
    files["btrfs"].write_text(plan_to_toml(example_btrfs()))
    files["job"].write_text(JOB)
    _holds(_run([a.format(**files) for a in argv], capsys), name, capsys)


def test_sweep_rows_leave_the_plan_out_and_the_cost_without_prices(tmp_path, capsys):
    (tmp_path / "pod.toml").write_text(plan_to_toml(example_pod()))
    doc = _holds(_run(["sweep", str(tmp_path / "pod.toml"), "--json"], capsys), "sweep", capsys)
    assert "plan" not in doc["rows"][0] and "cost" not in doc["rows"][0] and "rank" not in doc
    doc = _holds(_run(["sweep", str(PRICED), "--rank", "cost", "--json"], capsys), "sweep", capsys)
    assert doc["rows"][0]["cost"] and doc["rank"] == "cost"
    doc = _holds(_run(["predict", str(PRICED), "--json"], capsys), "predict", capsys)
    assert doc["cost"] and list(doc)[-1] == "cost"
