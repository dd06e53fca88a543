"""Hypothesis strategies read from a pydantic model's own JSON schema, and podplan's commands run
in-process on what they draw.

Every property the schema lists is drawn, down through `$defs` (a plan's [tools], [hardware],
a LUN, a controller), so a field added to a model is fuzzed without anyone listing it here.
A value is, by turns, one the schema allows (its default, its bounds, one between) or one it
should refuse or that sits at its edge: a bound's neighbour outside, an enum's stranger, a wrong
type, inf, nan, a huge integer, an empty string.
"""

from __future__ import annotations

import io
import math
import os
from collections.abc import Callable, Iterator
from typing import Any

from hypothesis import strategies as st

Node = dict[str, Any]
Path = tuple[str | int, ...]

# The fixed budget the suite spends; PODPLAN_FUZZ_EXAMPLES raises it for a long run.
EXAMPLES = int(os.environ.get("PODPLAN_FUZZ_EXAMPLES", "0")) or None

HUGE = (2**64 + 1, 10**30, 10**400)
NON_FINITE = (math.inf, -math.inf, math.nan)
WRONG_TYPES: tuple[Any, ...] = (None, "", "abc", [], {}, True, "1e400", "nan")
NAME_CHARS = st.characters(codec="ascii", categories=("Lu", "Ll", "Nd"), include_characters="._-")


class Schema:
    """One model's JSON schema: its nodes with `$ref`s resolved."""

    def __init__(self, schema: Node):
        self.root = schema
        self.defs: dict[str, Node] = schema.get("$defs", {})

    def resolve(self, node: Node) -> Node:
        while "$ref" in node:
            node = {**self.defs[node["$ref"].rsplit("/", 1)[-1]], **{k: v for k, v in node.items() if k != "$ref"}}
        return node

    def choices(self, node: Node) -> list[Node]:
        """The alternatives of an anyOf (`int | None` ...), each resolved; one node otherwise."""
        node = self.resolve(node)
        return [self.resolve(n) for n in node["anyOf"]] if "anyOf" in node else [node]

    def leaves(self, node: Node | None = None, path: Path = ()) -> Iterator[tuple[Path, Node]]:
        """(path, node) of every field that holds a value rather than a model: lists and dicts of
        models are entered at their first item (index 0, or the key "*")."""
        node = self.resolve(node or self.root)
        models = [n for n in self.choices(node) if n.get("type") == "object"]
        if not models:
            yield path, node
            return
        for m in models:
            for name, prop in m.get("properties", {}).items():
                inner = [n for n in self.choices(prop) if n.get("type") in ("object", "array")]
                items = [self.resolve(n["items"]) for n in inner if n.get("type") == "array" and "items" in n]
                if items and items[0].get("type") == "object":
                    yield from self.leaves(items[0], (*path, name, 0))
                elif any("additionalProperties" in n and isinstance(n["additionalProperties"], dict) for n in inner):
                    yield from self.leaves(inner[0]["additionalProperties"], (*path, name, "*"))
                elif any(n.get("type") == "object" for n in inner):
                    yield from self.leaves(prop, (*path, name))
                else:
                    yield (*path, name), prop

    # --- values the schema allows ----------------------------------------------------------------
    def allowed(self, node: Node, depth: int = 0) -> st.SearchStrategy[Any]:
        alternatives = [self._allowed_one(n, depth) for n in self.choices(node)]
        if "default" in self.resolve(node):
            alternatives.insert(0, st.just(self.resolve(node)["default"]))
        return st.one_of(alternatives)

    def _allowed_one(self, node: Node, depth: int) -> st.SearchStrategy[Any]:
        if "enum" in node:
            return st.sampled_from(node["enum"])
        if "const" in node:
            return st.just(node["const"])
        kind = node.get("type")
        if kind == "null":
            return st.none()
        if kind == "boolean":
            return st.booleans()
        if kind == "integer":
            low, high = int_bounds(node)
            # Small and round values reach the arithmetic; anything in range tests the checks.
            near = st.integers(low if low is not None else 0, (low if low is not None else 0) + 16)
            round_ = st.integers(9, 44).map(lambda k: 1 << k)
            return st.one_of(near, round_, st.integers(low, high)).filter(lambda v: in_int_bounds(node, v))
        if kind == "number":
            low, high = (
                node.get("minimum", node.get("exclusiveMinimum")),
                node.get("maximum", node.get("exclusiveMaximum")),
            )
            return st.floats(
                low,
                high,
                allow_nan=False,
                allow_infinity=False,
                exclude_min="exclusiveMinimum" in node,
                exclude_max="exclusiveMaximum" in node,
            )
        if kind == "string":
            return st.text(NAME_CHARS, min_size=node.get("minLength", 1), max_size=min(node.get("maxLength", 12), 12))
        if kind == "array":
            item = node.get("items", {})
            if not item:
                return st.just([])
            return st.lists(
                self.allowed(item, depth + 1),
                min_size=node.get("minItems", 0),
                max_size=min(node.get("maxItems", 2), 2),
            )
        if kind == "object":
            props = node.get("properties")
            if props is None:
                extra = node.get("additionalProperties")
                if not isinstance(extra, dict) or depth > 3:
                    return st.just({})
                return st.dictionaries(
                    st.text(NAME_CHARS, min_size=1, max_size=8), self.allowed(extra, depth + 1), max_size=1
                )
            required = set(node.get("required", ()))
            return st.fixed_dictionaries(
                {k: self.allowed(v, depth + 1) for k, v in props.items() if k in required},
                optional={k: self.allowed(v, depth + 1) for k, v in props.items() if k not in required},
            )
        return st.just(None)

    # --- values at the edge or outside ----------------------------------------------------------
    def edges(self, node: Node) -> list[Any]:
        """Values the schema should refuse, or sits at the edge of: the same list every run."""
        out: list[Any] = [*WRONG_TYPES, *NON_FINITE, *HUGE, 0, -1, 0.5, 1e308, 5e-324]
        for n in self.choices(node):
            if "enum" in n:
                out += ["not-" + str(n["enum"][0]), *(str(v) for v in n["enum"] if not isinstance(v, str))]
            if n.get("type") in ("integer", "number"):
                for key, step in (("minimum", -1), ("maximum", 1), ("exclusiveMinimum", 0), ("exclusiveMaximum", 0)):
                    if key in n:
                        out += [n[key], n[key] + step, n[key] + step / 1e6 if n.get("type") == "number" else n[key]]
            if n.get("type") == "string":
                out += ["x" * (n.get("maxLength", 64) + 1), "a b\nreboot", "$(reboot)", "é", "-x"]
            if n.get("type") == "array":
                out += [[""], ["a b"], [None], ["/dev/sda"] * 2]
        return _distinct(out)

    def documents(self, seeds: list[dict[str, Any]]) -> st.SearchStrategy[dict[str, Any]]:
        """Documents near valid ones: a seed with up to two optional parts left out, then up to three
        fields set to values the schema allows and up to three to edges. A document drawn from the schema alone
        almost never passes the checks the schema cannot say (sector sizes, members per level)."""
        leaves = list(self.leaves())

        @st.composite
        def draw(data: st.DrawFn) -> dict[str, Any]:
            doc = data(st.sampled_from(seeds))
            for _ in range(data(st.integers(0, 2))):
                doc = without(doc, data(st.sampled_from(optional_paths(doc, self))))
            for values in (self.allowed, lambda node: st.sampled_from(self.edges(node))):
                for _ in range(data(st.integers(0, 3))):
                    path, node = data(st.sampled_from(leaves))
                    doc = with_value(doc, path, data(values(node)))
            return doc

        return draw()


def optional_paths(doc: Any, schema: Schema, node: Node | None = None, path: Path = ()) -> list[Path]:
    """Paths of the fields present in `doc` that the schema lets a document leave out."""
    out: list[Path] = [()]
    models = [n for n in schema.choices(node or schema.root) if n.get("type") == "object" and "properties" in n]
    if not models or not isinstance(doc, dict):
        return out
    m = models[0]
    for name, value in doc.items():
        prop = m["properties"].get(name)
        if prop is None:
            continue
        if name not in m.get("required", ()):
            out.append((*path, name))
        out += [p for p in optional_paths(value, schema, prop, (*path, name)) if p]
    return out


def without(doc: Any, path: Path) -> Any:
    if not path or not isinstance(doc, dict) or path[0] not in doc:
        return doc
    if len(path) == 1:
        return {k: v for k, v in doc.items() if k != path[0]}
    return {**doc, path[0]: without(doc[path[0]], path[1:])}


def _distinct(values: list[Any]) -> list[Any]:
    """Values without repeats, where 1 == 1.0 == True are not the same value and nan is kept once."""
    seen: set[tuple[str, str]] = set()
    out = []
    for v in values:
        key = (type(v).__name__, repr(v))
        if key not in seen:
            seen.add(key)
            out.append(v)
    return out


def int_bounds(node: Node) -> tuple[int | None, int | None]:
    low = node.get("minimum", node["exclusiveMinimum"] + 1 if "exclusiveMinimum" in node else None)
    high = node.get("maximum", node["exclusiveMaximum"] - 1 if "exclusiveMaximum" in node else None)
    return (None if low is None else math.ceil(low)), (None if high is None else math.floor(high))


def in_int_bounds(node: Node, v: int) -> bool:
    low, high = int_bounds(node)
    return (low is None or v >= low) and (high is None or v <= high)


def with_value(doc: Any, path: Path, value: Any) -> Any:
    """A copy of `doc` with the field at `path` set; missing models on the way are made empty,
    a list's item 0 or a dict's "*" is its first (made if there is none)."""
    if not path:
        return value
    head, rest = path[0], path[1:]
    if isinstance(head, int):
        items = list(doc) if isinstance(doc, list) else []
        if not items:
            items.append({})
        items[0] = with_value(items[0], rest, value)
        return items
    out = dict(doc) if isinstance(doc, dict) else {}
    if head == "*":
        key = next(iter(out), "model")
        out[key] = with_value(out.get(key, {}), rest, value)
        return out
    out[head] = with_value(out.get(head, {}) if rest else None, rest, value)
    return out


def dotted(path: Path) -> str:
    return ".".join(str(p) for p in path)


# --- podplan's commands, in-process ----------------------------------------------------------------
SWEEP_MAX_DISKS = 6  # a sweep computes every layout of the disks: above this a draw costs too much


def run_commands(data: dict[str, Any], *, render: bool = True, sweep_disks: int = SWEEP_MAX_DISKS) -> dict[str, str]:
    """`podplan plan`, `script`, `predict` and `sweep` of a plan document, as the command line runs
    them (its functions; with `render` its tables too, to a string, which costs most of the time).
    The sweep runs on plans of at most `sweep_disks` disks. Returns each command's outcome: "ok",
    or the PlanError's field and message. Any other exception propagates."""
    from rich.console import Console

    from app.cli.predict import prediction_table, reliability_table, sweep_table
    from app.shared.planfile import plan_from_data
    from app.shared.render import print_plan
    from planners.compute import compute
    from planners.errors import PlanError
    from planners.layouts.sweep import sweep
    from planners.perf.predict import geometry_for_speed, predict
    from planners.perf.workloads import preset
    from planners.reliability.loss import reliability
    from planners.results import PlanReport
    from planners.script.build import build_script, placeholders

    out: dict[str, str] = {}
    console = Console(file=io.StringIO(), width=200)
    show = console.print if render else (lambda *objects: None)
    try:
        plan = plan_from_data(data, source="fuzz")
    except PlanError as exc:
        return {"load": outcome(exc)}

    def plan_cmd() -> None:
        result = compute(plan)
        PlanReport.build(plan, result).model_dump_json()
        if render:
            print_plan(plan, result, console)

    def script_cmd() -> None:
        result = compute(plan)
        build_script(plan, result)
        placeholders(result)

    def predict_cmd() -> None:
        geometry = geometry_for_speed(plan)
        for mode in ("normal", "degraded", "rebuild"):
            show(prediction_table(predict(plan, geometry, None, mode=mode)))  # type: ignore[arg-type]
        show(reliability_table(reliability(plan, geometry)))

    def sweep_cmd() -> None:
        if sum(d.count for d in plan.disks) <= sweep_disks:
            show(sweep_table(sweep(plan, preset("seq-write")), 3, show_risky=True))

    commands: dict[str, Callable[[], None]] = {
        "plan": plan_cmd,
        "script": script_cmd,
        "predict": predict_cmd,
        "sweep": sweep_cmd,
    }
    for name, command in commands.items():
        try:
            command()
            out[name] = "ok"
        except PlanError as exc:
            out[name] = outcome(exc)
    return out


def outcome(exc: Exception) -> str:
    """A PlanError as "field: message", after checking it is one line that names its field."""
    message, field = getattr(exc, "message", ""), getattr(exc, "field", "")
    assert message and "\n" not in message, f"not one line: {message!r}"
    assert field, f"names no field: {message!r}"
    return f"{field}: {message}"


# --- seeds: valid plans every draw starts from ------------------------------------------------------
_DISK_FIGURES = {
    "seq_outer_mb_s": 250.0,
    "seq_inner_mb_s": 120.0,
    "rand_read_iops": 90.0,
    "rand_write_iops": 85.0,
    "rpm": 7200,
    "parallelism": 1,
    "afr": 0.02,
    "ure_per_bit": 1e-15,
    "latency_us": 0.0,
}


def plan_seeds() -> list[dict[str, Any]]:
    """Three valid plans between them holding every optional part of the schema: full hardware with a
    LUN, a per-model entry (for the first disk set; the second takes `hardware.disk`) and a
    controller; disk sets of two sizes; and a bare plan of defaults."""
    rich = {
        "name": "rich",
        "disks": [
            {
                "count": 3,
                "size": "2TB",
                "logical_sector": 512,
                "physical_sector": 4096,
                "model": model,
                "devices": [f"/dev/disk/by-id/{model}-{i}" for i in range(3)],
            }
            for model in ("m1", "other")
        ],
        "groups": [
            {
                "name": f"md{i}",
                "level": 5,
                "members": 3,
                "chunk": "512K",
                "metadata": "1.2",
                "bitmap": "internal",
                "bitmap_chunk": "64M",
                "layout": "left-symmetric",
            }
            for i in range(2)
        ],
        "lvm": {
            "enabled": True,
            "vg": "pod",
            "lv": "data",
            "extent_size": "4M",
            "mode": "striped",
            "stripe_size": "512K",
            "data_alignment": "2M",
        },
        "filesystem": {
            "type": "xfs",
            "block_size": 4096,
            "label": "rich",
            "mount_point": "/srv/rich",
            "mount_options": ["noatime"],
            "stripe_unit": "512K",
            "stripe_width": 2,
        },
        "tuning": {"readahead": "16M", "stripe_cache_size": 4096},
        "tools": {"mdadm": "4.2", "lvm2": "2.03.16", "e2fsprogs": "1.47.0", "xfsprogs": "6.1.0", "kernel": "6.1"},
        "hardware": {
            "disk": {
                "disk_class": "hdd7200",
                **_DISK_FIGURES,
                "lun": {"disks": 4, "level": 5, "strip": 65536, "rebuild_hours": 24.0},
            },
            "models": {
                "m1": {
                    "disk_class": "hdd10k",
                    **_DISK_FIGURES,
                    "lun": {"disks": 4, "level": 10, "strip": 131072, "rebuild_hours": 12.0},
                }
            },
            "wiring": {
                "link": "sas2",
                "disks_per_link": 4,
                "link_mb_s": 500.0,
                "hbas": 2,
                "pcie_gen": 3,
                "pcie_lanes": 8,
                "hba_mb_s": 4000.0,
            },
            "cpu": {
                "cpu_class": "server",
                "cores": 8,
                "raid6_gen_mb_s": 10000.0,
                "xor_mb_s": 15000.0,
                "md_thread_mb_s": 1200.0,
                "buffered_write_mb_s": 1500.0,
                "buffered_read_mb_s": 3000.0,
            },
            "memory_bytes": 32 << 30,
            "md": {"group_thread_cnt": 2, "speed_limit_min_kib_s": 1000, "speed_limit_max_kib_s": 200000},
            "controller": {"kind": "raid", "round_trip_us": 150.0, "cache_bytes": 512 << 20, "drain_queue": 32},
            "dirty_ratio": 20.0,
            "dirty_background_ratio": 10.0,
            "write_cache_mb_s": 800.0,
            "replace_hours": 72.0,
        },
    }
    mixed = {
        "name": "mixed",
        "disks": [
            {"count": 4, "size": "960GB", "rotational": False, "logical_sector": 4096, "physical_sector": 4096},
            {"count": 2, "size": "1.92TB", "rotational": False, "logical_sector": 4096, "physical_sector": 4096},
        ],
        "groups": [{"name": "fast", "level": 10, "layout": "f2", "members": 6, "chunk": "64K"}],
        "filesystem": {"type": "ext4", "reserved_percent": 1.0, "mount_point": "/srv/fast"},
        "hardware": {"disk": {"disk_class": "nvme"}, "wiring": {"link": "direct"}},
    }
    bare = {"disks": [{"size": "4TB", "count": 4}], "groups": [{"level": 5, "members": 4}]}
    return [rich, mixed, bare]
