"""Small, legible modules: no module of the product past 500 lines, no function in planners/ past 80.

A module is split before it passes 500 lines; a function that does several things is split where a
reader would name the parts (the arithmetic in planners/ above all, where a long function once hid a
misalignment between arrays). Counted as the formatter leaves the code: def line to last line.
"""

from __future__ import annotations

import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent
MAX_MODULE_LINES = 500
MAX_FUNCTION_LINES = 80


def _sources(*layers: str) -> list[pathlib.Path]:
    return [p for layer in layers for p in sorted((ROOT / layer).rglob("*.py"))]


def test_no_module_passes_500_lines() -> None:
    long = {
        str(p.relative_to(ROOT)): n
        for p in _sources("app", "planners", "runners")
        if (n := len(p.read_text().splitlines())) > MAX_MODULE_LINES
    }
    assert not long, f"split these before they pass {MAX_MODULE_LINES} lines: {long}"


def test_no_function_in_planners_passes_80_lines() -> None:
    long = {}
    for p in _sources("planners"):
        for node in ast.walk(ast.parse(p.read_text(), filename=str(p))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > MAX_FUNCTION_LINES:
                    long[f"{p.relative_to(ROOT)}:{node.name}"] = lines
    assert not long, f"split these where a reader would name the parts: {long}"
