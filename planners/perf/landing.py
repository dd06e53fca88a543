"""How much of several disks' request slots a number of requests in flight fill, when each lands on a disk at random.

A disk (or a flash drive's internal units) serves up to `slots` requests at once; requests beyond
that wait. With k requests in flight, each landing on one of n disks independently, the count on
one disk is X ~ Binomial(k, 1/n), and the disk's slots are used E[min(X, slots)] / slots of the
time. Spreading k requests perfectly (k / (n slots), the figure the model used for flash) is the
limit where every disk already holds at least its slots: it over-counts whenever some disks hold
fewer while others queue. Six one-slot disks with eight requests in flight use 77 % of their
slots, not 100 %.

k may be fractional (a share of a job's depth reaches one array): above the slots, the binomial
law's mass function is taken with the real k through the gamma function, which gives (1 - 1/n)^k
at zero as the spinning disks' law has; at or below them no disk can queue and the share is the
even spread's (planners.perf.context keeps the spinning disks' own law for under one request).
"""

from __future__ import annotations

from functools import lru_cache
from math import ceil, exp, floor, lgamma, log, sqrt


@lru_cache(maxsize=1024)
def used_slots(disks: int, outstanding: float, slots: float) -> float:
    """E[min(X, slots)] / slots for X ~ Binomial(outstanding, 1 / disks): the share of the slots in use."""
    if disks <= 0 or outstanding <= 0 or slots <= 0:
        return 0.0
    if outstanding <= slots or disks == 1:
        # No disk can hold more than its slots (or one disk holds all): every request is being served.
        return min(outstanding, slots * disks) / (slots * disks)
    p = 1.0 / disks
    mean, spread = outstanding * p, sqrt(outstanding * p * (1.0 - p))
    # Nine spreads below the mean the law holds a negligible mass; above it, nine spreads and ten requests more
    # (a few requests over many disks make it skewed: with 0.05 a disk on average, P(X > 10) is below 10^-18).
    low, high = max(0, floor(mean - 9.0 * spread)), ceil(mean + 9.0 * spread) + 10
    if low >= slots:
        return 1.0
    if high < slots:
        return mean / slots
    # P(X > j) is 1 below `low`: those terms of sum over j < slots of min(1, slots - j) P(X > j) are `low`.
    filled = float(low)
    mass = exp(
        lgamma(outstanding + 1.0)
        - lgamma(low + 1.0)
        - lgamma(outstanding - low + 1.0)
        + low * log(p)
        + (outstanding - low) * log(1.0 - p)
    )
    ratio = p / (1.0 - p)
    below = 0.0  # P(X <= j)
    for j in range(low, min(ceil(slots), high)):
        below += mass
        filled += min(1.0, slots - j) * max(0.0, 1.0 - below)
        mass *= max(0.0, outstanding - j) / (j + 1.0) * ratio
    return filled / slots
