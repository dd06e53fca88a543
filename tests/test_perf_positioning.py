"""The soonest of q requests queued on a spinning disk (planners.perf.positioning), against the
model it computes, drawn at random."""

from __future__ import annotations

import random
from math import sqrt

import pytest

from planners.perf.positioning import best_of_queue


@pytest.mark.parametrize("alpha", [0.07, 0.5, 1.65])
@pytest.mark.parametrize("q", [2, 5, 16, 32])
def test_the_quadrature_against_drawing_the_queue(alpha, q):
    # The model itself, drawn: a head at a uniform place, q requests at uniform places, each
    # seeking alpha sqrt(distance) and waiting a uniform share of a turn; the soonest of them.
    rnd = random.Random(21)
    n = 20_000
    total = 0.0
    for _ in range(n):
        h = rnd.random()
        total += min(alpha * sqrt(abs(rnd.random() - h)) + rnd.random() for _ in range(q))
    assert best_of_queue(alpha, q) == pytest.approx(total / n, rel=0.02)


@pytest.mark.parametrize("alpha", [0.0, 0.3, 1.65, 2.5])
def test_one_request_takes_the_mean_seek_and_half_a_turn(alpha):
    assert best_of_queue(alpha, 1) == pytest.approx(alpha * 8 / 15 + 0.5, rel=1e-4)


@pytest.mark.parametrize("q", [1, 1.5, 2, 7, 32])
def test_without_a_seek_the_soonest_of_q_waits_a_turn_over_q_plus_one(q):
    assert best_of_queue(0.0, q) == pytest.approx(1 / (q + 1), rel=1e-4)
