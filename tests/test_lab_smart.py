"""SMART read by the real smartctl from qemu's emulated drives under a real kernel, in one boot: an NVMe
controller (its SMART/health log page) and an ATA disk on AHCI (SMART attributes), parsed by podplan's
parser; and the burn-in's own dd chunks timed on a throttled virtual disk.

PODPLAN_SMART_RECORD=DIR keeps smartctl's JSON there (tests/fixtures/smartctl/qemu-*-recorded.json came so).
"""

from __future__ import annotations

import os
import shlex

import pytest

from planners.health import parse_smartctl
from runners.lab.scenario import LabDisk, Scenario
from runners.validate.burnin import chunk_bytes_for, dd_argv
from tests.lab_helpers import shared_batch, skip_unless_lab

pytestmark = pytest.mark.slow

skip_unless_lab()

MiB = 1024**2
SLOW_BYTES, SLOW_BPS = 32 * MiB, 8 * MiB
SCRIPT = """\
set -u
now() { local up _; read -r up _ </proc/uptime; echo "$up"; }
for pair in "nvme $1" "ata $2" "scsi $3"; do
    set -- $pair
    smartctl -j -x "$(readlink -f "$2")" >"$PODPLAN_OUT/$1.json"
    echo $? >"$PODPLAN_OUT/$1.rc"
done
t0=$(now)
bash ./burnin.sh || exit 3
echo "start=$t0 end=$(now)" >"$PODPLAN_OUT/burnin.times"
"""


def _scenario() -> Scenario:
    disks = (
        LabDisk(size_bytes=64 * MiB, bus="nvme", rotational=False),
        LabDisk(size_bytes=64 * MiB, bus="ahci"),
        LabDisk(size_bytes=SLOW_BYTES, bps_total=SLOW_BPS),
    )
    paths = Scenario(name="smart", script="", disks=disks).disk_paths()
    chunk = chunk_bytes_for(SLOW_BYTES)
    chunks = [
        shlex.join(dd_argv(paths[2], off, min(chunk, SLOW_BYTES - off), write=False))
        for off in range(0, SLOW_BYTES, chunk)
    ]
    return Scenario(
        name="smart",
        script=SCRIPT,
        args=paths,
        disks=disks,
        files={"burnin.sh": "set -e\n" + "\n".join(chunks) + "\n"},
        collect=False,
        timeout_s=300.0,
    )


LAB_TIMEOUT_S = 300.0


def lab_scenarios(kit) -> list[Scenario]:  # type: ignore[no-untyped-def]
    return [_scenario()]


@pytest.fixture(scope="module")
def run(request):
    batch = shared_batch(request)
    result = batch.scenario("smart")
    assert result.returncode == 0, batch.failure_report("smart")
    out = {os.path.basename(k): v for k, v in result.outputs.items()}
    keep = os.environ.get("PODPLAN_SMART_RECORD")
    if keep:
        for name in ("nvme.json", "ata.json", "scsi.json"):
            with open(os.path.join(keep, f"qemu-{name.removesuffix('.json')}-recorded.json"), "w") as fh:
                fh.write(out[name])
    return out


def test_qemu_nvme_health_log(run):
    h = parse_smartctl("/dev/nvme0n1", run["nvme.json"])
    assert h.smart and h.protocol == "NVMe" and h.passed is True, h.why_not
    assert h.critical_warning == 0 and h.media_errors == 0 and h.failing == ()
    assert h.percentage_used is not None and h.available_spare is not None and h.temperature_c is not None
    assert h.reallocated is None  # an ATA attribute: unread, not 0


def test_qemu_ahci_disk_smart_attributes(run):
    h = parse_smartctl("/dev/sda", run["ata.json"])
    assert h.smart and h.protocol == "ATA" and h.passed is True, h.why_not
    assert h.power_on_hours is not None and h.reallocated is not None and h.failing == ()
    assert h.critical_warning is None


def test_the_burn_ins_dd_chunks_on_a_throttled_disk(run):
    times = dict(kv.split("=") for kv in run["burnin.times"].split())
    took = float(times["end"]) - float(times["start"])
    # every byte read through the 8 MiB/s throttle: no faster than the throttle allows
    assert took >= 0.9 * SLOW_BYTES / SLOW_BPS, took
