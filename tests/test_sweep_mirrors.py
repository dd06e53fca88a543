"""The sweep offers n-way mirrors: RAID1 of 2 to 4, with a spare, RAID10 of three copies, btrfs raid1c3/c4."""

from __future__ import annotations

from planners.layouts.sweep import layouts, sweep
from planners.models import DiskSet, Filesystem, MdGroup, Plan
from planners.reliability.failure import tolerance

TB2 = 2_000_398_934_016


def disks(n: int, fs: Filesystem | None = None) -> Plan:
    return Plan(
        name="m",
        disks=[DiskSet(count=n, size=TB2)],
        groups=[MdGroup(level=5, members=n)] if n >= 3 else [MdGroup(level=1, members=n)],
        filesystem=fs or Filesystem(),
    )


def labels(n: int) -> list[str]:
    return [label for label, _, _ in layouts(disks(n))]


def test_three_disks_offer_a_mirror_of_three_and_a_mirror_with_a_spare():
    got = labels(3)
    for want in ("RAID1 3", "RAID1 2+1", "RAID10n3 3 512K", "RAID10f3 3 64K", "RAID10o3 3 512K"):
        assert want in got
    assert len(got) == len(set(got))
    (mirror,) = [groups for label, groups, _ in layouts(disks(3)) if label == "RAID1 3"]
    assert [(g.level, g.members, g.spares, g.chunk) for g in mirror] == [(1, 3, 0, None)]


def test_wider_sets_offer_mirrors_side_by_side_and_three_copy_raid10_where_the_count_allows():
    got = labels(6)
    for want in ("2x RAID1 3 striped", "2x RAID1 3 linear", "3x RAID1 2 linear", "RAID10n3 6 512K"):
        assert want in got
    assert "RAID1 6" not in got and "RAID1 5+1" not in got  # past four copies buys nothing a sysadmin asks for
    assert {"RAID1 4", "RAID1 3+1", "2x RAID1 2 striped"} <= set(labels(4))
    assert not any(label.startswith("RAID10n3 4") for label in labels(4))  # n3 needs whole copy sets
    assert "RAID10o3 4 64K" in labels(4)  # o3 and f3 take any count of at least three


def test_a_mirror_of_three_survives_two_failures():
    assert tolerance(MdGroup(level=1, members=3)) == 2
    assert tolerance(MdGroup(level=1, members=2, spares=1)) == 1


def test_the_sweep_of_three_disks_ranks_the_mirror_of_three_first_under_a_two_failure_limit():
    """With the yearly loss limit set where only a layout surviving two failures stays under it,
    the mirror of three heads the ranking and is on the front; every one-failure layout is risky."""
    s = sweep(disks(3))
    rows = {r.label: r for r in s.rows}
    mirror, one_failure = rows["RAID1 3"], [rows[k] for k in ("RAID5 3 512K", "RAID1 2+1", "RAID10f2 3 512K")]
    # The limit between the two kinds of layout: the safest that survives only one failure is over it.
    limit = min(r.loss.per_year[1] for r in one_failure) / 2
    assert mirror.loss.per_year[1] < limit
    ranked = sweep(disks(3), max_loss=limit)
    first = ranked.rows[0]
    assert first.label == "RAID1 3" and first.pareto and not first.risky
    by_label = {r.label: r for r in ranked.rows}
    assert all(by_label[r.label].risky for r in one_failure)
    assert all(r.label.startswith(("RAID1 3", "RAID10n3", "RAID10f3", "RAID10o3")) for r in ranked.rows if not r.risky)


def test_btrfs_sweep_offers_three_and_four_copies_where_they_fit():
    three = [r.label for r in sweep(disks(3, Filesystem(type="btrfs"))).rows]
    four = [r.label for r in sweep(disks(4, Filesystem(type="btrfs"))).rows]
    assert "btrfs raid1c3/raid1c3" in three and not any("raid1c4" in label for label in three)
    assert "btrfs raid1c4/raid1c4" in four
