"""`podplan rehearse`: the plan's build script on virtual disks, and predicted | actual | match."""

from __future__ import annotations

import json
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from app.shared.console import cli_console
from planners.errors import PlanError
from planners.models import Plan
from planners.units import format_bytes_binary

EXIT_OK, EXIT_MISMATCH = 0, 1

# Build-script step headers (and lab marks) -> the rehearsal stage a person follows.
STAGES = (
    ("== check every device", "guards"),
    ("== create /dev/md", "create"),
    ("== LVM", "lvm"),
    ("== filesystem", "mkfs"),
    ("== mount", "mount"),
    ("== readahead", "tuning"),
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


class _Progress:
    """One line per stage on stderr, with the time since the rehearsal started."""

    def __init__(self, console: Console, quiet: bool):
        self.console = console
        self.quiet = quiet
        self.t0 = time.monotonic()
        self.stage = "kit"
        self.seen: set[str] = set()

    def enter(self, stage: str, detail: str = "") -> None:
        self.stage = stage
        if stage in self.seen or self.quiet:
            return
        self.seen.add(stage)
        self.console.print(f"[dim]{time.monotonic() - self.t0:6.1f}s[/dim] {stage:<8} {detail}")

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


def start_lab(rebuild_kit: bool):
    """The boot kit (built on first use), with a progress printer and the guest's tool versions."""
    from runners.lab import KitError, ensure_kit
    from runners.lab.rehearse import rehearsal_tools

    err = cli_console(stderr=True)
    progress = _Progress(err, quiet=False)
    progress.enter("kit", "checking the boot kit (first run downloads and builds it)")
    try:
        kit = ensure_kit(rebuild=rebuild_kit)
    except KitError as exc:
        raise PlanError(f"cannot build the VM boot kit: {exc}") from None
    return err, progress, kit, rehearsal_tools(kit.manifest.kernel_release)


def boot_scenario(scenario, kit, progress: _Progress, err: Console, keep: str | None, timeout_s: float):
    """Keep the scenario's files if asked, boot, and return (batch, the scenario's result); None when
    the VM itself failed (said on stderr)."""
    from runners.lab import LabConfig, LabError, run_batch

    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        for name, text in scenario.files.items():
            (Path(keep) / name).write_text(text)
    try:
        batch = run_batch(
            [scenario], kit=kit, config=LabConfig(timeout_s=timeout_s), on_mark=progress.on_mark, keep_dir=keep
        )
    except LabError as exc:
        err.print(f"[red]podplan: the VM failed during stage {progress.stage}: {exc}[/red]")
        return None
    return batch, batch.scenario(scenario.name)


def rehearse(plan: Plan, *, disk_size: int | None, as_json: bool, keep: str | None, rebuild_kit: bool = False) -> int:
    from runners.lab.rehearse import compare, prepare

    err, progress, kit, tools = start_lab(rebuild_kit)
    scenario, scaled, result = prepare(plan, disk_size, tools=tools)
    size = max(d.size for d in scaled.disk_list())
    progress.enter(
        "plan",
        f"{len(scenario.disks)} virtual disks, largest {format_bytes_binary(size)}; "
        f"Linux {kit.manifest.kernel_release}",
    )
    booted = boot_scenario(scenario, kit, progress, err, keep, 900.0)
    if booted is None:
        return EXIT_MISMATCH
    batch, run = booted
    if run.collection is None:
        err.print(
            f"[red]podplan: nothing was collected ({run.collection_error or 'the scenario did not finish'})[/red]"
        )
        return EXIT_MISMATCH
    checks = compare(scaled, result, run.collection)
    ok = run.returncode == 0 and all(c.match for c in checks)
    if as_json:
        doc = {
            "all_match": ok,
            "script_exit_status": run.returncode,
            "disk_bytes": [d.size for d in scaled.disk_list()],
            "kernel": kit.manifest.kernel_release,
            "boot_seconds": batch.disks_ready_s,
            "script_seconds": run.script_s,
            "checks": [{**c.model_dump(), "match": c.match} for c in checks],
        }
        print(json.dumps(doc, indent=2))
    else:
        _print_table(checks)
    if run.returncode != 0:
        err.print(
            f"[red]podplan: the build script exited with status {run.returncode} during stage {progress.stage}:[/red]"
        )
        err.print("\n".join(run.stderr.strip().splitlines()[-5:]))
    bad = sum(not c.match for c in checks)
    if not as_json:
        verdict = "[green]all match[/green]" if ok else f"[red]{bad} mismatch(es)[/red]"
        err.print(
            f"{len(checks)} figures compared: {verdict}; disks ready after {batch.disks_ready_s or 0:.1f} s, "
            f"script and resync took {run.script_s or 0:.1f} s"
        )
    if keep:
        (Path(keep) / "checks.json").write_text(
            json.dumps([{**c.model_dump(), "match": c.match} for c in checks], indent=2)
        )
    return EXIT_OK if ok else EXIT_MISMATCH


def _print_table(checks) -> None:
    t = Table(title="Rehearsal: predicted | actual", title_justify="left")
    t.add_column("layer")
    t.add_column("figure")
    t.add_column("predicted", justify="right")
    t.add_column("actual", justify="right")
    t.add_column("match")
    for c in checks:
        t.add_row(
            c.layer,
            c.figure,
            str(c.predicted),
            "-" if c.actual is None else str(c.actual),
            "[green]yes[/green]" if c.match else "[bold red]NO[/bold red]",
        )
    cli_console().print(t)
