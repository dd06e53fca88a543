"""A rehearsal in the VM lab, of any kind: the build script on virtual disks (build), then a failed
member, the degraded array and its rebuild (fail), or the grow script on the old pod (grow).

Each kind is one pipeline: refuse what cannot be rehearsed before anything is built, check the boot
kit, prepare the scenario, keep its files if asked, boot, compare every figure with the plan's.
Only the preparation and the comparison differ by kind. The stages the VM passes are reported as
typed events; the outcome carries the figures compared and what the run said.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from planners.errors import PlanError
from planners.models import Plan
from planners.units import format_bytes_binary

if TYPE_CHECKING:  # the lab is loaded when a rehearsal runs, not when a front end names its verdicts
    from runners.lab.failure import FailureCheck as FailureCheck

Kind = Literal["build", "fail", "grow"]

# Build-script step headers (and lab marks) -> the rehearsal stage a person follows.
STAGES = (
    ("== check every device", "guards"),
    ("== create /dev/md", "create"),
    ("== LVM", "lvm"),
    ("== filesystem", "mkfs"),
    ("== mount", "mount"),
    ("== readahead", "tuning"),
    ("== tuning", "tuning"),
    ("== wait for the md resync", "resync"),
    ("== measure one disk", "baseline"),
    ("== write ", "data"),
    ("== fail ", "fail"),
    ("== rebuild onto", "rebuild"),
    ("== rebuild one member again", "loaded"),
    ("== build the old pod", "build"),
    ("== grow with the grow script", "grow"),
    ("== check the data", "verify"),
)


@dataclass(frozen=True)
class RehearseRequest:
    """What to rehearse, on virtual disks scaled down from the plan's."""

    plan: Plan
    """The plan built (for grow: the pod as it stands before growing)."""
    kind: Kind = "build"
    disk_size: int | None = None
    """Size of the largest virtual disk, in bytes (None: small but enough)."""
    keep: str | None = None
    """Keep the scenario's files, the console log and checks.json in this directory."""
    rebuild_kit: bool = False
    """Rebuild the VM boot kit even if the cached one is current."""
    fail: int = 0
    """fail: how many members of one array fail while data is written."""
    group: str | None = None
    """fail: the md array to fail (None: the first)."""
    grown: Plan | None = None
    """grow: the layout the grow script takes the pod to."""


@dataclass(frozen=True)
class StageEntered:
    """The rehearsal reached a stage a person follows (kit, boot, disks, plan, create, ... verify)."""

    stage: str
    detail: str
    elapsed_s: float
    """Seconds since the rehearsal started."""


@dataclass(frozen=True)
class Rehearsal:
    """What a rehearsal found: each figure predicted beside the one the VM reported."""

    kind: Kind
    stage: str
    """The last stage entered: where a failure happened."""
    kernel: str = ""
    """The guest kernel's release."""
    disk_bytes: tuple[int, ...] = ()
    """The virtual disks' sizes, in bytes."""
    vm_error: str = ""
    """The VM itself failed (it did not boot, or timed out); nothing was compared."""
    not_collected: str = ""
    """Why the scenario reported nothing to compare; '' when it did."""
    checks: tuple[Any, ...] = ()
    """One per figure compared (the lab's check models: layer or figure, predicted, actual, match)."""
    script_exit_status: int | None = None
    stdout: str = ""
    stderr: str = ""
    boot_s: float | None = None
    """build: seconds until the disks were ready."""
    script_s: float | None = None
    """Seconds the script took (with the resync)."""
    facts: dict[str, Any] = field(default_factory=dict)
    """What this kind adds: fail: group, failed, disk_bytes_per_s; grow: mode, grow_s (as recorded)."""

    @property
    def ok(self) -> bool:
        return (
            not self.vm_error
            and not self.not_collected
            and self.script_exit_status == 0
            and all(c.match for c in self.checks if c.witnessed)
        )

    @property
    def rows(self) -> list[dict[str, Any]]:
        """Each check as checks.json and --json write it."""
        return [{**c.model_dump(), "match": c.match, "witnessed": c.witnessed} for c in self.checks]


Listener = Callable[[StageEntered], None]


class _Stages:
    """The stage the rehearsal is in, each new one reported once with the time since the start."""

    def __init__(self, emit: Listener):
        self.emit = emit
        self.t0 = time.monotonic()
        self.stage = "kit"
        self.seen: set[str] = set()

    def enter(self, stage: str, detail: str = "") -> None:
        self.stage = stage
        if stage not in self.seen:
            self.seen.add(stage)
            self.emit(StageEntered(stage, detail, time.monotonic() - self.t0))

    def on_mark(self, mark) -> None:
        if mark.kind == "stage":
            if mark.text.startswith("init"):
                self.enter("boot", "kernel reached /init")
            elif mark.text.startswith("disks-ready"):
                self.enter("disks", mark.text.split(" ", 1)[-1])
        elif mark.kind == "scenario" and mark.text.endswith(" collect"):
            self.enter("checks", "collecting what mdadm, LVM and the filesystem report")
        elif mark.kind == "out":
            line = mark.text.split(" ", 1)[-1]
            for prefix, stage in STAGES:
                if line.startswith(prefix):
                    self.enter(stage, line[3:])


@dataclass(frozen=True)
class _Prepared:
    """One kind's scenario, ready to boot, and how to read its run."""

    scenario: Any
    disks: tuple[int, ...]
    detail: str
    timeout_s: float
    compare: Callable[[Any], tuple[tuple[Any, ...], str]]
    """The run -> (checks, why nothing was collected or '')."""
    facts: Callable[[Any], dict[str, Any]] = lambda run: {}


def _build(req: RehearseRequest, tools: Any) -> _Prepared:
    from runners.lab.rehearse import compare, prepare

    scenario, scaled, result = prepare(req.plan, req.disk_size, tools=tools)
    disks = tuple(d.size for d in scaled.disk_list())

    def checks(run: Any) -> tuple[tuple[Any, ...], str]:
        if run.collection is None:
            return (), run.collection_error or "the scenario did not finish"
        return tuple(compare(scaled, result, run.collection)), ""

    detail = f"{len(scenario.disks)} virtual disks, largest {format_bytes_binary(max(disks))}"
    return _Prepared(scenario, disks, detail, 900.0, checks)


def _fail(req: RehearseRequest, tools: Any) -> _Prepared:
    from runners.lab.failure import DISK_BPS, compare_failure, prepare_failure

    scenario, scaled, fp = prepare_failure(req.plan, req.fail, group=req.group, disk_size=req.disk_size, tools=tools)
    disks = tuple(d.size for d in scaled.disk_list())
    detail = (
        f"{len(scenario.disks)} virtual disks of up to {format_bytes_binary(max(disks))} at "
        f"{DISK_BPS / 1e6:g} MB/s each; {fp.group} loses {fp.fail} member(s)"
    )
    return _Prepared(
        scenario,
        disks,
        detail,
        1800.0,
        lambda run: (tuple(compare_failure(scaled, fp, run)[0]), ""),
        lambda run: {"group": fp.group, "failed": fp.fail, "disk_bytes_per_s": DISK_BPS},
    )


def _grow(req: RehearseRequest, tools: Any) -> _Prepared:
    from runners.lab.growth import compare_growth, prepare_growth, records

    assert req.grown is not None
    scenario, scaled_old, scaled_new, growth = prepare_growth(req.plan, req.grown, disk_size=req.disk_size, tools=tools)
    disks = tuple(d.size for d in scaled_new.disk_list())

    def checks(run: Any) -> tuple[tuple[Any, ...], str]:
        if run.collection is None:
            return (), run.collection_error or "the scenario did not finish"
        return tuple(compare_growth(scaled_new, growth, run.collection, run.outputs)), ""

    detail = (
        f"{len(scenario.disks)} virtual disks of up to {format_bytes_binary(max(disks))}, "
        f"{len(scaled_old.disk_list())} for the old pod; {growth.mode}"
    )
    return _Prepared(
        scenario,
        disks,
        detail,
        1800.0,
        checks,
        lambda run: {"mode": growth.mode, "grow_s": records(run.outputs).get("grow_s")},
    )


_KINDS: dict[Kind, Callable[[RehearseRequest, Any], _Prepared]] = {"build": _build, "fail": _fail, "grow": _grow}


def refuse(req: RehearseRequest) -> None:
    """What cannot be rehearsed is refused (PlanError) before the kit is checked or anything is built."""
    from planners.lvm.volumes import one_volume_only

    one_volume_only(req.plan, "rehearse")
    if req.kind == "fail":
        from planners.reliability.failure import failure_plan

        failure_plan(req.plan, req.fail, req.group)  # a plan that cannot survive the failure
    elif req.kind == "grow":
        from planners.grow import growth_between

        if req.grown is None:
            raise PlanError("a growth rehearsal needs the grown plan", "grow")
        growth_between(req.plan, req.grown)  # a growth podplan cannot plan


def rehearse(req: RehearseRequest, on_stage: Listener | None = None) -> Rehearsal:
    """Boot a throwaway VM with the kind's scenario and compare every figure it reports with the plan's."""
    from runners.lab import KitError, LabConfig, LabError, ensure_kit, run_batch
    from runners.lab.rehearse import rehearsal_tools

    refuse(req)
    if req.keep:
        from runners.files import make_run_dir

        make_run_dir(
            req.keep, forceable=False
        )  # before the kit's minutes: a DIR holding files (or a link) is refused now
    stages = _Stages(on_stage or (lambda _e: None))
    stages.enter("kit", "checking the boot kit (first run downloads and builds it)")
    try:
        kit = ensure_kit(rebuild=req.rebuild_kit)
    except KitError as exc:
        raise PlanError(f"cannot build the VM boot kit: {exc}") from None
    kernel = kit.manifest.kernel_release
    prepared = _KINDS[req.kind](req, rehearsal_tools(kernel))
    stages.enter("plan", f"{prepared.detail}; Linux {kernel}")
    scenario = prepared.scenario
    if req.keep:
        from runners.files import write_text

        for name, text in scenario.files.items():
            write_text(Path(req.keep) / name, text)
    try:
        batch = run_batch(
            [scenario],
            kit=kit,
            config=LabConfig(timeout_s=prepared.timeout_s),
            on_mark=stages.on_mark,
            keep_dir=req.keep,
        )
    except LabError as exc:
        return Rehearsal(req.kind, stages.stage, kernel, prepared.disks, vm_error=str(exc))
    run = batch.scenario(scenario.name)
    checks, not_collected = prepared.compare(run)
    out = Rehearsal(
        req.kind,
        stages.stage,
        kernel,
        prepared.disks,
        not_collected=not_collected,
        checks=checks,
        script_exit_status=run.returncode,
        stdout=run.stdout,
        stderr=run.stderr,
        boot_s=batch.disks_ready_s,
        script_s=run.script_s,
        facts=prepared.facts(run),
    )
    if req.keep and not not_collected:
        from runners.files import write_text

        write_text(Path(req.keep) / "checks.json", json.dumps(out.rows, indent=2))
    return out
