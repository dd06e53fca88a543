"""Run a batch of scenarios in one boot and bring back each one's outputs.

The host makes one sparse file per scenario disk plus a jobs disk (a tar the guest
unpacks) and a results disk (a tar the guest writes before powering off), boots, and
reads the results tar back. Everything it made is removed afterwards unless `keep_dir`
asks for the outputs to be kept.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import tarfile
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from planners.errors import PodplanError
from runners.exec import CommandError, run
from runners.lab.collect import LabCollection, parse_collection
from runners.lab.kit import Kit, cache_root, ensure_kit
from runners.lab.scenario import Scenario, check_batch, jobs_tar
from runners.lab.vm import AttachedDisk, BootOutcome, Mark, boot, panicked, qemu_argv

KVM_PROBE_TIMEOUT = 20.0


class LabError(PodplanError, RuntimeError):
    """The VM did not get through the batch: panic, hang, timeout or no results."""

    def __init__(self, message: str, outcome: BootOutcome | None = None):
        self.outcome = outcome
        self.stage = outcome.stage if outcome else "before boot"
        tail = outcome.tail() if outcome else ""
        super().__init__(
            f"{message} (stage reached: {self.stage})" + (f"\n--- console tail ---\n{tail}" if tail else "")
        )


class LabConfig(BaseModel):
    model_config = ConfigDict(frozen=True)

    accel: str = Field("auto", description="'auto' (KVM if a probe boot works, else TCG), 'kvm' or 'tcg'.")
    cpus: int = Field(2, ge=1, description="Guest CPUs, count.")
    memory_mib: int = Field(1536, ge=256, description="Guest memory in MiB (the initramfs alone takes ~300).")
    timeout_s: float = Field(900.0, gt=0, description="Hard limit on the whole VM run, in seconds.")
    results_bytes: int = Field(256 << 20, description="Size of the results disk, in bytes (sparse).")
    work_dir: str | None = Field(None, description="Where disk images go (default: the system's temp directory).")


class ScenarioResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str = Field(description="Scenario name.")
    returncode: int | None = Field(description="The script's exit status (124: its timeout ran out); None: never ran.")
    stdout: str = Field("", description="The script's standard output.")
    stderr: str = Field("", description="The script's standard error.")
    script_s: float | None = Field(None, description="Guest time the script ran, in seconds.")
    total_s: float | None = Field(None, description="Guest time for script, collection and teardown, in seconds.")
    outputs: dict[str, str] = Field(default_factory=dict, description="Every file the scenario left, path -> text.")
    collection: LabCollection | None = Field(None, description="The parsed collection; None if none was made.")
    collection_error: str = Field("", description="Why the collection could not be parsed, if it could not.")

    @property
    def ok(self) -> bool:
        return self.returncode == 0

    @property
    def prepare_rc(self) -> int | None:
        """Exit status of the scenario's prepare script; None if it had none."""
        rc = self.outputs.get("prepare_rc", "").strip()
        return int(rc) if rc.lstrip("-").isdigit() else None

    @property
    def disks_unchanged(self) -> bool | None:
        """Whether the script left every disk's signature and first and last MiB as it found them.

        None when the scenario did not ask for fingerprints.
        """
        before, after = self.outputs.get("disks.before"), self.outputs.get("disks.after")
        if before is None or after is None:
            return None
        return before == after


class BatchResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    scenarios: tuple[ScenarioResult, ...] = Field(description="One result per scenario, in batch order.")
    accel: str = Field(description="'kvm' or 'tcg', as used.")
    kit: Kit = Field(description="The kit that booted.")
    boot: BootOutcome = Field(description="The VM run: console, markers, times.")
    files: dict[str, str] = Field(default_factory=dict, description="Batch-wide outputs (versions, dmesg).")

    def scenario(self, name: str) -> ScenarioResult:
        return next(s for s in self.scenarios if s.name == name)

    def failure_report(self, name: str, lines: int = 20) -> str:
        """What to show when a scenario failed: its status, the stage it reached, its last output."""
        scen = self.scenario(name)
        events = [m.text for m in self.boot.marks if m.kind == "scenario" and m.text.split()[0] == name]
        output = [
            m.text.split(": ", 1)[-1] for m in self.boot.marks if m.kind == "out" and m.text.startswith(name + ":")
        ]
        status = "never ran" if scen.returncode is None else f"exit status {scen.returncode}"
        if scen.returncode == 124:
            status += " (its time limit ran out)"
        parts = [f"scenario {name}: {status}; last event: {events[-1] if events else 'none'}"]
        if output:
            parts += ["--- last output ---", *output[-lines:]]
        if scen.stderr.strip():
            parts += ["--- stderr ---", *scen.stderr.strip().splitlines()[-lines:]]
        return "\n".join(parts)

    @property
    def init_s(self) -> float | None:
        """Host seconds from qemu's start to the guest's /init."""
        return self.boot.first_seen("stage", "init")

    @property
    def disks_ready_s(self) -> float | None:
        return self.boot.first_seen("stage", "disks-ready")


def _accel_cache_key(kit: Kit) -> str:
    qemu = run(["qemu-system-x86_64", "--version"], timeout=30).stdout.splitlines()[0]
    return f"{os.uname().release}|{qemu}|{kit.manifest.kernel_release}"


def choose_accel(kit: Kit, wanted: str = "auto", work_dir: str | None = None) -> str:
    """KVM if asked or if a short probe boot reaches /init under it; TCG otherwise. Cached per host."""
    if wanted in ("kvm", "tcg"):
        return wanted
    if not os.access("/dev/kvm", os.R_OK | os.W_OK):
        return "tcg"
    cache = cache_root() / "accel.json"
    key = _accel_cache_key(kit)
    try:
        known = json.loads(cache.read_text())
    except (OSError, ValueError):
        known = {}
    if key in known:
        return known[key]
    with tempfile.TemporaryDirectory(dir=work_dir, prefix="podplan-kvm-") as tmp:
        console = os.path.join(tmp, "console")
        argv = qemu_argv(
            vmlinux=kit.vmlinux,
            initrd=kit.initrd,
            console=console,
            accel="kvm",
            cpus=1,
            memory_mib=1024,
            disks=[],
            jobs=None,
            results=None,
            cmdline=["podplan.probe"],
        )
        out = boot(argv, console, timeout=KVM_PROBE_TIMEOUT)
    accel = "kvm" if any(m.text.startswith("probe-ok") for m in out.marks) else "tcg"
    known[key] = accel
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text(json.dumps(known, indent=1))
    return accel


def _sparse(path: str, size: int) -> str:
    with open(path, "wb") as f:
        f.truncate(size)
    return path


def _image(folder: str, serial: str, size: int) -> str:
    """A disk image: kept as it is when an earlier boot left one of this size."""
    path = os.path.join(folder, f"{serial}.img")
    if os.path.exists(path) and os.path.getsize(path) == size:
        return path
    return _sparse(path, size)


def _read_results(image: str) -> dict[str, bytes]:
    with open(image, "rb") as f:
        head = f.read(512)
    if not head.strip(b"\0"):
        return {}
    out = {}
    with tarfile.open(image, mode="r:") as tar:
        for member in tar:
            if member.isfile():
                data = tar.extractfile(member)
                out[member.name.removeprefix("./")] = data.read() if data else b""
    return out


def _times(text: str) -> dict[str, float]:
    return {k: float(v) for k, v in (p.split("=", 1) for p in text.split() if "=" in p)}


def _scenario_result(s: Scenario, files: dict[str, bytes]) -> ScenarioResult:
    prefix = f"scenarios/{s.name}/"
    mine = {k[len(prefix) :]: v.decode(errors="replace") for k, v in files.items() if k.startswith(prefix)}
    if not mine:
        return ScenarioResult(name=s.name, returncode=None)
    rc = mine.get("rc", "").strip()
    times = _times(mine.get("times", ""))
    collection, error = None, ""
    if s.collect:
        try:
            collection = parse_collection(
                {k[len("collect/") :]: v for k, v in mine.items() if k.startswith("collect/")}
            )
        except (ValueError, KeyError) as exc:
            error = str(exc)
    return ScenarioResult(
        name=s.name,
        returncode=int(rc) if rc.lstrip("-").isdigit() else None,
        stdout=mine.get("stdout", ""),
        stderr=mine.get("stderr", ""),
        script_s=round(times["script_end"] - times["start"], 2) if {"start", "script_end"} <= times.keys() else None,
        total_s=round(times["end"] - times["start"], 2) if {"start", "end"} <= times.keys() else None,
        outputs=mine,
        collection=collection,
        collection_error=error,
    )


def run_batch(
    scenarios: Sequence[Scenario],
    *,
    kit: Kit | None = None,
    config: LabConfig = LabConfig(),
    on_mark: Callable[[Mark], None] | None = None,
    keep_dir: str | None = None,
    disk_dir: str | None = None,
) -> BatchResult:
    """Boot once, run every scenario in order, return what each left. Raises LabError if the VM fails.

    With `disk_dir` the scenarios' disk images live there and outlast the boot: a later batch
    whose scenarios have the same names and disks boots on what this one left (a crash and a
    reboot, in two calls).
    """
    check_batch(scenarios)
    kit = kit or ensure_kit()
    accel = choose_accel(kit, config.accel, config.work_dir)
    tmp = tempfile.mkdtemp(dir=config.work_dir, prefix="podplan-lab-")
    try:
        disks = [
            AttachedDisk(_image(disk_dir or tmp, s.serial(i), d.size_bytes), s.serial(i), d)
            for s in scenarios
            for i, d in enumerate(s.disks)
        ]
        jobs = os.path.join(tmp, "jobs.img")
        Path(jobs).write_bytes(jobs_tar(scenarios))
        results = _sparse(os.path.join(tmp, "results.img"), config.results_bytes)
        console = os.path.join(tmp, "console.log")
        argv = qemu_argv(
            vmlinux=kit.vmlinux,
            initrd=kit.initrd,
            console=console,
            accel=accel,
            cpus=config.cpus,
            memory_mib=config.memory_mib,
            disks=disks,
            jobs=jobs,
            results=results,
        )
        outcome = boot(argv, console, timeout=config.timeout_s, on_mark=on_mark)
        if keep_dir:
            os.makedirs(keep_dir, exist_ok=True)
            shutil.copy(console, os.path.join(keep_dir, "console.log"))
        if outcome.timed_out:
            raise LabError(f"the VM ran past its {config.timeout_s:g} s limit and was stopped", outcome)
        if panicked(outcome.console):
            raise LabError("the guest kernel panicked", outcome)
        if not any(m.kind == "stage" and m.text.startswith("results-written") for m in outcome.marks):
            raise LabError(
                "the guest wrote no results"
                + (f"; qemu said: {outcome.stderr.strip()}" if outcome.stderr.strip() else ""),
                outcome,
            )
        try:
            files = _read_results(results)
        except tarfile.TarError as exc:
            raise LabError(f"the results disk holds no readable tar ({exc})", outcome) from None
        if keep_dir:
            with tarfile.open(fileobj=io.BytesIO(Path(results).read_bytes()), mode="r:") as tar:
                tar.extractall(keep_dir, filter="data")
        batch_files = {k: v.decode(errors="replace") for k, v in files.items() if not k.startswith("scenarios/")}
        return BatchResult(
            scenarios=tuple(_scenario_result(s, files) for s in scenarios),
            accel=accel,
            kit=kit,
            boot=outcome,
            files=batch_files,
        )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def require_qemu() -> None:
    """Raise CommandError in the house style when qemu is absent."""
    run(["qemu-system-x86_64", "--version"], timeout=30)


__all__ = ["BatchResult", "CommandError", "LabConfig", "LabError", "ScenarioResult", "choose_accel", "run_batch"]
