"""The TUI keeps its state on the App or its screens, never in module globals (shared/DESIGN.md, 11).

Read from the source of app/tui: no `global` statement, no function that changes a module-level
name in place (item assignment, slice assignment, or a mutating method such as append), and no
module-level container named in lower case (a constant table is named in capitals and never changed).
Two App objects in one process (the tests run many) then never see each other's state.
"""

from __future__ import annotations

import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
TUI = sorted((ROOT / "app" / "tui").rglob("*.py"))
MUTATORS = {"append", "extend", "insert", "remove", "pop", "clear", "update", "setdefault", "add", "discard", "popitem"}
CONTAINERS = (ast.Dict, ast.List, ast.Set, ast.DictComp, ast.ListComp, ast.SetComp)


def _module_names(tree: ast.Module) -> dict[str, ast.expr | None]:
    """Names bound at module level, with the value bound (None for imports, defs and classes)."""
    out: dict[str, ast.expr | None] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    out[t.id] = node.value
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            out[node.target.id] = node.value
    return out


def _is_container(value: ast.expr | None) -> bool:
    if isinstance(value, CONTAINERS):
        return True
    return (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Name)
        and value.func.id in {"dict", "list", "set", "defaultdict", "OrderedDict", "Counter", "deque"}
    )


def _root_name(node: ast.expr) -> str | None:
    while isinstance(node, ast.Subscript | ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def state_in_globals(source: str) -> list[str]:
    """Each place in `source` that keeps or changes state in a module global, one line each."""
    tree = ast.parse(source)
    names = _module_names(tree)
    found = [
        f"line {v.lineno}: module-level container {n!r} (state belongs on the App or a screen)"
        for n, v in names.items()
        if v is not None and _is_container(v) and not n.lstrip("_").isupper()
    ]
    for fn in (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)):
        local = {a.arg for a in ast.walk(fn.args) if isinstance(a, ast.arg)}
        local |= {t.id for t in ast.walk(fn) if isinstance(t, ast.Name) and isinstance(t.ctx, ast.Store)}
        for node in ast.walk(fn):
            if isinstance(node, ast.Global):
                found.append(f"line {node.lineno}: global {', '.join(node.names)}")
            targets: list[ast.expr] = []
            if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                if isinstance(t, ast.Subscript | ast.Attribute) and (r := _root_name(t)) in names and r not in local:
                    found.append(f"line {node.lineno}: {r} changed in place in {fn.name}()")
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in MUTATORS
                and (r := _root_name(node.func.value)) in names
                and r not in local
                and _is_container(names[r])
            ):
                found.append(f"line {node.lineno}: {r}.{node.func.attr}() in {fn.name}()")
    return found


@pytest.mark.parametrize("path", TUI, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_tui_state_in_module_globals(path: pathlib.Path) -> None:
    assert state_in_globals(path.read_text()) == []


def test_the_scan_finds_what_it_looks_for() -> None:
    # the memo app/tui/form_model.py kept before the plan screen held the form's values for its plan
    memo = (
        "_shown_for: list[Any] = [None, {}]\n"
        "def values_from_plan(plan):\n"
        "    if _shown_for[0] is plan:\n"
        "        return dict(_shown_for[1])\n"
        "    _shown_for[:] = [plan, {}]\n"
    )
    assert len(state_in_globals(memo)) == 2
    assert state_in_globals("N = 0\ndef f():\n    global N\n    N += 1\n") == ["line 3: global N"]
    assert state_in_globals("SEEN = {}\ndef f(k):\n    SEEN.setdefault(k, 1)\n") == ["line 3: SEEN.setdefault() in f()"]
    assert state_in_globals("TABLE = {'a': 1}\ndef f(d):\n    d['a'] = TABLE['a']\n") == []
