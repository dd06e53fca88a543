"""Where a real kernel puts a new fio job's files: the placement model against XFS and ext4.

fio lays the files out (fallocate, one after another), then `filefrag` (FIEMAP) says where each
extent sits. The filesystem is cut into four equal slices standing for four arrays of a linear
LV: the slices the real extents touch must be those `planners.perf.placement` says.
"""

from __future__ import annotations

import os
import re
import shutil

import pytest

from planners.perf.placement import file_ranges
from runners.exec import CommandError, have, run
from runners.probes.loopdev import mounted, sparse_loop

MIB = 1 << 20
FS = 1024 * MIB
SLICE = FS // 4

pytestmark = pytest.mark.skipif(
    shutil.which("fio") is None or not have("filefrag"),
    reason="fio and filefrag (e2fsprogs) are needed to lay files out and find them",
)


@pytest.fixture(scope="module")
def loop():
    for tool in ("losetup", "mkfs.xfs", "mkfs.ext4", "mount"):
        if not have(tool):
            pytest.skip(f"{tool} is not installed")
    try:
        with sparse_loop(FS) as dev:
            yield dev
    except (CommandError, OSError) as exc:
        pytest.skip(f"cannot attach and mount a loop device here (needs root and loop support): {exc}")


def _slices_touched(where: str) -> set[int]:
    """The quarter of the filesystem each extent of every file starts and ends in."""
    out = set()
    for name in os.listdir(where):
        text = run(["filefrag", "-v", "-b512", os.path.join(where, name)], timeout=60).stdout
        for m in re.finditer(r"^\s*\d+:\s+\d+\.\.\s*\d+:\s+(\d+)\.\.\s*(\d+):", text, re.M):
            first, last = int(m.group(1)) * 512, int(m.group(2)) * 512 + 511
            out |= set(range(first // SLICE, last // SLICE + 1))
    return out


@pytest.mark.parametrize("fs", ["xfs", "ext4"])
@pytest.mark.parametrize("numjobs, size_mib", [(1, 100), (8, 20), (4, 100)])
def test_a_new_jobs_files_pack_from_the_start_of_the_filesystem(loop, tmp_path, fs, numjobs, size_mib):
    mkfs = (
        ["mkfs.xfs", "-f", "-q", "-K", "-d", "agcount=4"]
        if fs == "xfs"
        else ["mkfs.ext4", "-F", "-q", "-E", "nodiscard"]
    )
    run([*mkfs, loop], timeout=120)
    with mounted(loop) as mnt:
        run(
            [
                "fio",
                "--name=j",
                "--create_only=1",
                "--rw=write",
                f"--size={size_mib}m",
                f"--numjobs={numjobs}",
                f"--directory={mnt}",
                "--output=/dev/null",
            ],
            timeout=120,
        )
        real = _slices_touched(mnt)
    total = numjobs * size_mib * MIB
    model = {s for lo, hi in file_ranges(total, numjobs) for s in range(lo // SLICE, (hi - 1) // SLICE + 1)}
    # Not spread over the AGs (only new directories rotate over them): exactly the slices the model names.
    assert real == model, (fs, numjobs, size_mib)
