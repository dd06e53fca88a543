"""xfs_geometry() against the real `mkfs.xfs -N`, field for field, over many sizes and stripes."""

from __future__ import annotations

import os
import random
import re
import tempfile
from concurrent.futures import ThreadPoolExecutor
from typing import NamedTuple

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planners.errors import PlanError
from planners.fs.xfs.geometry import XfsGeometry, xfs_geometry
from runners.exec import CommandError, have, run
from runners.probes.xfs import probe

KIB, MIB, GIB, TIB, PIB = 1 << 10, 1 << 20, 1 << 30, 1 << 40, 1 << 50

needs_mkfs = pytest.mark.skipif(not have("mkfs.xfs"), reason="mkfs.xfs (xfsprogs) is not installed")


class Case(NamedTuple):
    size: int
    su: int = 0
    sw: int = 0
    block: int = 4096
    sector: int = 512

    def __str__(self) -> str:
        return f"{self.size}-su{self.su}x{self.sw}-b{self.block}-s{self.sector}"


def _boundary_cases() -> list[Case]:
    """Sizes just around every threshold in the AG and log rules, striped and not."""
    edges = [
        32 * MIB,
        64 * MIB,
        128 * MIB,
        300 * MIB,
        512 * MIB,
        1 * GIB,
        8 * GIB,
        512 * GIB,
        1 * TIB,
        4 * TIB,
        32 * TIB,
        50 * TIB,
        (2 * GIB - 10 * MIB) * 2048,
    ]  # where the log, 1/2048 of the data, reaches its maximum
    stripes = [(0, 0), (64 * KIB, 4), (256 * KIB, 43), (1 * MIB, 13), (12 * KIB, 5)]
    cases = []
    for edge in edges:
        for delta in (-4096, -512, 0, 4096, 16 * MIB + 4096):
            for su, sw in stripes:
                cases.append(Case(edge + delta, su, sw))
    # An AG at the maximum (1 TiB - 1 block) and one block either side of 4 such AGs.
    ag_max = TIB - 4096
    cases += [Case(4 * ag_max + d) for d in (-4096, 0, 4096)]
    cases += [Case(33 * ag_max + d, 256 * KIB, 43) for d in (-4096, 0, 4096)]
    return cases


def _random_cases(n: int, seed: int) -> list[Case]:
    rnd = random.Random(seed)
    cases = []
    for _ in range(n):
        size = int(2 ** rnd.uniform(26, 50))  # 64 MiB .. 1 PiB
        size -= size % rnd.choice([512, 4096, 4096, MIB])
        block = rnd.choice([4096] * 8 + [1024, 2048, 8192, 16384])
        sector = rnd.choice([512, 512, 512, 4096])
        if rnd.random() < 0.3:
            su, sw = 0, 0
        else:
            su = rnd.choice([4 * KIB << rnd.randint(0, 9), 4 * KIB * rnd.randint(1, 512)])
            sw = rnd.randint(1, 60)
        cases.append(Case(size, su, sw, block, sector))
    return cases


CASES = _boundary_cases() + _random_cases(400, seed=20240601)


def _tool(case: Case) -> XfsGeometry | str:
    try:
        return probe(case.size, su_bytes=case.su, sw=case.sw, block_size=case.block, sector_size=case.sector)
    except CommandError as exc:
        return f"refused: {exc.stderr}"


def _planner(case: Case) -> XfsGeometry | str:
    try:
        return xfs_geometry(case.size, su_bytes=case.su, sw=case.sw, block_size=case.block, sector_size=case.sector)
    except PlanError as exc:
        return f"refused: {exc.message}"


@pytest.fixture(scope="module")
def tool_answers() -> dict[Case, XfsGeometry | str]:
    if not have("mkfs.xfs"):
        pytest.skip("mkfs.xfs (xfsprogs) is not installed")
    with ThreadPoolExecutor(max_workers=max(2, (os.cpu_count() or 2) * 2)) as pool:
        return dict(zip(CASES, pool.map(_tool, CASES), strict=True))


def _assert_same(case: Case, planned: XfsGeometry | str, real: XfsGeometry | str) -> None:
    if isinstance(planned, str) or isinstance(real, str):
        # Both must refuse, or neither; the wording may differ when several rules fail.
        assert isinstance(planned, str) == isinstance(real, str), f"{case}: planner {planned!r}, mkfs {real!r}"
        return
    diff = {k: (v, getattr(real, k)) for k, v in planned.model_dump().items() if getattr(real, k) != v}
    assert not diff, f"{case}: (planned, mkfs) differ: {diff}"


@needs_mkfs
@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=str)
def test_matches_mkfs(case, tool_answers):
    _assert_same(case, _planner(case), tool_answers[case])


def test_case_set_is_broad():
    """The comparison above covers what it claims: many valid filesystems of every kind."""
    ok = [c for c in CASES if not isinstance(_planner(c), str)]
    assert len(CASES) >= 600 and len(ok) >= 300
    assert any(c.su == 0 for c in ok) and sum(c.su > 0 for c in ok) >= 150
    assert max(c.size for c in ok) > 512 * TIB and min(c.size for c in ok) < 400 * MIB
    assert {c.sector for c in ok} == {512, 4096} and {c.block for c in ok} >= {1024, 4096, 16384}
    assert any(c.su & (c.su - 1) for c in ok)  # stripe units that are not powers of two


@needs_mkfs
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    size=st.integers(64 * MIB // 512, PIB // 512).map(lambda s: s * 512),
    su_kib=st.one_of(
        st.just(0), st.sampled_from([4 << i for i in range(10)]), st.integers(1, 512).map(lambda n: 4 * n)
    ),
    sw=st.integers(1, 60),
    sector=st.sampled_from([512, 4096]),
)
def test_matches_mkfs_hypothesis(size, su_kib, sw, sector):
    case = Case(size, su_kib * KIB, sw if su_kib else 0, 4096, sector)
    _assert_same(case, _planner(case), _tool(case))


@settings(max_examples=300, deadline=None)
@given(
    size=st.integers(300 * MIB // 4096, PIB // 4096).map(lambda b: b * 4096),
    su_blocks=st.integers(0, 512),
    sw=st.integers(1, 60),
)
def test_layout_invariants(size, su_blocks, sw):
    try:
        g = xfs_geometry(size, su_bytes=su_blocks * 4096, sw=sw)
    except PlanError:
        return
    assert g.data_blocks <= size // 4096
    assert (g.agcount - 1) * g.agsize_blocks < g.data_blocks <= g.agcount * g.agsize_blocks
    assert g.last_ag_blocks >= 16 * MIB // 4096 and g.agsize_blocks < TIB // 4096
    assert 64 * MIB <= g.log_bytes <= 2 * GIB - 10 * MIB and g.log_blocks < g.agsize_blocks
    if g.sunit_blocks:
        assert g.agsize_blocks % g.sunit_blocks == 0 or g.agsize_blocks > TIB // 4096 - g.sunit_blocks
        assert g.log_blocks % (g.log_sunit_bytes // 4096) == 0
    assert g.imaxpct in (25, 5, 1)


@pytest.mark.parametrize(
    ("kwargs", "field", "words"),
    [
        (dict(size_bytes=200 * MIB), "size_bytes", "300 MiB"),
        (dict(size_bytes=8 * MIB), "size_bytes", "16 MiB"),
        (dict(size_bytes=GIB + 100), "size_bytes", "multiple of 512"),
        (dict(size_bytes=GIB, su_bytes=64 * KIB, sw=0), "sw", "at least 1"),
        (dict(size_bytes=GIB, su_bytes=6 * KIB, sw=4), "su_bytes", "block size"),
        (dict(size_bytes=GIB, su_bytes=1000, sw=4), "su_bytes", "sector size"),
        (dict(size_bytes=GIB, su_bytes=GIB, sw=1100), "sw", "too large"),
        (dict(size_bytes=GIB, su_bytes=2 * GIB, sw=1), "su_bytes", "too large"),
        (dict(size_bytes=400 * MIB, su_bytes=64 * KIB, sw=4), "size_bytes", "64 MiB"),
        (dict(size_bytes=GIB, block_size=3000), "block_size", "power of two"),
        (dict(size_bytes=GIB, block_size=65536), "block_size", "power of two"),
        (dict(size_bytes=GIB, block_size=1024, sector_size=4096), "block_size", "sector size"),
        (dict(size_bytes=GIB, xfsprogs=(6, 8, 0)), "xfsprogs", "not modelled"),
        (dict(size_bytes=GIB, xfsprogs=(5, 10, 0)), "xfsprogs", "not modelled"),
    ],
)
def test_refusals_say_why(kwargs, field, words):
    with pytest.raises(PlanError) as err:
        xfs_geometry(**kwargs)
    assert err.value.field == field and words in err.value.message


def test_su_without_sw_and_sw_without_su():
    # mkfs.xfs reads su=0 as "no stripe" whatever sw says; the plan does the same.
    assert xfs_geometry(GIB, su_bytes=0, sw=7) == xfs_geometry(GIB)


def test_versions_in_the_modelled_range_agree():
    assert xfs_geometry(GIB, xfsprogs=(5, 19, 0)) == xfs_geometry(GIB, xfsprogs=(6, 4, 1))


@needs_mkfs
def test_log_minimum_stays_below_the_64_mib_floor():
    """The model never computes mkfs's transaction-based log minimum because, for the block
    sizes it accepts, that minimum is always below the 64 MiB floor. Ask mkfs for it."""
    worst = 0
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "p.img")
        for block in (1024, 4096, 16384):
            for sector in {512, min(block, 4096)}:
                for stripe in ("", ",su=256k,sw=4", ",su=2m,sw=60", ",su=64k,sw=8"):
                    for size in ("1g", "100t"):
                        argv = [
                            "mkfs.xfs",
                            "-N",
                            "-b",
                            f"size={block}",
                            "-s",
                            f"size={sector}",
                            "-l",
                            "size=2m",
                            "-d",
                            f"file,name={path},size={size}{stripe}",
                        ]
                        res = run(argv, check=False)
                        m = re.search(r"minimum size is (\d+) blocks", res.stderr)
                        assert m, res.stderr
                        worst = max(worst, int(m.group(1)) * block)
    assert 0 < worst < 64 * MIB
