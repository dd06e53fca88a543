"""check and validate against real arrays built by podplan's script under a real kernel.

One boot, two scenarios: a RAID6 + LVM + XFS pod built exactly as planned (check finds no
difference; the suite's own job files run with plain fio on the LV and on the mounted
filesystem), and a deliberately wrong build -- a 64 KiB chunk where the plan says 512 KiB,
and ext4 with its stripe_width removed -- which check must catch, each with a consequence.
The first scenario's lsblk, mdstat (mid-resync) and mdadm output are kept as fixtures.
"""

from __future__ import annotations

import functools
import os
import pathlib

import pytest

from planners.built.asbuilt import differences
from planners.built.rehearsal import scale_plan
from planners.compute import compute
from planners.models import DiskSet, Filesystem, Lvm, MdGroup, Plan
from planners.script.build import build_script
from planners.units import KiB, MiB
from runners.fio.jobs import Target, Timing, suite
from runners.fio.result import parse_output
from runners.host.inventory import parse_lsblk, parse_mdstat
from runners.lab import ensure_kit
from runners.lab.rehearse import compare, prepare, rehearsal_tools
from runners.validate.shape import shape_of_plan
from tests.lab_helpers import shared_batch, skip_unless_lab

pytestmark = pytest.mark.slow

skip_unless_lab()

FIXTURES = pathlib.Path(__file__).parent / "fixtures" / "inventory"
LAB_TIMING = Timing(runtime_s=4, ss_duration_s=2, ss_ramp_s=0, ss_slope_pct=5.0)


def _plan(fs: str, chunk: int) -> Plan:
    return Plan(
        name="pod",
        disks=[DiskSet(count=8, size=1 << 40)],
        groups=[MdGroup(level=6, members=8, chunk=chunk)],
        lvm=Lvm(enabled=True, vg="pod", lv="data"),
        filesystem=Filesystem(type=fs, mount_point="/srv/pod"),
    )


# Runs the build, keeps what the inventory parsers need while md still resyncs, then the suite.
WRAPPER = """\
set -u
bash ./build.sh "$@"
rc=$?
cat /proc/mdstat >"$PODPLAN_OUT/mdstat_resync.txt"
lsblk -J -b -O >"$PODPLAN_OUT/lsblk.json"
for md in /dev/md/*; do mdadm --detail --export "$md" >"$PODPLAN_OUT/md_export.txt"; mdadm --wait "$md"; done
for j in *.fio; do fio --output-format=json --output="$PODPLAN_OUT/${j%.fio}.json" "$j" >/dev/null 2>&1; done
rm -f /srv/pod/.podplan-fio.dat  # as the runner does: the suite leaves no file behind
{AFTER}
exit $rc
"""


def _jobs(plan: Plan) -> dict[str, str]:
    shape = shape_of_plan(plan)
    files = {}
    lv = Target(path="/dev/pod/data", kind="device", size_bytes=64 * MiB)
    for w in suite(lv, shape, LAB_TIMING, ("seq-read", "rand-read-4k")):
        files[f"dev-{w.name}.fio"] = w.job.text
    fs = Target(path="/srv/pod/.podplan-fio.dat", kind="file", size_bytes=64 * MiB)
    for w in suite(fs, shape, LAB_TIMING):
        files[f"fs-{w.name}.fio"] = w.job.text
    return files


LAB_TIMEOUT_S = 1200.0


def lab_scenarios(kit) -> list:  # type: ignore[no-untyped-def]
    """The pod as planned, and the wrong build (tests/lab_helpers.BOOTS)."""
    return list(_prepared(kit.manifest.kernel_release)[0])


@functools.cache
def _prepared(kernel_release: str):  # type: ignore[no-untyped-def]
    tools = rehearsal_tools(kernel_release)
    right = _plan("xfs", 512 * KiB)
    good, good_plan, good_result = prepare(right, name="asbuilt", tools=tools)
    good = good.model_copy(
        update={"script": WRAPPER.replace("{AFTER}", ""), "files": {**good.files, **_jobs(good_plan)}}
    )
    # The wrong build: the plan says 512 KiB chunks and ext4 with a stripe; built with 64 KiB, stripe_width cleared.
    wrong, wrong_plan, wrong_result = prepare(_plan("ext4", 512 * KiB), name="wrongbuild", tools=tools)
    built = scale_plan(
        _plan("ext4", 64 * KiB), wrong.disks[0].size_bytes, devices=list(wrong.disk_paths()), tools=tools
    )
    wrong = wrong.model_copy(
        update={
            "script": WRAPPER.replace("{AFTER}", "tune2fs -E stripe_width=0 /dev/pod/data >/dev/null"),
            "files": {"build.sh": build_script(built, compute(built))},
        }
    )
    return (good, wrong), (good_plan, good_result), (wrong_plan, wrong_result)


@pytest.fixture(scope="module")
def lab(request):
    _, good, wrong = _prepared(ensure_kit().manifest.kernel_release)
    return shared_batch(request), good, wrong


def test_as_built_pod_has_no_difference(lab):
    batch, (plan, result), _ = lab
    run = batch.scenario("asbuilt")
    assert run.returncode == 0, batch.failure_report("asbuilt")
    checks = compare(plan, result, run.collection)
    assert len(checks) >= 12
    assert differences((c.layer, c.figure, c.predicted, c.actual) for c in checks) == []


def test_suite_job_files_run_on_the_real_stack(lab):
    batch, _, _ = lab
    run = batch.scenario("asbuilt")
    names = [f"{p}-{w}" for p in ("dev",) for w in ("seq-read", "rand-read-4k")] + [
        f"fs-{w}" for w in ("seq-read", "seq-write", "rand-read-4k", "rand-write-4k")
    ]
    for n in names:
        r = parse_output(run.outputs[f"{n}.json"])
        assert r is not None and r.jobs[0].io_bytes > 0, n
        assert r.jobs[0].steady is not None, n


def test_wrong_build_is_caught_with_consequences(lab):
    batch, _, (plan, result) = lab
    run = batch.scenario("wrongbuild")
    assert run.returncode == 0, batch.failure_report("wrongbuild")
    diffs = differences((c.layer, c.figure, c.predicted, c.actual) for c in compare(plan, result, run.collection))
    figures = {d.figure: d for d in diffs}
    assert figures["md0 chunk (bytes)"].actual == 64 * KiB
    assert "read-modify-write" in figures["md0 chunk (bytes)"].consequence
    assert figures["ext stripe_width (blocks)"].actual == 0
    assert "stripe" in figures["ext stripe_width (blocks)"].consequence
    assert all(d.consequence and d.consequence != "differs from the plan" for d in diffs), diffs


def test_recorded_inventory_outputs_parse(lab):
    batch, _, _ = lab
    out = batch.scenario("asbuilt").outputs
    FIXTURES.mkdir(parents=True, exist_ok=True)
    for name in ("lsblk.json", "mdstat_resync.txt", "md_export.txt"):
        if os.environ.get("PODPLAN_RECORD") or not (FIXTURES / f"lab_{name}").exists():
            (FIXTURES / f"lab_{name}").write_text(out[name])
    disks = parse_lsblk(out["lsblk.json"])
    md = [d for d in disks if d.type == "raid6"]
    assert len(md) == 1 and md[0].io_opt == 6 * 512 * KiB
    assert sum(1 for d in disks if d.in_use_by.startswith("holds md")) == 8
    arrays = parse_mdstat(out["mdstat_resync.txt"])
    assert arrays[0].level == "raid6" and len(arrays[0].members) == 8
