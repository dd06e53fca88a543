"""planners/ stays pure: importing any of its modules pulls in no subprocess, UI or runner code."""

import ast
import json
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
PLANNER_MODULES = sorted(
    ".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
    for p in (ROOT / "planners").rglob("*.py")
)
FORBIDDEN = ("subprocess", "textual", "rich", "runners", "app", "asyncio")
# Direct imports a pure module has no business with (pydantic itself may load some of them).
FORBIDDEN_DIRECT = (*FORBIDDEN, "os", "shutil", "socket", "pathlib", "tempfile", "io", "sys")

PROBE = """
import json, sys
import pydantic, pydantic.networks, pydantic.json_schema
before = set(sys.modules)
import importlib
importlib.import_module(sys.argv[1])
print(json.dumps(sorted(set(sys.modules) - before)))
"""


@pytest.mark.parametrize("module", PLANNER_MODULES)
def test_planner_module_is_pure(module):
    out = subprocess.run(
        [sys.executable, "-c", PROBE, module], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    loaded = json.loads(out)
    bad = sorted(m for m in loaded if m.split(".")[0] in FORBIDDEN)
    assert not bad, f"{module} imports {bad}"


def test_planner_sources_do_no_io():
    """Catch imports and file access in the source, whatever pydantic happens to load."""
    for path in (ROOT / "planners").rglob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            else:
                if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "open":
                    pytest.fail(f"{path.name}:{node.lineno} calls open()")
                continue
            for name in names:
                assert name.split(".")[0] not in FORBIDDEN_DIRECT, f"{path.name}:{node.lineno} imports {name}"


def test_there_are_planner_modules():
    assert len(PLANNER_MODULES) >= 4
    assert {"planners", "planners.fs.xfs.geometry", "planners.perf.terms"} <= set(PLANNER_MODULES)


def test_probe_would_catch_an_impure_module():
    out = subprocess.run(
        [sys.executable, "-c", PROBE, "runners.exec"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    assert "subprocess" in json.loads(out)
