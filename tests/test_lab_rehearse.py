"""Every prediction against a real kernel: a matrix of plans rehearsed in ONE boot.

Each plan is scaled down, its generated build script runs unmodified inside the lab VM
(guards included), and every figure podplan predicts (data offset, component and array
size, io_min/io_opt, pe_start, extents, LV size, stride/stripe_width, su/sw, AG
geometry, df size and available, readahead, stripe cache) must equal what the VM
reports. Two more scenarios hold the guards: a member with an ext4 signature stops the
script before any change; naming it with --override lets the build go on.
"""

from __future__ import annotations

import functools
import time

import pytest

from planners.models import DiskSet, Filesystem, Lvm, MdGroup, Plan
from planners.units import KiB, MiB
from runners.lab import ensure_kit
from runners.lab.rehearse import prepare, rehearsal_tools
from tests.lab_helpers import every_figure_checked, prepare_matrix, shared_batch, skip_unless_lab

pytestmark = pytest.mark.slow

skip_unless_lab()


def P(name, disks, groups, lvm=None, fs="xfs", **fs_kw):
    return Plan(name=name, disks=disks, groups=groups, lvm=lvm or Lvm(), filesystem=Filesystem(type=fs, **fs_kw))


def same(n, size=1 << 40):
    return [DiskSet(count=n, size=size)]


MATRIX = {
    "r0": P("r0", same(3), [MdGroup(level=0, members=3, chunk=64 * KiB)], fs="ext4"),
    "r1m10": P("r1m10", same(2), [MdGroup(level=1, members=2, metadata="1.0")]),
    "r4nobm": P("r4nobm", same(4), [MdGroup(level=4, members=4, bitmap="none", chunk=64 * KiB)], fs="ext4"),
    "r5spare": P("r5spare", same(6), [MdGroup(level=5, members=5, spares=1, chunk=64 * KiB)]),
    "r6ext4": P("r6ext4", same(6), [MdGroup(level=6, members=6, chunk=512 * KiB)], fs="ext4", reserved_percent=1.0),
    "r10n2odd": P("r10n2odd", same(5), [MdGroup(level=10, layout="n2", members=5, chunk=64 * KiB)]),
    "r10f2": P("r10f2", same(4), [MdGroup(level=10, layout="f2", members=4, chunk=512 * KiB)], fs="ext4"),
    "r10o2": P("r10o2", same(3), [MdGroup(level=10, layout="o2", members=3, chunk=64 * KiB, metadata="1.0")]),
    "mixed": P(
        "mixed",
        [DiskSet(count=2, size=1 << 40), DiskSet(count=2, size=(1 << 40) * 3 // 2)],
        [MdGroup(level=5, members=4, chunk=64 * KiB)],
        fs="ext4",
    ),
    "striped2": P(
        "striped2",
        same(8),
        [MdGroup(name=f"md{i}", level=6, members=4, chunk=64 * KiB) for i in range(2)],
        Lvm(enabled=True, mode="striped", stripe_size=128 * KiB),
    ),
    "striped3": P(
        "striped3",
        same(9),
        [MdGroup(name=f"md{i}", level=5, members=3, chunk=64 * KiB) for i in range(3)],
        Lvm(enabled=True, mode="striped", stripe_size=128 * KiB),
        fs="ext4",
    ),
    "linear2": P(
        "linear2",
        same(6),
        [MdGroup(name=f"md{i}", level=5, members=3, chunk=512 * KiB) for i in range(2)],
        Lvm(enabled=True),
    ),
    # A 192 KiB full stripe divides no power of two: the VG gets 4224 KiB extents (11 x 384 KiB), so md1 and
    # md2 start on a full stripe of the LV.
    "linear3": P(
        "linear3",
        same(12),
        [MdGroup(name=f"md{i}", level=5, members=4, chunk=64 * KiB) for i in range(3)],
        Lvm(enabled=True),
        fs="ext4",
    ),
}

# Puts an ext4 signature on the second member before the build script runs.
SIGN_SECOND = 'mke2fs -q -F -t ext4 "$2"'


# A limit for a hung guest only: on a two-core host loaded to 13 runnable processes the batch ran past 1500 s.
LAB_TIMEOUT_S = 2400.0


def lab_scenarios(kit) -> list:  # type: ignore[no-untyped-def]
    """The matrix, then the guard and the override (tests/lab_helpers.BOOTS)."""
    return _prepared(kit.manifest.kernel_release)[0]


@functools.cache
def _prepared(kernel_release: str) -> tuple[list, dict]:
    tools = rehearsal_tools(kernel_release)
    scenarios, expected = prepare_matrix(MATRIX, tools)
    guard, _, _ = prepare(MATRIX["r4nobm"], name="guard", tools=tools, settle=False)
    guard = guard.model_copy(update={"prepare": SIGN_SECOND, "fingerprint": True, "collect": False})
    override, _, _ = prepare(MATRIX["r4nobm"], name="override", tools=tools, settle=False)
    override = override.model_copy(
        update={
            "prepare": SIGN_SECOND,
            "collect": False,
            "args": ("--run", "--yes", "--override", override.disk_paths()[1]),
        }
    )
    return [*scenarios, guard, override], expected


@pytest.fixture(scope="module")
def lab(request):
    t0 = time.monotonic()
    kit = ensure_kit()
    scenarios, expected = _prepared(kit.manifest.kernel_release)
    batch = shared_batch(request)
    print(
        f"\nlab: kit {kit.manifest.initrd_bytes // MiB} MiB initrd, disks ready after {batch.disks_ready_s:.1f} s, "
        f"whole batch {time.monotonic() - t0:.0f} s"
    )
    for s in scenarios:
        r = batch.scenario(s.name)
        print(
            f"lab: {s.name:10} {len(s.disks):2} disks of {s.disks[0].size_bytes // MiB} MiB: script "
            f"{r.script_s or 0:.1f} s, total {r.total_s or 0:.1f} s"
        )
    return batch, expected


@pytest.mark.parametrize("name", MATRIX)
def test_every_figure_matches_the_vm(lab, name):
    batch, expected = lab
    checks = every_figure_checked(batch, expected, name)
    assert len(checks) >= 12
    scaled, _ = expected[name]
    if scaled.lvm.enabled and scaled.lvm.mode == "linear" and len(scaled.groups) > 1:
        starts = [c for c in checks if c.figure.endswith("start past a full stripe (bytes)")]
        assert len(starts) == len(scaled.groups) and all(c.actual == 0 for c in starts), starts


def test_guard_stops_before_any_change(lab):
    batch, _ = lab
    run = batch.scenario("guard")
    assert run.prepare_rc == 0
    assert run.returncode != 0
    assert "REFUSED" in run.stdout and "carries a signature" in run.stdout
    assert "nothing was changed" in run.stderr
    assert run.disks_unchanged is True


def test_override_lets_the_build_proceed(lab):
    batch, _ = lab
    run = batch.scenario("override")
    assert run.returncode == 0, batch.failure_report("override")
    assert "OVERRIDE" in run.stdout
