"""A term of the bottleneck model, and a workload's terms by name.

A term is a ceiling on one workload's throughput: what one component alone would allow. Several
parts of the model may bound the same component (each md group, the two sides of a mix); the
lower figure is the one that holds.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import NamedTuple


class Term(NamedTuple):
    """One ceiling on a workload's throughput (a named tuple: the model makes thousands in a sweep)."""

    name: str
    """Component: disks, queue depth, readahead, stripe cache, md thread, parity CPU, ..."""
    mb_s: float
    """Throughput this component alone would allow, MB/s (10^6 bytes/s)."""
    note: str
    """How the figure was derived."""


# The CPU copying a buffered reader's or writer's bytes between the page cache and its buffer: named
# for what limits it (the page cache itself is rarely short of room; the copy is what takes the time).
CPU_COPY = "CPU copy"
# An input or a term moving the figure by less than this is not named in a range: '-0%' would count
# an input that changes nothing (the controller's write share, the kernel, a flush, the IOMMU).
MOVES = 0.01


def moved_terms(terms: Mapping[str, float], other: Mapping[str, float], best: float) -> frozenset[str]:
    """The terms an input moves: those that bind now (at `best`) and each that falls by MOVES or more
    when the input is at its other end (`other`)."""
    return frozenset(n for n, v in terms.items() if v <= best or other.get(n, v) < v * (1 - MOVES))


Terms = dict[str, Term]
"""A workload's terms by name, in the order each component was first bound."""


def lowest(*sources: Iterable[Term | None]) -> Terms:
    """The terms by name, keeping the lower figure (the first of equal ones) where two parts of the
    model bound the same component."""
    out: Terms = {}
    for source in sources:
        for term in source:
            if term is not None and (term.name not in out or term.mb_s < out[term.name].mb_s):
                out[term.name] = term
    return out


def smallest(terms: Terms) -> float:
    """The figure of the lowest term, MB/s."""
    return min(term.mb_s for term in terms.values())
