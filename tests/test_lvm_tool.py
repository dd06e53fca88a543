"""LVM arithmetic against pvcreate/vgcreate/lvcreate and their JSON reports, on loop devices.

Loop devices report no useful queue limits, so pvcreate's reaction to an md device's
minimum_io_size/optimal_io_size/alignment_offset is tested by running it in a private
mount namespace where those sysfs files read as chosen values.
"""

from __future__ import annotations

import os
import random
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import pytest

from planners.compute import compute
from planners.errors import PlanError
from planners.example import example_pod
from planners.lvm.geometry import lvm_volume, pe_start_bytes
from planners.models import DiskSet, Lvm, MdGroup, Plan
from planners.units import GiB, KiB, MiB
from runners.exec import have
from runners.probes.lvm import LvmProbeError, probe_volume

TB = 10**12
WORKERS = 6

pytestmark = [pytest.mark.slow, pytest.mark.root]


@pytest.fixture(scope="module", autouse=True)
def tools():
    for tool in ("pvcreate", "vgcreate", "lvcreate", "losetup"):
        if not have(tool):
            pytest.skip(f"{tool} is not installed")
    if os.geteuid() != 0:
        pytest.skip("loop devices need root")


def _parallel(fn, items):
    with ThreadPoolExecutor(WORKERS) as pool:
        return list(pool.map(fn, items))


# (minimum_io_size, optimal_io_size, alignment_offset) as an md device would report them.
QUEUE_LIMITS = [
    (512, 0, 0),
    (4096, 0, 0),
    (64 * KiB, 128 * KiB, 0),
    (512 * KiB, MiB, 0),
    (512 * KiB, 1536 * KiB, 0),
    (512 * KiB, 3 * MiB, 0),
    (512 * KiB, 13 * 512 * KiB, 0),
    (64 * KiB, 192 * KiB, 0),
    (128 * KiB, 640 * KiB, 0),
    (256 * KiB, 2560 * KiB, 0),
    (2 * MiB, 4 * MiB, 0),
    (4 * MiB, 40 * MiB, 0),
    (2 * MiB, 0, 0),
    (32 * KiB, 96 * KiB, 0),
    (4096, 0, 3584),
    (512 * KiB, 3 * MiB, 512),
    (64 * KiB, 192 * KiB, 61440),
]


def test_pe_start_follows_queue_limits_like_pvcreate():
    if not have("unshare"):
        pytest.skip("unshare is not installed")
    measured = _parallel(lambda lim: probe_volume([GiB], queue_limits=lim, vgcreate_options=None), QUEUE_LIMITS)
    got = [m.pvs[0].pe_start_bytes for m in measured]
    want = [pe_start_bytes(mn, opt, data_alignment_offset=off) for mn, opt, off in QUEUE_LIMITS]
    assert got == want
    assert len(set(got)) >= 8


# (--dataalignment, --dataalignmentoffset) in bytes.
ALIGNMENTS = [
    (64 * KiB, 0),
    (768 * KiB, 0),
    (MiB, 0),
    (1536 * KiB, 0),
    (3 * MiB, 0),
    (6656 * KiB, 0),
    (8 * MiB, 0),
    (MiB, 3584),
    (3 * MiB, 512 * KiB),
    (192 * KiB, 4 * KiB),
    (40 * MiB, 0),
]


def test_pe_start_with_explicit_data_alignment():
    def probe(a):
        opts = ["--dataalignment", f"{a[0] // 512}s"] + (["--dataalignmentoffset", f"{a[1] // 512}s"] if a[1] else [])
        return probe_volume([GiB], pvcreate_options=opts, vgcreate_options=None).pvs[0].pe_start_bytes

    got = _parallel(probe, ALIGNMENTS)
    assert got == [pe_start_bytes(0, 0, data_alignment=a, data_alignment_offset=o) for a, o in ALIGNMENTS]


@dataclass(frozen=True)
class Vol:
    pvs: tuple[int, ...]
    pe_start: int
    extent: int = 4 * MiB
    stripes: int = 1
    stripe: int | None = None
    lv: int | str = "100%FREE"

    def plan(self):
        return lvm_volume(
            self.pvs,
            pe_start=self.pe_start,
            extent_bytes=self.extent,
            stripes=self.stripes,
            stripe_bytes=self.stripe,
            lv_extents=self.lv,
        )


def volume_cases(n: int, seed: int = 1703) -> list[Vol]:
    rng = random.Random(seed)
    extents = [MiB, 2 * MiB, 4 * MiB, 4 * MiB, 8 * MiB, 32 * MiB, 128 * MiB, 384 * KiB, 1536 * KiB, 3 * MiB, 640 * KiB]
    out = []
    while len(out) < n:
        count = rng.randint(1, 6)
        extent = rng.choice(extents)
        base = int(64 * MiB * (20 * TB / (64 * MiB)) ** (rng.random() ** 2))
        if rng.random() < 0.5:
            pvs = tuple(base - base % 512 for _ in range(count))
        else:
            pvs = tuple((s := int(base * (0.3 + rng.random()))) - s % 512 for _ in range(count))
        if base // extent > 50_000_000:
            continue  # keep lvm's metadata small enough to stay quick
        pe_start = rng.choice([MiB, 1536 * KiB, 3 * MiB, 6656 * KiB, 2 * MiB])
        stripes = rng.randint(1, count)
        stripe = None
        if stripes > 1:
            stripe = rng.choice([s for s in (4 * KiB << i for i in range(14)) if s <= extent])
        lv = rng.choice(["100%FREE", "100%FREE", "100%FREE", "50%FREE", "85%VG", "33%FREE"])
        vol = Vol(pvs, pe_start, extent, stripes, stripe, lv)
        try:
            vol.plan()
        except PlanError:
            continue  # a PV smaller than one extent: REFUSED covers refusals
        out.append(vol)
    return out


def _lvm_sizes(n: int) -> str:
    return f"{n // KiB}k" if n % KiB == 0 else f"{n // 512}s"


def _measure(v: Vol, plan=None):
    g = plan or v.plan()
    return probe_volume(
        v.pvs,
        pvcreate_options=g.pvcreate_options,
        vgcreate_options=g.vgcreate_options,
        lvcreate_options=g.lvcreate_options,
    )


def test_volumes_match_lvm():
    cases = [
        *volume_cases(70),
        Vol((GiB, 3 * GiB, GiB + 5 * MiB), 1536 * KiB, stripes=2, stripe=64 * KiB),
        Vol((GiB,) * 3, MiB, stripes=2, stripe=64 * KiB),
        Vol((GiB,) * 2, MiB, stripes=2, stripe=4 * MiB, lv=255),
        Vol((GiB,) * 2, MiB, stripes=2, stripe=64 * KiB, lv="50%FREE"),
        Vol((GiB, 2 * GiB, 3 * GiB, 4 * GiB), MiB, stripes=3, stripe=128 * KiB),
        Vol((GiB, 2 * GiB, 3 * GiB, 4 * GiB, 5 * GiB), MiB, stripes=2, stripe=128 * KiB),
        Vol((20 * TB,) * 4, 3 * MiB, extent=64 * MiB, stripes=4, stripe=512 * KiB),
        Vol((2 * TB, 2 * TB + 4 * MiB), 1536 * KiB, extent=1536 * KiB),
        Vol((8 * MiB,), MiB),
    ]
    plans = [c.plan() for c in cases]
    measured = _parallel(lambda cp: _measure(*cp), list(zip(cases, plans, strict=True)))
    wrong = []
    for case, g, m in zip(cases, plans, measured, strict=True):
        seen = (
            tuple(p.pe_start_bytes for p in m.pvs),
            tuple(p.pe_count for p in m.pvs),
            m.vg.extent_count,
            m.vg.free_count,
            m.lv.extents,
            m.lv.lv_bytes,
            sorted(p.pe_alloc_count for p in m.pvs),
            m.lv.stripes,
            m.lv.stripe_bytes,
        )
        want = (
            (g.pe_start_bytes,) * len(case.pvs),
            g.pv_extents,
            g.vg_extents,
            g.vg_free_extents,
            g.lv_extents,
            g.lv_bytes,
            sorted(g.lv_pv_extents),
            g.stripes,
            g.stripe_bytes or 0,
        )
        if seen != want:
            wrong.append((case, seen, want))
    assert not wrong, f"{len(wrong)} of {len(cases)} differ: {wrong[:4]}"
    assert len({g.stripes for g in plans}) >= 4 and len({g.extent_bytes for g in plans}) >= 6


REFUSED = [
    Vol((GiB,) * 2, MiB, stripes=3, stripe=64 * KiB),
    Vol((GiB,) * 2, MiB, stripes=2, stripe=96 * KiB),
    Vol((GiB,) * 2, MiB, extent=3 * MiB + 64 * KiB),
    Vol((GiB,) * 2, MiB, lv=600),
    Vol((GiB,) * 3, MiB, stripes=3, stripe=64 * KiB, lv=800),
    Vol((GiB,) * 2, MiB, stripes=2, stripe=2 * KiB),
]


def _raw(v: Vol):
    lv = ["--extents", str(v.lv)] + (
        ["--stripes", str(v.stripes), "--stripesize", _lvm_sizes(v.stripe)] if v.stripes > 1 else []
    )
    return probe_volume(
        v.pvs,
        pvcreate_options=["--dataalignment", _lvm_sizes(v.pe_start)],
        vgcreate_options=["--physicalextentsize", _lvm_sizes(v.extent)],
        lvcreate_options=lv,
    )


def test_what_the_planner_refuses_lvm_refuses():
    for case in REFUSED:
        with pytest.raises(PlanError):
            case.plan()

    def refused(v):
        try:
            _raw(v)
        except LvmProbeError:
            return True
        return False

    assert _parallel(refused, REFUSED) == [True] * len(REFUSED)


def allocator_cases(n: int, seed: int = 99) -> list[Vol]:
    """Small PVs of unequal sizes with 1 MiB extents: where lvcreate's allocation passes show."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        count = rng.randint(2, 9)
        stripes = rng.randint(1, min(7, count))
        pvs = tuple((rng.randint(3, 150) + 1) * MiB for _ in range(count))
        lv = rng.choice(["100%FREE", "100%FREE", "70%FREE", "40%VG", rng.randint(1, 40)])
        out.append(Vol(pvs, MiB, MiB, stripes, None if stripes == 1 else 64 * KiB, lv))
    return out


def test_allocation_on_each_pv_matches_lvcreate():
    cases = allocator_cases(60)
    plans = []
    for c in cases:
        try:
            plans.append(c.plan())
        except PlanError:
            plans.append(None)

    def seen(cp):
        case, g = cp
        if g is None:
            try:
                _raw(case)
            except LvmProbeError:
                return None
            return "lvm accepted it"
        return tuple(p.pe_alloc_count for p in _measure(case, g).pvs)

    got = _parallel(seen, list(zip(cases, plans, strict=True)))
    want = [g.lv_pv_extents if g else None for g in plans]
    wrong = [(c, s, w) for c, s, w in zip(cases, got, want, strict=True) if s != w]
    assert not wrong, f"{len(wrong)} of {len(cases)} differ: {wrong[:4]}"
    assert sum(g is not None and g.stripes > 1 for g in plans) >= 30


def _linear_pod(group: MdGroup, n: int, disk: int, extra: int = 0) -> Plan:
    """n arrays of `group` on disks of `disk` bytes (the last array's disks `extra` bytes larger)."""
    m = group.members
    disks = (
        [DiskSet(count=m * (n - 1), size=disk), DiskSet(count=m, size=disk + extra)]
        if extra
        else [DiskSet(count=m * n, size=disk)]
    )
    return Plan(
        disks=disks, groups=[group.model_copy(update={"name": f"md{i}"}) for i in range(n)], lvm=Lvm(enabled=True)
    )


ALIGNED = [
    example_pod(),  # full size: 26 TB arrays, 6656 KiB extents
    _linear_pod(MdGroup(level=5, members=7, chunk=512 * KiB), 3, GiB),  # 6 MiB extents
    _linear_pod(MdGroup(level=5, members=4, chunk=64 * KiB), 4, GiB),  # 4224 KiB
    _linear_pod(MdGroup(level=6, members=15, chunk=64 * KiB), 2, GiB),  # 4992 KiB
    _linear_pod(MdGroup(level=0, members=16, chunk=512 * KiB), 2, GiB),  # 8 MiB
    _linear_pod(MdGroup(level=6, members=15, chunk=512 * KiB), 3, GiB, extra=GiB),  # the larger array goes first
]


def test_aligned_extents_and_array_starts_match_lvm():
    """vgcreate takes the extent podplan picks, and `lvs --segments` puts each array's first extent
    where the planner says: on a full stripe of the LV (a chunk on RAID0)."""
    vols = [compute(p).volumes[0] for p in ALIGNED]
    measured = _parallel(
        lambda v: probe_volume(
            v.lvm.pv_bytes,
            pvcreate_options=v.lvm.pvcreate_options,
            vgcreate_options=v.lvm.vgcreate_options,
            lvcreate_options=v.lvm.lvcreate_options,
        ),
        vols,
    )
    wrong = []
    for p, v, m in zip(ALIGNED, vols, measured, strict=True):
        g = v.lvm
        starts = tuple(m.lv.start_on(pv.name) for pv in m.pvs)
        seen = (m.vg.extent_bytes, tuple(pv.pe_count for pv in m.pvs), m.lv.lv_bytes, starts)
        if seen != (g.extent_bytes, g.pv_extents, g.lv_bytes, g.pv_lv_offset_bytes):
            wrong.append((p.groups[0], seen))
        unit = v.alignment.md_io_opt_bytes if p.groups[0].level in (5, 6) else v.alignment.md_chunk_bytes
        assert all(s % unit == 0 for s in starts), (p.groups[0], starts, unit)
    assert not wrong, wrong
    assert len({v.lvm.extent_bytes for v in vols}) == 5
    assert vols[-1].lvm.pv_lv_offset_bytes[-1] == 0  # lvcreate put the larger array first


def test_the_script_passes_pvcreate_the_alignment_the_chain_shows_and_gets_the_planned_pe_start():
    """The script's comment, the alignment chain and the pvcreate command name one --dataalignment: the
    stripe (896K for 8 x 128K LUNs of 7 RAID5 disks), which pvcreate rounds the 1 MiB metadata area up
    to (pe_start 1792K), on a device that reports that stripe and on one that reports none."""
    from planners.script.build import build_script
    from planners.units import format_size_compact
    from tests.test_direct import _luns

    plans = [
        _luns(8, 4 * GiB, disks=8, lvm=Lvm(enabled=True, mode="striped")),  # 7 data disks: 896K
        _luns(4, 4 * GiB, disks=4, level=6, strip=64 * KiB, lvm=Lvm(enabled=True, mode="striped")),  # 128K
        _luns(2, 4 * GiB, lvm=Lvm(enabled=True, data_alignment=64 * KiB)),
    ]
    cases = []
    for p in plans:
        r = compute(p)
        v = r.volumes[0]
        a, g = v.alignment, v.lvm
        assert a.pv_data_alignment_bytes is not None and g is not None
        text = build_script(p, r)
        shown = format_size_compact(a.pv_data_alignment_bytes)
        assert g.pvcreate_options == ("--dataalignment", shown.lower())
        assert f"# --dataalignment {shown}: " in text and f"run pvcreate --dataalignment {shown.lower()} " in text
        for limits in ((a.md_io_min_bytes, a.md_io_opt_bytes, 0), None):
            cases.append((g.pvcreate_options, limits, g.pe_start_bytes))
    assert cases[0][0] == ("--dataalignment", "896k") and cases[0][2] == 1792 * KiB

    def probe(case):
        opts, limits, _ = case
        return probe_volume([GiB], pvcreate_options=opts, queue_limits=limits, vgcreate_options=None)

    if not have("unshare"):
        pytest.skip("unshare is not installed")
    got = [m.pvs[0].pe_start_bytes for m in _parallel(probe, cases)]
    assert got == [pe for *_, pe in cases]
