"""The import rules of the layout, read from the source (every import, also those inside functions).

- Layers point down: app -> runners -> planners, never up.
- Inside app: app.shared is what app.cli and app.tui both use, so it imports neither, and the
  TUI never reaches into the command line (the CLI may open the TUI).
- app.usecases (one function per thing a user does) is headless: it imports neither app.cli nor
  app.tui, and nothing it reaches, however indirectly, imports Textual or Rich.
- The front ends (app.cli, app.tui) read and render only: from below app they import the data they
  render (FRONT_END_MAY_IMPORT: models, results, units, errors, examples, presets), never a module
  that computes or touches the machine; those they reach through a use case (app.usecases), which
  names the types of what it returns.
- No circle anywhere: neither between modules nor between the concept packages
  (planners.md, planners.fs, runners.fio, app.tui, ...).
- Every package says in its docstring what lives there.
"""

from __future__ import annotations

import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
LAYERS = ("planners", "runners", "app")  # each may import only the ones before it, and itself
# (importer prefix, forbidden target prefix): the rules inside a layer.
INNER_RULES = (
    ("app.shared", "app.cli"),
    ("app.shared", "app.tui"),
    ("app.shared", "app.usecases"),
    ("app.tui", "app.cli"),
    ("app.usecases", "app.cli"),
    ("app.usecases", "app.tui"),
)
HEADLESS = "app.usecases"
SCREEN_LIBRARIES = {"textual", "rich"}
FRONT_ENDS = ("app.cli", "app.tui")
# Data types only: each module here holds models, constants or presets a front end renders or
# offers in a form, and the input rules a flag or a field is read with.
FRONT_END_MAY_IMPORT = frozenset(
    {
        "planners",  # the version
        "planners.errors",  # PodplanError and its kinds: what a front end says in one line
        "planners.models",  # Plan and its parts
        "planners.results",  # PlanResult: the figures computed, as the use case returns them
        "planners.units",  # sizes parsed and shown
        "planners.names",  # the rules a name or a path in a plan must meet
        "planners.example",  # the example plans
        "planners.tool_defaults",  # the tool versions a plan assumes by default
        "planners.hardware.disks",  # the disk models and their classes (presets)
        "planners.hardware.machine",  # the machine models and their CPU classes (presets)
        "planners.perf.workloads",  # the workload presets
    }
)


def _module_name(path: pathlib.Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, pathlib.Path]:
    return {_module_name(p): p for layer in LAYERS for p in sorted((ROOT / layer).rglob("*.py"))}


MODULES = _modules()
PACKAGES = {name for name, path in MODULES.items() if path.name == "__init__.py"}


def _imports(name: str, path: pathlib.Path) -> set[str]:
    """The project modules `name` imports, resolved to the most specific module that exists."""
    found: set[str] = set()
    package = name if name in PACKAGES else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names]
        else:
            continue
        for target in targets:
            while target and target not in MODULES:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}


def _libraries(path: pathlib.Path) -> set[str]:
    """The top-level names of what a module imports from outside the project."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            found.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.add(node.module.split(".")[0])
    return found - set(LAYERS)


def _reached(roots: set[str]) -> set[str]:
    seen, todo = set(), list(roots)
    while todo:
        module = todo.pop()
        if module not in seen:
            seen.add(module)
            todo.extend(GRAPH[module])
    return seen


def concept(module: str) -> str:
    """The room a module lives in: its top-level package's child (planners.fs, app.tui) or itself."""
    parts = module.split(".")
    return ".".join(parts[:2])


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one member (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    out: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                members = []
                while True:
                    m = stack.pop()
                    on_stack.discard(m)
                    members.append(m)
                    if m == node:
                        break
                if len(members) > 1:
                    out.append(sorted(members))
    return out


def test_the_layout_is_read():
    assert {"planners.compute", "runners.exec", "app.cli.main", "app.tui.app"} <= set(MODULES)
    assert "planners.models" in GRAPH["planners.compute"]


@pytest.mark.parametrize("module", sorted(MODULES))
def test_layers_point_down(module):
    layer = LAYERS.index(module.split(".")[0])
    upward = sorted(t for t in GRAPH[module] if LAYERS.index(t.split(".")[0]) > layer)
    assert not upward, f"{module} imports {upward}: {LAYERS[layer]} may import only {LAYERS[: layer + 1]}"
    for importer, forbidden in INNER_RULES:
        if module == importer or module.startswith(importer + "."):
            bad = sorted(t for t in GRAPH[module] if t == forbidden or t.startswith(forbidden + "."))
            assert not bad, f"{module} imports {bad}: {importer} must not import {forbidden}"


def front_end_breaches(module: str, targets: set[str]) -> list[str]:
    """What a front-end module imports from below app that is not a data type."""
    if not module.startswith(tuple(f + "." for f in FRONT_ENDS)) and module not in FRONT_ENDS:
        return []
    return sorted(t for t in targets if t.split(".")[0] != "app" and t not in FRONT_END_MAY_IMPORT)


@pytest.mark.parametrize("module", sorted(m for m in MODULES if m.startswith(FRONT_ENDS)))
def test_the_front_ends_import_data_types_and_use_cases_only(module):
    bad = front_end_breaches(module, GRAPH[module])
    assert not bad, f"{module} imports {bad}: a front end reaches them through a use case (app.usecases)"


def test_the_front_end_rule_would_catch_one():
    # as the compare screen and the Perf tab once predicted by themselves
    breach = front_end_breaches("app.tui.widgets.perf", {"planners.perf.predict", "planners.models"})
    assert breach == ["planners.perf.predict"]
    assert front_end_breaches("app.cli.main", {"runners.transcript", "app.usecases.files"}) == ["runners.transcript"]
    assert front_end_breaches("app.usecases.predict", {"planners.perf.predict"}) == []
    assert set(MODULES) >= FRONT_END_MAY_IMPORT, "a module of the allow-list is gone"


def test_the_use_cases_reach_no_screen_library():
    roots = {m for m in MODULES if m == HEADLESS or m.startswith(HEADLESS + ".")}
    assert len(roots) > 1, "app.usecases has no modules"
    bad = sorted(f"{m} imports {lib}" for m in _reached(roots) for lib in _libraries(MODULES[m]) & SCREEN_LIBRARIES)
    assert not bad, f"{HEADLESS} must stay headless: {bad}"


def test_the_screen_library_rule_would_catch_one():
    assert "rich" in _libraries(MODULES["app.shared.console"])
    assert "app.shared.console" in _reached({"app.shared.render"})


def test_no_circle_between_modules():
    assert _cycles(GRAPH) == []


def test_no_circle_between_concepts():
    rooms: dict[str, set[str]] = {}
    for module, targets in GRAPH.items():
        rooms.setdefault(concept(module), set()).update(concept(t) for t in targets if concept(t) != concept(module))
    assert _cycles(rooms) == []


def test_the_cycle_finder_finds_cycles():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


@pytest.mark.parametrize("package", sorted(PACKAGES))
def test_every_package_says_what_lives_there(package):
    doc = ast.get_docstring(ast.parse(MODULES[package].read_text()))
    assert doc and len(doc) > 30, f"{package}/__init__.py needs a docstring: what lives there, what it may import"
