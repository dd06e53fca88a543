"""md geometry against mdadm itself: `mdadm --create -v` over sparse loop devices.

The kernel here has no md, but mdadm prints "size set to NK" (the component size)
before it fails to open the array. Members that are whole MiB with a chunk of at most
1 MiB make that figure exactly member - data offset, so the data offset is checked too.
"""

from __future__ import annotations

import os
import random
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import pytest

from planners.errors import PlanError
from planners.md.geometry import md_geometry
from planners.units import GiB, KiB, MiB
from runners.exec import have
from runners.probes.md import installed_mdadm_version, probe_create, remove_empty_md_dir

TB = 10**12
WORKERS = 6

pytestmark = [pytest.mark.slow, pytest.mark.root]


@dataclass(frozen=True)
class Case:
    members: tuple[int, ...]
    level: int
    layout: str | None = None
    chunk: int | None = None
    metadata: str = "1.2"
    bitmap: str = "internal"
    bitmap_chunk: int | None = None

    def plan(self, mdadm):
        return md_geometry(
            self.members,
            level=self.level,
            layout=self.layout,
            chunk_bytes=self.chunk,
            metadata=self.metadata,
            bitmap=self.bitmap,
            bitmap_chunk_bytes=self.bitmap_chunk,
            mdadm=mdadm,
        )

    def raw_options(self):
        """Options as a sysadmin would type them, for cases the planner refuses."""
        opts = [f"--level={self.level}", f"--raid-devices={len(self.members)}"]
        if self.layout:
            opts.append(f"--layout={self.layout}")
        if self.chunk:
            opts.append(f"--chunk={self.chunk // KiB}K")
        return [*opts, f"--metadata={self.metadata}", f"--bitmap={self.bitmap}"]


def _aligned(size: int, rng: random.Random) -> int:
    unit = rng.choice([MiB, 4 * KiB, 512])
    return max(unit, size - size % unit)


def random_cases(n: int, seed: int = 4242) -> list[Case]:
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        level = rng.choice([1, 4, 5, 5, 6, 6, 10, 10, 0])
        count = rng.randint(4 if level == 6 else 2, 10)
        base = int(20 * MiB * (20 * TB / (20 * MiB)) ** rng.random())
        if rng.random() < 0.3:
            members = tuple(_aligned(int(base * (1 + rng.random() / 2)), rng) for _ in range(count))
        else:
            members = (_aligned(base, rng),) * count
        layout = None
        if level == 10:
            copies = rng.choice([c for c in (2, 3) if c <= count])
            layout = rng.choice("nfo") + str(copies)
        elif level in (5, 6):
            layout = rng.choice([None, "left-symmetric", "right-asymmetric", "parity-first"])
        chunk = None if level == 1 else rng.choice([None] + [4 * KiB << i for i in range(11)])
        out.append(
            Case(members, level, layout, chunk, rng.choice(["1.0", "1.1", "1.2"]), rng.choice(["internal", "none"]))
        )
    return out


def boundary_cases() -> list[Case]:
    """Sizes a sector either side of mdadm's thresholds (bitmap room, reshape headroom)."""
    sectors = [
        16777224,
        16777225,  # bitmap room 4 KiB -> 64 KiB just above 8 GiB
        419430527,
        419430528,  # -> 128 KiB at 200 GiB + 64 KiB
        2**28 - 1,
        2**28,
        2**27 - 1,
        2**27,
        2**26 - 1,
        2**26,  # headroom doubles
        2**21,
        2**21 + 2048,
    ]
    out = []
    for s in sectors:
        for level, chunk, metadata in ((5, 64 * KiB, "1.2"), (1, None, "1.2"), (6, 4 * KiB, "1.0"), (10, MiB, "1.1")):
            out.append(Case((s * 512,) * 4, level, None, chunk, metadata))
    return out


def data_offset_cases() -> list[Case]:
    """Equal whole-MiB members, chunk <= 1 MiB, v1.1/1.2: size set to = member - data offset."""
    rng = random.Random(7)
    out = []
    for _ in range(40):
        size = (20 + int(rng.random() ** 3 * 20 * TB // MiB)) * MiB
        level = rng.choice([1, 5, 6, 10])
        chunk = None if level == 1 else rng.choice([4 * KiB << i for i in range(9)])
        out.append(Case((size,) * 4, level, None, chunk, rng.choice(["1.1", "1.2"]), rng.choice(["internal", "none"])))
    return out


REFUSED = [
    Case((GiB,) * 3, 6, chunk=64 * KiB),
    Case((GiB,) * 2, 1, chunk=64 * KiB),
    Case((GiB,) * 2, 10, layout="n3", chunk=64 * KiB),
    Case((GiB, MiB, GiB), 5, chunk=64 * KiB),
    Case((20 * MiB,) * 3, 5, chunk=32 * MiB),
    Case((GiB,) * 3, 10, layout="f4"),
]


@pytest.fixture(scope="module")
def mdadm_version():
    if not (have("mdadm") and have("losetup")):
        pytest.skip("mdadm or losetup is not installed")
    if os.geteuid() != 0:
        pytest.skip("loop devices need root")
    yield installed_mdadm_version()
    remove_empty_md_dir()


def _probe_all(pairs):
    with ThreadPoolExecutor(WORKERS) as pool:
        return list(pool.map(lambda p: probe_create(*p), pairs))


def test_component_size_matches_mdadm(mdadm_version):
    cases = random_cases(150) + boundary_cases()
    plans = [c.plan(mdadm_version) for c in cases]
    reports = _probe_all([(c.members, g.create_options) for c, g in zip(cases, plans, strict=True)])
    wrong = []
    for case, g, rep in zip(cases, plans, reports, strict=True):
        if rep.errors or not rep.reached_kernel:
            wrong.append((case, g.create_options, rep.errors))
        elif case.level == 0:
            assert rep.component_bytes is None  # mdadm prints no size for RAID0
        elif rep.component_bytes != g.component_bytes:
            wrong.append((case, rep.component_bytes, g.component_bytes))
        if rep.data_offset_sectors is not None and rep.data_offset_sectors != g.data_offset_sectors:
            wrong.append((case, "offset", rep.data_offset_sectors, g.data_offset_sectors))
    assert not wrong, f"{len(wrong)} of {len(cases)} differ: {wrong[:5]}"
    assert sum(c.level != 0 for c in cases) >= 150


def test_data_offset_matches_mdadm(mdadm_version):
    cases = data_offset_cases()
    plans = [c.plan(mdadm_version) for c in cases]
    reports = _probe_all([(c.members, g.create_options) for c, g in zip(cases, plans, strict=True)])
    seen = []
    for case, rep in zip(cases, reports, strict=True):
        assert rep.component_bytes is not None, (case, rep.errors)
        seen.append((case.members[0] - rep.component_bytes) // 512)
    predicted = [g.data_offset_sectors for g in plans]
    assert seen == predicted
    assert len(set(seen)) >= 5  # the sizes span several headroom steps


def test_what_the_planner_refuses_mdadm_refuses(mdadm_version):
    for case in REFUSED:
        with pytest.raises(PlanError):
            case.plan(mdadm_version)
    reports = _probe_all([(c.members, c.raw_options()) for c in REFUSED])
    for case, rep in zip(REFUSED, reports, strict=True):
        assert rep.component_bytes is None, case
        assert rep.errors and not rep.reached_kernel, (case, rep)


def test_probe_leaves_no_md_nodes_or_loops(mdadm_version):
    before = set(os.listdir("/dev"))
    rep = probe_create((64 * MiB,) * 3, ("--level=5", "--raid-devices=3", "--metadata=1.2", "--bitmap=none"))
    assert rep.component_bytes == md_geometry((64 * MiB,) * 3, level=5, mdadm=mdadm_version).component_bytes
    leftover = {n for n in set(os.listdir("/dev")) - before if n.startswith("md")}
    assert not leftover or leftover == {"md"}
    if os.path.isdir("/dev/md"):
        assert not [n for n in os.listdir("/dev/md") if n.startswith(f"podplan{os.getpid()}x")]
