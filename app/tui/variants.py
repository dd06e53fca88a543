"""A pinned plan: what the Compare screen shows side by side."""

from __future__ import annotations

from typing import NamedTuple

from planners.models import Plan
from planners.results import PlanResult


class Variant(NamedTuple):
    name: str
    plan: Plan
    result: PlanResult
