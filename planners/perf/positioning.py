"""How long a spinning disk takes to reach the best of the requests queued on it.

Drive firmware serves its queue (NCQ / TCQ) in rotational-position-optimised order: of the q
requests it holds it starts the one it can reach soonest, seek and rotational wait together.
With the head at a place h of the span (where the last request left it) and each queued
request at a place of its own, uniform over the span and independent of the others, a request
at distance d is reached after its seek, settle + a sqrt(d), and then a rotational wait uniform
over one revolution R (its sector's angle is independent of everything else). Given h the q
access times are independent draws T_1..T_q with survival G_h(t) = P(T > t), so

    E[min of q] = E_h[ integral of G_h(t)^q dt ],

exact for the model's assumptions (the q waiting requests are taken as fresh uniform draws:
that the firmware just passed over some of them is not modelled). In revolutions, above
settle: a request's seek is alpha sqrt(D) with D its distance as a share of the span
(alpha = a sqrt(span) / R). D given h is, with chance h, uniform on [0, h] (the request lies
behind the head) and otherwise uniform on [0, 1 - h], so G_h mixes two copies of the law of
b sqrt(U) + W (U, W uniform on [0, 1]), whose distribution function has the closed form in
`_cdf`. Its limits: alpha -> 0 (a short span: the seek is settle alone) gives
integral of (1 - t)^q = 1 / (q + 1) revolution, the least of q uniform waits; at q = 1 the
integral is the mean, alpha E[sqrt D] + 1/2 with E[sqrt D] = 8/15 over a uniform head, which is
the queue-depth-1 positioning the caller starts from; for small t and t <= alpha sqrt(h),
F_h(t) = 2 t^3 / (3 alpha^2) whatever h, so on a full span and a deep queue the wait falls as
q^(-1/3) (seek and rotation cannot both be the shortest).

The integrals are Gauss-Legendre sums: over h (by symmetry on [0, 1/2], as h = v^2 so the
square root at h = 0 is smooth in v) and over t in pieces cut where G_h has a kink (at b,
1 and 1 + b for each of the two seek scales b) and at halvings of the range, where G_h^q falls
off for a deep queue. Against a brute-force midpoint sum the worst difference is 2e-5 of the
result (alpha 0 to 2.5, q 1 to 32). The nodes do not depend on q and the weights are positive,
so the figure falls with every request added, as the integral does.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import pairwise
from math import cos, pi, sqrt

# E[sqrt(D)] for D the distance between two uniform places on [0, 1]: 2 * integral of
# sqrt(x) (1 - x) dx = 8/15. The seek scale a is set so that the mean seek is the caller's.
MEAN_SQRT_DISTANCE = 8 / 15


def _gauss_legendre(n: int) -> tuple[tuple[float, float], ...]:
    """Nodes and weights on [-1, 1] (Newton's method on the Legendre polynomial P_n)."""
    out = []
    for i in range(1, n + 1):
        x = cos(pi * (i - 0.25) / (n + 0.5))
        for _ in range(100):
            p0, p1 = 1.0, x
            for k in range(2, n + 1):
                p0, p1 = p1, ((2 * k - 1) * x * p1 - (k - 1) * p0) / k
            dp = n * (x * p1 - p0) / (x * x - 1)
            step = p1 / dp
            x -= step
            if abs(step) < 1e-15:
                break
        out.append((x, 2 / ((1 - x * x) * dp * dp)))
    return tuple(out)


_HEAD = _gauss_legendre(6)  # over the head's place
_TIME = _gauss_legendre(4)  # over each piece of time
_HALVINGS = 6  # pieces at 1/2, 1/4, ... 1/64 of the range


def _cdf(t: float, b: float) -> float:
    """P(b sqrt(U) + W <= t) for U, W uniform on [0, 1]: the seek X = b sqrt(U) has density
    2x / b^2 on [0, b], and the wait fits for X <= t - 1 always, for X in [t - 1, t] with
    chance t - X."""
    if b < 1e-9:
        return min(1.0, max(0.0, t))
    lo = min(max(t - 1.0, 0.0), b)
    hi = min(t, b)
    return (lo * lo + t * (hi * hi - lo * lo) - 2.0 / 3.0 * (hi**3 - lo**3)) / (b * b)


@lru_cache(maxsize=1024)
def best_of_queue(alpha: float, q: float) -> float:
    """Expected access time, in revolutions above settle, of the soonest of q queued requests,
    each seeking alpha sqrt(distance share) revolutions and then waiting uniform over one."""
    total = 0.0
    half = sqrt(0.5)
    for xv, wv in _HEAD:
        v = half * (xv + 1) / 2
        h = v * v
        wh = wv * half / 2 * 2 * v  # dh = 2 v dv
        b1, b2 = alpha * sqrt(h), alpha * sqrt(1 - h)
        top = 1.0 + b2
        cuts = sorted({0.0, b1, b2, 1.0, 1.0 + b1, top} | {top * 0.5**k for k in range(1, _HALVINGS + 1)})
        inner = 0.0
        for lo, hi in pairwise(cuts):
            if hi - lo < 1e-12 or lo >= top:
                continue
            for xt, wt in _TIME:
                t = lo + (hi - lo) * (xt + 1) / 2
                survive = 1.0 - (h * _cdf(t, b1) + (1 - h) * _cdf(t, b2))
                inner += wt * (hi - lo) / 2 * max(survive, 0.0) ** q
        total += wh * inner
    return 2.0 * total  # h and 1 - h alike
