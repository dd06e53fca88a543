"""The redundancy schemes (planners.schemes): each md level, LUN level and btrfs profile answers for
itself, agrees with the arithmetic that witnesses it (md's geometry, btrfs's profile table), and the
rest of the code asks it instead of comparing levels."""

from __future__ import annotations

import pathlib
import re
from fractions import Fraction

import pytest

from planners.fs.btrfs import PROFILES
from planners.grow.reshape import reshape_refusal
from planners.hardware.disks import Lun
from planners.md.geometry import md_geometry
from planners.models import MdGroup
from planners.reliability.failure import tolerance
from planners.schemes import BTRFS, LUN, MD, btrfs_scheme, md_scheme
from planners.units import GiB

ROOT = pathlib.Path(__file__).resolve().parent.parent
# `level == 6`, `g.level in (4, 5, 6)`, `profile != "single"`, `data_profile not in (...)`: a question
# only the scheme should answer. md's own geometry (planners/md) and the schemes themselves may ask it.
COMPARISON = re.compile(r"(level|profile)\s*(==|!=|(not\s+)?in\s*[(\[{])")
ALLOWED_HOMES = ("planners/md/", "planners/schemes.py")
MOST_COMPARISONS = 10


def _comparisons() -> list[str]:
    hits = []
    for layer in ("app", "planners", "runners"):
        for path in sorted((ROOT / layer).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if rel.startswith(ALLOWED_HOMES):
                continue
            for i, line in enumerate(path.read_text().splitlines(), 1):
                if COMPARISON.search(line) and not re.match(r"\s*for\b", line):
                    hits.append(f"{rel}:{i}: {line.strip()}")
    return hits


def test_level_and_profile_comparisons_stay_few() -> None:
    hits = _comparisons()
    assert len(hits) <= MOST_COMPARISONS, "ask planners.schemes instead:\n" + "\n".join(hits)


def test_the_count_sees_a_comparison() -> None:
    assert COMPARISON.search("if g.level in (4, 5, 6):") and COMPARISON.search('b.data_profile != "single"')
    assert COMPARISON.search("x.level not in (1, 10)") and not COMPARISON.search("level=g.level,")


@pytest.mark.parametrize(("level", "layout"), [(0, None), (1, None), (4, None), (5, None), (6, None)])
@pytest.mark.parametrize("n", [4, 5, 8, 13])
def test_md_data_members_match_mdadms_geometry(level: int, layout: str | None, n: int) -> None:
    md = md_geometry([GiB] * n, level=level, layout=layout)  # type: ignore[arg-type]
    assert Fraction(md_scheme(level).data_members(n)) == md.data_disks


@pytest.mark.parametrize("layout", ["n2", "n3", "f2", "f3", "o2", "o3"])
@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_raid10_data_members_and_copies_match_md(layout: str, n: int) -> None:
    md = md_geometry([GiB] * n, level=10, layout=layout)
    scheme = md_scheme(10)
    copies = scheme.copies_in(layout)
    assert copies == md.near_copies * md.far_copies
    assert Fraction(n, copies) == md.data_disks
    assert scheme.data_members(n, copies) == n / copies
    assert scheme.failures_tolerated(n, copies) == copies - 1


def test_md_failures_tolerated_and_rebuild_reads() -> None:
    table = {0: 0, 1: 5, 4: 1, 5: 1, 6: 2, 10: 1}  # over six members, RAID10 n2
    assert {level: s.failures_tolerated(6) for level, s in MD.items()} == table
    assert [tolerance(MdGroup(level=lv, members=6)) for lv in table] == list(table.values())  # type: ignore[arg-type]
    assert tolerance(MdGroup(level=10, layout="f3", members=6)) == 2
    assert md_scheme(6).rebuild_reads(10, 2) == 8 and md_scheme(10).rebuild_reads(10) == 1


def test_small_writes_cost_copies_or_read_modify_write() -> None:
    assert [s.small_write_ios(4) for s in MD.values()] == [1, 4, 4, 4, 6, 2]
    assert {lv: Lun(level=lv, disks=4).write_ios for lv in LUN} == {0: 1, 1: 2, 5: 4, 6: 6, 10: 2}  # type: ignore[arg-type]
    assert {lv: Lun(level=lv, disks=8).data_disks for lv in LUN} == {0: 8, 1: 4, 5: 7, 6: 6, 10: 4}  # type: ignore[arg-type]


def test_a_controllers_mirrors_are_pairs() -> None:
    with pytest.raises(ValueError, match="RAID1 LUN of 3 disks"):
        Lun(level=1, disks=3)
    with pytest.raises(ValueError, match="RAID6 LUN of 3 disks"):
        Lun(level=6, disks=3)
    assert LUN[1].level == 10 and LUN[1].failures_tolerated(6) == 1  # pairs, not a six-way mirror


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_btrfs_schemes_agree_with_the_allocators_table(profile: str) -> None:
    shape, scheme = PROFILES[profile], btrfs_scheme(profile)
    assert (scheme.copies, scheme.parity, scheme.min_members) == (shape.ncopies, shape.nparity, shape.devs_min)
    assert scheme.failures_tolerated(6) == shape.tolerated
    assert set(BTRFS) == set(PROFILES)


def test_reshape_targets() -> None:
    assert {lv: s.reshape_targets() for lv, s in MD.items()} == {0: (), 1: (), 4: (4,), 5: (5, 6), 6: (6,), 10: (10,)}
    assert md_scheme(10).reshape_targets("f2") == () and md_scheme(10).reshape_targets("o2") == (10,)
    assert reshape_refusal(5, None, 6, 6, 7) is None
    assert "RAID6 to RAID5" in (reshape_refusal(6, None, 5, 6, 7) or "")
    assert "far layout (f2)" in (reshape_refusal(10, "f2", 10, 4, 6) or "")
    assert "more mirrors" in (reshape_refusal(1, None, 1, 2, 3) or "")
    assert "RAID0 only by taking it over" in (reshape_refusal(0, None, 0, 2, 3) or "")


@pytest.mark.parametrize(
    ("level", "layout", "message"),
    [
        (10, "x2", "RAID10 layout 'x2' is not one of n2, n3, f2, f3, o2, o3"),
        (5, "n2", "RAID5 layout 'n2' is not a parity layout such as left-symmetric"),
        (0, "n2", "RAID0 takes no layout (got 'n2')"),
    ],
)
def test_layouts_each_level_refuses(level: int, layout: str, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        MdGroup(level=level, layout=layout, members=4)  # type: ignore[arg-type]


@pytest.mark.parametrize("level", sorted(MD))
def test_md_min_members_are_mdadms(level: int) -> None:
    least = md_scheme(level).min_members
    md_geometry([GiB] * least, level=level)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=f"needs at least {least} members"):
        md_geometry([GiB] * (least - 1), level=level)  # type: ignore[arg-type]


def test_write_span_is_the_full_stripe_only_where_parity_reads_first() -> None:
    chunk, stripe = 512 * 1024, 512 * 1024 * 4
    spans = [s.write_span(chunk if s.chunked else None, stripe) for s in MD.values()]
    assert spans == [chunk, 0, stripe, stripe, stripe, chunk]  # RAID1 has no chunk (mdadm's default)
