"""The share of request slots that requests landing at random fill (planners.perf.landing), against
the binomial law summed term by term with exact integers, and the laws it must meet at its ends."""

from __future__ import annotations

from fractions import Fraction
from math import comb

from hypothesis import given
from hypothesis import strategies as st

from planners.perf.landing import used_slots


def exact(disks: int, outstanding: int, slots: int) -> Fraction:
    """E[min(X, slots)] / slots for X ~ Binomial(outstanding, 1 / disks), in exact arithmetic."""
    p = Fraction(1, disks)
    total = sum(
        comb(outstanding, j) * p**j * (1 - p) ** (outstanding - j) * min(j, slots) for j in range(outstanding + 1)
    )
    return total / slots


@given(st.one_of(st.integers(1, 12), st.integers(13, 1000)), st.integers(1, 160), st.integers(1, 48))
def test_matches_the_binomial_law_summed_exactly(disks, outstanding, slots):
    """Relative to the figure: a few requests over many disks use a small share, and the law's tail counts."""
    want = float(exact(disks, outstanding, slots))
    assert abs(used_slots(disks, float(outstanding), float(slots)) - want) <= 1e-9 * want


@given(st.integers(2, 64), st.floats(0.0, 300.0))
def test_one_slot_is_the_chance_a_disk_holds_a_request(disks, outstanding):
    """A disk serving one request at a time is busy when one landed there: 1 - (1 - 1/n)^k, as for
    spinning disks, for a fractional k too (a share of a job's depth)."""
    if outstanding < 1.0:
        return  # below one request the law is the even spread, k / n (no disk can hold two)
    assert abs(used_slots(disks, outstanding, 1.0) - (1.0 - (1.0 - 1.0 / disks) ** outstanding)) < 1e-9


def test_six_one_slot_disks_with_eight_requests_use_three_quarters_of_them():
    # P(a disk holds none) = (5/6)^8 = 0.2326
    assert abs(used_slots(6, 8.0, 1.0) - 0.7674) < 1e-4


def test_its_ends_are_the_even_spread_and_the_full_disks():
    # No disk can hold more than its slots: every request is served.
    assert used_slots(8, 20.0, 32.0) == 20.0 / (8 * 32)
    assert used_slots(1, 50.0, 32.0) == 1.0
    # Far above the slots every disk is full; far below, the even spread.
    assert used_slots(8, 100_000.0, 32.0) == 1.0
    assert used_slots(64, 65.0, 30.0) == 65.0 / (64 * 30)
    # Deep queues over two disks: the mass at zero underflows, the law does not.
    assert abs(used_slots(2, 1100.0, 600.0) - 0.91666) < 1e-4


@given(st.integers(2, 16), st.floats(1.0, 400.0), st.floats(1.0, 64.0))
def test_never_above_the_even_spread(disks, outstanding, slots):
    value = used_slots(disks, outstanding, slots)
    assert 0.0 <= value <= min(1.0, outstanding / (disks * slots)) + 1e-12
