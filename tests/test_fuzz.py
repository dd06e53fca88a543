"""Fuzzing podplan's inputs: the plan (every field its JSON schema lists), fio job files and the TUI's
form. Each input ends in a result or a PlanError that names a field, never another exception.

The budget is fixed so the suite stays quick; PODPLAN_FUZZ_EXAMPLES raises it (the nightly run in
benchmarks/bench_fuzz.py does).
"""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.shared.planfile import plan_from_data
from app.tui.form_model import FIELDS, FormError, compute_form, values_from_plan
from planners.errors import PlanError
from planners.example import example_pod
from planners.models import Plan
from planners.perf.jobfile import IGNORED, MODELLED, REFUSED, parse_job_file
from planners.perf.predict import geometry_for_speed, predict
from tests.fuzz_schema import EXAMPLES, SWEEP_MAX_DISKS, Schema, dotted, outcome, plan_seeds, run_commands, with_value

SCHEMA = Schema(Plan.model_json_schema())
LEAVES = list(SCHEMA.leaves())
SEEDS = plan_seeds()
# The richest seed as it is (XFS) and with ext4, so that a field only one filesystem reads
# (e2fsprogs, reserved_percent) is used; the second is not swept (an ext4 sweep costs ten XFS ones).
EDGE_SEEDS = [(SEEDS[0], SWEEP_MAX_DISKS), (with_value(SEEDS[0], ("filesystem", "type"), "ext4"), 0)]
FUZZ = settings(
    deadline=None,
    database=None,
    derandomize=EXAMPLES is None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


def test_the_schema_reaches_every_part_of_a_plan() -> None:
    """The walk enters [tools], [hardware] and the models inside it, down to a LUN's fields."""
    paths = {dotted(p) for p, _ in LEAVES}
    assert {
        "tools.kernel",
        "tools.lvm2",
        "hardware.replace_hours",
        "hardware.disk.lun.rebuild_hours",
        "hardware.models.*.afr",
        "hardware.controller.round_trip_us",
        "groups.0.chunk",
        "disks.0.size",
        "filesystem.reserved_percent",
        "tuning.readahead",
    } <= paths
    for seed in [*SEEDS, EDGE_SEEDS[1][0]]:
        assert set(run_commands(seed).values()) == {"ok"}, seed.get("name")


@pytest.mark.parametrize("path", [p for p, _ in LEAVES], ids=[dotted(p) for p, _ in LEAVES])
def test_every_plan_field_at_its_edges(path) -> None:  # type: ignore[no-untyped-def]
    """Each field of the richest seed set to each edge of its schema (wrong types, inf, nan, huge
    integers, empty strings, a bound's neighbours): plan, script, predict and sweep of every one."""
    node = dict(LEAVES)[path]
    seen: set[str] = set()
    for (seed, sweep_disks), value in ((seed, value) for seed in EDGE_SEEDS for value in SCHEMA.edges(node)):
        doc = with_value(seed, path, value)
        try:
            key = plan_from_data(doc).model_dump_json()
        except PlanError as exc:
            outcome(exc)
            continue
        if key in seen:  # 0, False and -0.0 often make the same plan
            continue
        seen.add(key)
        try:
            run_commands(doc, render=False, sweep_disks=sweep_disks)
        except Exception as exc:
            raise AssertionError(f"{dotted(path)} = {value!r}: {type(exc).__name__}: {exc}") from exc


@settings(FUZZ, max_examples=EXAMPLES or 60)
@given(SCHEMA.documents(SEEDS))
def test_plans_from_the_schema(doc) -> None:  # type: ignore[no-untyped-def]
    """Whole plans near the seeds, several fields changed at once, rendered as the command line does."""
    run_commands(doc)


# --- job files -----------------------------------------------------------------------------------
OPTIONS = sorted(MODELLED | set(IGNORED) | set(REFUSED))
ODD = [
    "",
    "0",
    "1",
    "-1",
    "4k",
    "1m",
    "64KiB",
    "1.5m",
    "10%",
    "100",
    "101",
    "4k,8k",
    "4k-8k",
    ",4k",
    "10s",
    "5ms",
    "2h",
    "1d",
    "abc",
    "inf",
    "nan",
    "1e400",
    "9" * 30,
    "9" * 400,
    "randrw",
    "rw:4",
    "trim",
    "libaio",
    "io_uring",
    "sync",
    "dsync",
    "none",
    "/dev/sda",
    "/tmp/f:/tmp/g",
    "1000",
    "1024",
    " 7 ",
]
# What each modelled option usually holds, so that most files get past the reader to the model.
USUAL = {
    "rw": ["read", "write", "randread", "randwrite", "rw", "readwrite", "randrw"],
    "ioengine": ["libaio", "io_uring", "psync", "sync", "posixaio"],
    "bs": ["4k", "128k", "1m", "4k,64k"],
    "size": ["1g", "10g", "100m"],
    "io_size": ["1g"],
    "runtime": ["10", "60s", "1m"],
    "rwmixread": ["70"],
    "rate": ["10m", "1m,2m", ",5m"],
    "rate_iops": ["100", "50,"],
    "thinktime": ["100", "2ms"],
    "fsync": ["1", "32"],
    "fdatasync": ["8"],
    "sync": ["1", "dsync"],
    "filename": ["/dev/md0", "f"],
    "numjobs": ["1", "4", "64"],
    "iodepth": ["1", "32"],
    "kb_base": ["1000", "1024", "4k"],
    "number_ios": ["1000"],
}
job_values = st.one_of(
    st.sampled_from(ODD),
    st.integers(-(10**6), 10**25).map(str),
    st.text(st.characters(codec="ascii", exclude_characters="\n\r[]"), max_size=8),
)


@st.composite
def job_option(draw: st.DrawFn) -> tuple[str, str]:
    """Mostly a modelled option with a usual value; sometimes any option, an unknown one, an odd value."""
    if draw(st.integers(0, 3)):
        key = draw(st.sampled_from(sorted(USUAL)))
        return key, draw(st.sampled_from(USUAL[key]))
    key = draw(st.one_of(st.sampled_from(OPTIONS), st.sampled_from(["frobnicate", "RW", "bs ", "include"])))
    return key, draw(job_values)


sections = st.lists(job_option(), max_size=6)


@st.composite
def job_files(draw: st.DrawFn) -> str:
    lines = []
    if draw(st.booleans()):
        lines += ["[global]", *(f"{k}={v}" for k, v in draw(sections))]
    for i in range(draw(st.integers(0, 3))):
        lines += [f"[job{i}]", *(f"{k}={v}" if draw(st.booleans()) else f"{k} {v}" for k, v in draw(sections))]
    return "\n".join(lines)


NUMERIC_OPTIONS = ("numjobs", "bs", "runtime", "rwmixread", "rate_iops", "fsync", "thinktime")


@pytest.mark.parametrize(
    "line", ["kb_base=4k", "kb_base=", "bs=", "rw=", *(f"{k}={v}" for k in NUMERIC_OPTIONS for v in ("9" * 5000, "²"))]
)
def test_odd_job_values_are_one_line(line: str) -> None:
    """Values a nightly run found (kb_base=4k, thousands of digits, "²" were ValueError tracebacks)."""
    try:
        parse_job_file(f"[j]\n{line}\n", source="mine.fio")
    except PlanError as exc:
        assert exc.message.startswith("mine.fio") and "\n" not in exc.message


_JOB_PLAN = example_pod()
_JOB_GEOMETRY = geometry_for_speed(_JOB_PLAN)


@settings(FUZZ, max_examples=EXAMPLES or 300)
@given(job_files())
def test_job_files(text: str) -> None:
    """`podplan predict --job`: the reader, then the prediction of every section it accepts."""
    try:
        jobs = parse_job_file(text, source="fuzz.fio")
    except PlanError as exc:
        assert exc.message and "\n" not in exc.message
        return
    for p in predict(_JOB_PLAN, _JOB_GEOMETRY, jobs.workloads):
        assert math.isfinite(p.mb_s) and math.isfinite(p.iops), p


# --- the TUI's form ------------------------------------------------------------------------------
_FORM_BASE = example_pod()
_FORM_VALUES = values_from_plan(_FORM_BASE)
form_text = st.one_of(
    st.sampled_from(
        [
            "",
            "0",
            "-1",
            "1",
            "4",
            "6",
            "10",
            "512",
            "4096",
            "2TB",
            "512K",
            "1.8TiB",
            "inf",
            "nan",
            "1e400",
            "9" * 5000,
            "abc",
            " ",
            "a b",
            "/srv/x",
            "xfs",
            "ext4",
            "striped",
            "none",
            "n2",
        ]
    ),
    st.text(max_size=10),
)


@settings(FUZZ, max_examples=EXAMPLES or 300)
@given(st.dictionaries(st.sampled_from(FIELDS), form_text, min_size=1, max_size=4))
def test_form_fields(changes: dict[str, str]) -> None:
    """Any form field set to any string: figures, or an error on a field the form shows."""
    try:
        compute_form(_FORM_BASE, {**_FORM_VALUES, **changes})
    except FormError as exc:
        assert exc.field in FIELDS, (exc.field, exc.message)
        assert exc.message and "\n" not in exc.message


@pytest.mark.parametrize("field", FIELDS)
def test_every_form_field_at_its_edges(field: str) -> None:
    for text in ["", "abc", "inf", "-inf", "nan", "1e400", "9" * 400, "9" * 5000, "-1", "0", " ", "²", "٣"]:
        try:
            compute_form(_FORM_BASE, {**_FORM_VALUES, field: text})
        except FormError as exc:
            assert exc.field in FIELDS, (field, text, exc.field, exc.message)
