"""One real boot under qemu: a RAID5 with XFS, a fio run, a failing and an overrunning script.

Checks that the kit builds (or is cached), the guest finds its disks by serial, runs a
batch, and that the collected figures parse and agree with the md planner.
"""

import json
import os
import tempfile
import time

import pytest

from planners.md.geometry import md_geometry
from planners.units import KiB, MiB
from runners import transcript
from runners.lab import LabConfig, LabDisk, Scenario, ensure_kit, fio_scenario, run_batch, scenario_fio_json
from tests.lab_helpers import skip_unless_lab

pytestmark = pytest.mark.slow

skip_unless_lab()

# XFS refuses filesystems under 300 MB, so the members are 200 MiB (sparse: they cost nothing).
MEMBER = 200 * MiB
RAID5 = """set -e
mdadm --create /dev/md0 --run --level=5 --raid-devices=3 --chunk=64 --assume-clean --bitmap=none "$@"
mkfs.xfs -q /dev/md0
mkdir -p /mnt/r5
mount /dev/md0 /mnt/r5
df -B1 /mnt/r5
"""
# Stands in for a generated build script's guard: refuse members that carry a signature.
GUARD = """override=0
[ "$1" = --override ] && { override=1; shift; }
for d in "$@"; do
    if [ $override = 0 ] && [ -n "$(blkid -p -o value -s TYPE "$d")" ]; then echo "refusing $d" >&2; exit 3; fi
done
wipefs -q -a "$@"
mdadm --create /dev/md9 --run --level=1 --raid-devices=2 --bitmap=none "$@"
"""
FIO_JOB = """[seq]
ioengine=libaio
direct=1
filename=/dev/md0
rw=read
bs=256k
size=16m
"""


# The batch works in a folder of its own, so that other lab runs at the same time (a parallel
# suite) neither count as leftovers nor hide this one's.
WORK_DIR = ""


def _lab_dirs() -> set[str]:
    return {d for d in os.listdir(WORK_DIR) if d.startswith("podplan-lab-")}


@pytest.fixture(scope="module")
def batch():
    global _BEFORE, WORK_DIR
    WORK_DIR = tempfile.mkdtemp(prefix="podplan-boot-test-")
    _BEFORE = _lab_dirs()  # a run killed earlier may have left its own; those are not this run's
    started = time.monotonic()
    kit = ensure_kit()
    kit_s = time.monotonic() - started
    r5 = Scenario(name="r5", script=RAID5, disks=(LabDisk(size_bytes=MEMBER),) * 3)
    r5 = r5.model_copy(update={"args": r5.disk_paths()})
    fio = fio_scenario(
        "fio",
        (LabDisk(size_bytes=64 * MiB, iops_total=2000),) * 2,
        "mdadm --create /dev/md0 --run --level=0 --raid-devices=2 --chunk=64 $PODPLAN_DISKS",
        FIO_JOB,
        collect=False,
    )
    fails = Scenario(name="fails", script="echo before; exit 7", collect=False)
    slow = Scenario(name="slow", script="sleep 120", timeout_s=2, collect=False)
    seeded = dict(
        disks=(LabDisk(size_bytes=64 * MiB),) * 2, prepare='mkfs.ext4 -q "$2"', fingerprint=True, collect=False
    )
    guarded = Scenario(name="guarded", script=GUARD, **seeded)
    guarded = guarded.model_copy(update={"args": guarded.disk_paths()})
    overridden = Scenario(name="overridden", script=GUARD, **seeded)
    overridden = overridden.model_copy(update={"args": ("--override", *overridden.disk_paths())})
    # Figures and statuses, no speeds: one emulated CPU, as the lab's other such boots (tests/lab_helpers.BOOTS).
    result = run_batch(
        [r5, fio, fails, slow, guarded, overridden], kit=kit, config=LabConfig(timeout_s=240, work_dir=WORK_DIR, cpus=1)
    )
    print(
        f"\nkit {kit_s:.1f} s ({kit.manifest.initrd_bytes / MiB:.0f} MiB initramfs, "
        f"{kit.manifest.vmlinux_bytes / MiB:.0f} MiB kernel), accel {result.accel}, /init at {result.init_s} s, "
        f"disks ready at {result.disks_ready_s} s, VM total {result.boot.seconds} s; per scenario: "
        + ", ".join(f"{s.name} {s.total_s} s" for s in result.scenarios)
    )
    return result


def test_guest_reached_every_stage(batch):
    stages = [m.text.split()[0] for m in batch.boot.marks if m.kind == "stage"]
    assert stages[:4] == ["init", "modules", "disks-ready", "jobs"]
    assert "results-written" in stages
    assert batch.init_s is not None and batch.disks_ready_s >= batch.init_s
    assert "6.1.0" in batch.files["versions.txt"] and "mdadm - v4" in batch.files["versions.txt"]


def test_raid5_collected_and_matches_the_planner(batch):
    r5 = batch.scenario("r5")
    assert r5.ok, r5.stderr
    c = r5.collection
    assert c is not None, r5.collection_error
    md = c.md_array("md0")
    g = md_geometry([MEMBER] * 3, level=5, chunk_bytes=64 * KiB, bitmap="none")
    assert (md.level, md.chunk_bytes, md.raid_devices) == ("raid5", 64 * KiB, 3)
    assert md.array_bytes == g.array_bytes and md.component_bytes == g.component_bytes
    assert {m.data_offset_sectors for m in md.members} == {g.data_offset_sectors}
    assert (c.block["md0"].io_min, c.block["md0"].io_opt) == (g.io_min_bytes, g.io_opt_bytes)
    fs = c.filesystem("md0")
    assert fs.fstype == "xfs" and fs.mountpoint == "/mnt/r5"
    assert fs.xfs.data_blocks * fs.xfs.block_size <= md.array_bytes
    assert 0 < fs.df_avail < fs.df_size < md.array_bytes
    # The script's own df agrees with the collector's.
    assert str(fs.df_size) in r5.stdout


def test_fio_json_comes_back(batch):
    doc = scenario_fio_json(batch, "fio")
    (job,) = doc["jobs"]
    assert job["read"]["io_bytes"] == 16 * MiB and job["read"]["bw_bytes"] > 0


def test_failure_and_timeout_are_reported_per_scenario(batch):
    fails, slow = batch.scenario("fails"), batch.scenario("slow")
    assert fails.returncode == 7 and fails.stdout == "before\n" and not fails.ok
    assert slow.returncode == 124  # timeout(1)'s status: the scenario's own limit ran out
    assert slow.script_s < 30
    report = batch.failure_report("fails")
    assert "exit status 7" in report and "before" in report and "fails rc=7" in report
    assert "time limit" in batch.failure_report("slow")


def test_prepared_signature_stops_the_guard_and_disks_stay_untouched(batch):
    guarded, overridden = batch.scenario("guarded"), batch.scenario("overridden")
    assert guarded.prepare_rc == 0 and overridden.prepare_rc == 0
    assert guarded.returncode == 3 and "refusing" in guarded.stderr
    assert guarded.disks_unchanged is True
    assert "type=ext4" in guarded.outputs["disks.after"]
    assert overridden.returncode == 0, overridden.stderr
    assert overridden.disks_unchanged is False
    assert batch.scenario("fails").disks_unchanged is None


_BEFORE: set[str] = set()


def test_the_boot_is_in_the_transcript(batch):
    """qemu goes through the one door like every command: its run is in the transcript, with its argv
    (the kit, the disks), its duration and how it ended."""
    records = [json.loads(line) for line in transcript.path().read_text().splitlines()]
    boots = [r for r in records if os.path.basename(r["argv"][0]).startswith("qemu-system") and "-kernel" in r["argv"]]
    assert boots, f"no boot among {len(records)} records of {transcript.path()}"
    assert all(r["exit"] is not None and r["duration_s"] > 0 for r in boots)


def test_nothing_left_behind(batch):
    assert not _lab_dirs() - _BEFORE
    os.rmdir(WORK_DIR)
