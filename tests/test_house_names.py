"""One name, one meaning: no two classes of the product share a name.

Workload, JobFile, Shape and Filesystem each once named two different things (the model's workload
and fio's run of one, an ext4 layout and an array's shape, the plan's filesystem and one the lab
found), so a reader had to check the import to know which was meant. Classes nested in another
(a widget's Changed message) are named through their owner and are not counted.
"""

from __future__ import annotations

import ast
import pathlib
from collections import defaultdict

ROOT = pathlib.Path(__file__).resolve().parent.parent


def _module_classes(*layers: str) -> dict[str, list[str]]:
    where: dict[str, list[str]] = defaultdict(list)
    for layer in layers:
        for p in sorted((ROOT / layer).rglob("*.py")):
            for node in ast.parse(p.read_text(), filename=str(p)).body:
                if isinstance(node, ast.ClassDef):
                    where[node.name].append(f"{p.relative_to(ROOT)}:{node.lineno}")
    return where


def test_no_two_classes_share_a_name() -> None:
    where = _module_classes("app", "planners", "runners")
    assert len(where) > 100, "the scan found too few classes to mean anything"
    shared = {name: places for name, places in where.items() if len(places) > 1}
    assert not shared, f"rename one side so each name says one thing: {shared}"
