"""Failure rehearsal: the pod built by its own script, members failed mid-write, the rebuild timed.

The plan is scaled down as for `podplan rehearse`; every disk is a throttled virtual disk of
known speed, so the model, fed with one disk measured in the same boot, predicts the degraded
array, the rebuild and the foreground under a rebuild. The guest side is guest/failure.sh.
"""

from __future__ import annotations

import shlex

from pydantic import BaseModel, ConfigDict, Field

from planners.built.rehearsal import choose_disk_size, scale_plan
from planners.compute import compute
from planners.hardware.disks import DiskPerf
from planners.models import Plan
from planners.reliability.failure import FailurePlan, FailurePrediction, failure_plan, failure_workload, predict_failure
from planners.script.build import build_script
from planners.versions import ToolVersions
from runners.lab.batch import ScenarioResult
from runners.lab.fio import parse_fio_json
from runners.lab.guest_files import guest_file
from runners.lab.scenario import LabDisk, Scenario

# Each virtual disk moves this much, reads and writes together, like the calibration lab's disks:
# slow enough that the emulated guest CPU never sets the pace, fast enough for a short rehearsal.
DISK_BPS = 4_000_000
DISK_IOPS = 200
RUNTIME_S = 3
RAMP_S = 1
DATA_MIB = 32
TOLERANCE = 0.25


class FailureCheck(BaseModel):
    """One predicted figure beside what the VM measured."""

    model_config = ConfigDict(frozen=True)

    figure: str = Field(description="What is compared.")
    predicted: float | str = Field(description="podplan's figure (with `low`: the top of a range).")
    low: float | None = Field(None, description="Bottom of the predicted range, where the model gives one.")
    actual: float | str | None = Field(description="What the VM measured; None if nothing.")
    tolerance: float = Field(0.0, description="Allowed |actual - predicted| / actual for numbers, fraction.")
    why: str = Field("", description="What limits the predicted figure.")

    @property
    def shown(self) -> str:
        if isinstance(self.predicted, str):
            return self.predicted
        if self.low is not None:
            return f"{self.low:,.2f} - {self.predicted:,.2f}"
        return f"{self.predicted:,.2f}"

    @property
    def witnessed(self) -> bool:
        """False for a band from 0: any measurement below its top falls in it, so it witnesses nothing."""
        return self.low is None or self.low > 0

    @property
    def match(self) -> bool:
        if self.actual is None or not self.witnessed:
            return False
        if isinstance(self.predicted, str) or isinstance(self.actual, str):
            return self.predicted == self.actual
        if self.low is not None:
            return self.low * (1 - self.tolerance) <= self.actual <= self.predicted * (1 + self.tolerance)
        return abs(self.actual - self.predicted) <= self.tolerance * abs(self.actual)


def prepare_failure(
    plan: Plan,
    fail: int,
    *,
    group: str | None = None,
    disk_size: int | None = None,
    tools: ToolVersions | None = None,
    name: str = "failure",
) -> tuple[Scenario, Plan, FailurePlan]:
    """The scenario, the scaled plan it builds and which members fail; refuses before any boot."""
    fp = failure_plan(plan, fail, group)
    size = disk_size or choose_disk_size(plan, tools)
    unscaled = scale_plan(plan, size, tools=tools)
    disk = {"bps_total": DISK_BPS, "iops_total": DISK_IOPS}
    own = [LabDisk.like(d, **disk) for d in unscaled.disk_list()]
    biggest = max(unscaled.disk_list(), key=lambda d: d.size)
    extra = [LabDisk.like(biggest, rotational=True, **disk) for _ in range(fp.replacements + 1)]  # + the probe disk
    probe = Scenario(name=name, script="", disks=tuple(own + extra))
    paths = probe.disk_paths()
    scaled = scale_plan(plan, size, devices=list(paths[: len(own)]), tools=tools)
    q = shlex.quote
    members = next(g for g in scaled.group_disks() if g[0].name == fp.group)[1]
    conf = (
        f"array={q(scaled.groups[[g.name for g in scaled.groups].index(fp.group)].device)}\n"
        f"fail=({' '.join(q(paths[i]) for i in fp.failed)})\n"
        f"replace=({' '.join(q(p) for p in paths[len(own) : -1])})\n"
        f"victim={q(members[-1].device)}\nprobe={q(paths[-1])}\n"
        f"mnt={q(compute(scaled).volumes[0].mount_point)}\ndata_mib={DATA_MIB}\n"
        f"speed_min={scaled.hardware.md.speed_limit_min_kib_s if scaled.hardware else 1000}\n"
        f"speed_max={scaled.hardware.md.speed_limit_max_kib_s if scaled.hardware else 200000}\n"
    )
    job = f"[global]\nramp_time={RAMP_S}\n\n" + failure_workload(scaled, fp).fio_job(runtime_s=RUNTIME_S)
    # Under a rebuild the foreground reads the half not yet rebuilt, as users' I/O mostly would:
    # at the rebuild's own front, reads would find freshly rebuilt stripes and race md's window.
    loaded = job + "offset=50%\n"
    scenario = Scenario(
        name=name,
        script=guest_file("failure.sh").decode(),
        disks=tuple(own + extra),
        files={
            "build.sh": build_script(scaled, compute(scaled)),
            "failure.conf": conf,
            "read.fio": job,
            "loaded.fio": loaded,
        },
        timeout_s=1200.0,
        collect=False,
    )
    return scenario, scaled, fp


def _mb_s(run: ScenarioResult, name: str) -> float | None:
    """The read's MB/s; of a read run twice, the faster: the lab's emulated CPU shares the host with
    other work, which only ever slows a run, while the disks' throttle is the same both times."""
    runs = [run.outputs.get(f"{n}.json") for n in (name, f"{name}.again")]
    rates = [parse_fio_json(text)["jobs"][0]["read"]["bw_bytes"] / 1e6 for text in runs if text]
    return max(rates) if rates else None


def measured(run: ScenarioResult) -> dict[str, str]:
    """failure.txt's key=value records."""
    out = {}
    for line in run.outputs.get("failure.txt", "").splitlines():
        key, _, value = line.partition("=")
        out[key] = value.strip()
    return out


def base_disk(run: ScenarioResult) -> DiskPerf | None:
    """The probe disk as the model's input; its throttle holds reads and writes alike."""
    mb_s = _mb_s(run, "base")
    if mb_s is None:
        return None
    iops = float(DISK_IOPS)
    return DiskPerf(seq_read_mb_s=mb_s, seq_write_mb_s=mb_s, rand_read_iops=iops, rand_write_iops=iops)


def compare_failure(
    plan: Plan, fp: FailurePlan, run: ScenarioResult
) -> tuple[list[FailureCheck], FailurePrediction | None]:
    disk = base_disk(run)
    if disk is None:
        return [FailureCheck(figure="one disk measured", predicted="yes", actual=None)], None
    got = measured(run)

    def num(key: str) -> float | None:
        try:
            return float(got[key])
        except (KeyError, ValueError):
            return None

    # fio's own start and finish take seconds in an emulated guest: the foreground lasted what it lasted.
    foreground_s = num("loaded_fio_s") or float(RUNTIME_S + RAMP_S)
    pred = predict_failure(plan, fp, disk, foreground_s=foreground_s)

    w, t = pred.workload, TOLERANCE
    spares = f"{fp.spares} hot spare(s)" if fp.spares else ""
    onto = " and ".join(x for x in (spares, f"{fp.replacements} new disk(s)" if fp.replacements else "") if x)
    rows = [
        FailureCheck(
            figure=f"{w} MB/s, every member present",
            predicted=pred.normal_mb_s,
            actual=_mb_s(run, "normal"),
            tolerance=t,
        ),
        FailureCheck(
            figure=f"writer survives {fp.fail} failure(s) mid-write", predicted="0", actual=got.get("writer_rc")
        ),
        FailureCheck(
            figure="members missing after the failure", predicted=str(fp.fail), actual=got.get("degraded_members")
        ),
        FailureCheck(figure="data intact, degraded", predicted="yes", actual=got.get("data_degraded")),
        FailureCheck(
            figure=f"{w} MB/s, degraded ({fp.fail} missing)",
            predicted=pred.degraded_mb_s,
            actual=_mb_s(run, "degraded"),
            tolerance=t,
            why=pred.degraded_binding,
        ),
        FailureCheck(
            figure=f"rebuild onto {onto}, no user I/O (s)",
            predicted=pred.rebuild_s,
            actual=num("rebuild_s"),
            tolerance=t,
            why=f"{pred.rebuild_binding} at {pred.rebuild_mb_s:.2f} MB/s per member",
        ),
        FailureCheck(figure="members missing after the rebuild", predicted="0", actual=got.get("degraded_after")),
        FailureCheck(figure="data intact, rebuilt", predicted="yes", actual=got.get("data_rebuilt")),
        FailureCheck(
            figure=f"{w} MB/s during a rebuild",
            predicted=pred.foreground_mb_s,
            low=0.0,
            actual=_mb_s(run, "loaded"),
            tolerance=t,
            why="at most: md gives way to user I/O down to speed_limit_min; how far it does depends on both queues",
        ),
        FailureCheck(
            figure=f"rebuild with {foreground_s:.1f} s of {w} at its start (s)",
            low=pred.rebuild_s,
            predicted=pred.loaded_rebuild_s,
            actual=num("loaded_rebuild_s"),
            tolerance=t,
            why="from no slowdown to speed_limit_min while the foreground runs",
        ),
        FailureCheck(figure="data intact at the end", predicted="yes", actual=got.get("data_final")),
    ]
    return rows, pred
