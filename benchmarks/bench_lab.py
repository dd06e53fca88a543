"""The VM lab's costs: kit build, kit size, boot to /init and to disks ready, time per scenario.

Run: .venv/bin/python benchmarks/bench_lab.py [--rebuild] [--cold] [--pod N]
  --rebuild  rebuild the kit from the cached packages first (measures the build)
  --cold     build into an empty cache (measures downloads too); implies --rebuild
  --pod N    add a scenario with N disks in 3 RAID6 groups under striped LVM and XFS
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from runners.lab import LabDisk, Scenario, ensure_kit, fio_scenario, run_batch
from runners.lab.kit import cache_root

MiB = 1 << 20
FULL_STACK = """set -e
d=($PODPLAN_DISKS)
mdadm --create /dev/md0 --run --level=6 --raid-devices=4 --chunk=64 --bitmap=internal "${d[@]:0:4}"
mdadm --wait /dev/md0 || true
mdadm --create /dev/md1 --run --level=10 --raid-devices=4 --chunk=64 --bitmap=none --assume-clean "${d[@]:4:4}"
pvcreate -q /dev/md0 /dev/md1
vgcreate -q vg /dev/md0 /dev/md1
lvcreate -q -y -n lv -i 2 -I 64k -l 100%FREE vg
mkfs.xfs -q /dev/vg/lv
mkdir -p /mnt/x && mount /dev/vg/lv /mnt/x
"""
FIO = """[seq]
ioengine=libaio
direct=1
filename=/dev/md0
rw=read
bs=1m
size=64m
"""


def pod(n: int) -> Scenario:
    per = n // 3
    script = "set -e\nd=($PODPLAN_DISKS)\n"
    for g in range(3):
        script += (
            f"mdadm --create /dev/md{g} --run --level=6 --raid-devices={per} --chunk=512 --bitmap=none "
            f'--assume-clean "${{d[@]:{g * per}:{per}}}"\n'
        )
    script += (
        "pvcreate -q /dev/md0 /dev/md1 /dev/md2\nvgcreate -q vg /dev/md0 /dev/md1 /dev/md2\n"
        "lvcreate -q -y -n lv -i 3 -I 512k -l 100%FREE vg\nmkfs.xfs -q /dev/vg/lv\n"
    )
    return Scenario(name=f"pod{n}", script=script, disks=(LabDisk(size_bytes=256 * MiB),) * (per * 3))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rebuild", action="store_true")
    ap.add_argument("--cold", action="store_true")
    ap.add_argument("--pod", type=int, default=0)
    args = ap.parse_args()
    root = Path(tempfile.mkdtemp(prefix="podplan-bench-cache-")) if args.cold else cache_root()
    t0 = time.monotonic()
    kit = ensure_kit(rebuild=args.rebuild or args.cold, root=root)
    kit_s = time.monotonic() - t0
    scenarios = [
        Scenario(name="stack", script=FULL_STACK, disks=(LabDisk(size_bytes=256 * MiB),) * 8),
        fio_scenario(
            "fio",
            (LabDisk(size_bytes=128 * MiB),) * 3,
            "mdadm --create /dev/md0 --run --level=0 --raid-devices=3 --chunk=64 $PODPLAN_DISKS",
            FIO,
            collect=False,
        ),
    ]
    if args.pod:
        scenarios.append(pod(args.pod))
    result = run_batch(scenarios, kit=kit)
    for s in result.scenarios:
        if not s.ok:
            print(f"scenario {s.name} failed ({s.returncode}): {s.stderr[-400:]}", file=sys.stderr)
    report = {
        "kit_seconds": round(kit_s, 1),
        "kit_build_seconds": kit.manifest.build_seconds,
        "initrd_mib": round(kit.manifest.initrd_bytes / MiB, 1),
        "vmlinux_mib": round(kit.manifest.vmlinux_bytes / MiB, 1),
        "modules": kit.manifest.module_count,
        "accel": result.accel,
        "to_init_s": result.init_s,
        "to_disks_ready_s": result.disks_ready_s,
        "vm_total_s": result.boot.seconds,
        "scenarios": {
            s.name: {"rc": s.returncode, "script_s": s.script_s, "total_s": s.total_s} for s in result.scenarios
        },
    }
    print(json.dumps(report, indent=1))
    if args.cold:
        import shutil

        shutil.rmtree(root, ignore_errors=True)
    os.sync()


if __name__ == "__main__":
    main()
