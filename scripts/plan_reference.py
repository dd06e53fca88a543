"""Write docs/plan-file.md, the reference of the plan file, from the plan's pydantic models.

    .venv/bin/python scripts/plan_reference.py > docs/plan-file.md

tests/test_docs.py fails when the page is not what this writes: a field added, renamed or
described anew in planners/models.py shows here by running it again.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from planners.models import Plan

HEAD = """\
# The plan file

A plan is a TOML file: `podplan example > pod.toml` writes one to start from, `podplan example --list`
names the others. Every table and key is below, as the models that read it define them; a key left out
takes its default, an unknown key is refused. Sizes are bytes, or written `2TB` (decimal), `1.8TiB`,
`512K`, `64M` (binary: a bare K, M, G or T is binary). The JSON schema of `podplan plan --json`, which
holds the plan too, is `podplan schema`. See [plan.md](plan.md) for what podplan computes from it.

This page is written by `scripts/plan_reference.py` from planners/models.py; do not edit it by hand.
"""


def _type(prop: dict[str, Any], defs: dict[str, Any]) -> str:
    if "$ref" in prop:
        return "table"
    if "enum" in prop:
        return " \\| ".join(json.dumps(v) for v in prop["enum"])
    if "const" in prop:
        return json.dumps(prop["const"])
    if "anyOf" in prop:
        kinds = [_type(p, defs) for p in prop["anyOf"] if p.get("type") != "null"]
        return " or ".join(kinds) + (" (optional)" if len(kinds) < len(prop["anyOf"]) else "")
    kind = prop.get("type", "any")
    if kind == "array":
        return f"list of {_type(prop.get('items', {}), defs)}"
    if kind == "object" and "additionalProperties" in prop and isinstance(prop["additionalProperties"], dict):
        return f"table of {_type(prop['additionalProperties'], defs)}"
    return str(kind)


def _ref(prop: dict[str, Any]) -> str | None:
    """The model a key holds (a table, or a list of tables), if it holds one."""
    for p in (prop, prop.get("items", {}), *prop.get("anyOf", ())):
        if "$ref" in p:
            return str(p["$ref"]).rsplit("/", 1)[-1]
        if "items" in p and "$ref" in p["items"]:
            return str(p["items"]["$ref"]).rsplit("/", 1)[-1]
    return None


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _section(path: str, model: dict[str, Any], defs: dict[str, Any], out: list[str]) -> None:
    out += ["", f"## {path}" if path else "## Top level", "", _cell(model.get("description", "")), ""]
    out += ["| key | type | default | what it is |", "| --- | --- | --- | --- |"]
    later: list[tuple[str, dict[str, Any]]] = []
    required = set(model.get("required", ()))
    for key, prop in model.get("properties", {}).items():
        ref = _ref(prop)
        many = prop.get("type") == "array" or any(p.get("type") == "array" for p in prop.get("anyOf", ()))
        default = "required" if key in required else json.dumps(prop.get("default"), ensure_ascii=False)
        if ref:
            name = f"{path.strip('[]')}.{key}" if path else key
            later.append((f"[[{name}]]" if many else f"[{name}]", defs[ref]))
            default = "see below" if key not in required else default
        out.append(f"| `{key}` | {_type(prop, defs)} | {_cell(default)} | {_cell(prop.get('description', ''))} |")
    for sub_path, sub in later:
        _section(sub_path, sub, defs, out)


def reference() -> str:
    schema = Plan.model_json_schema()
    out = [HEAD.rstrip("\n")]
    _section("", schema, schema.get("$defs", {}), out)
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    sys.stdout.write(reference())
