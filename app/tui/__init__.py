"""The interactive planner (Textual)."""

from __future__ import annotations

from pathlib import Path

from planners.models import Plan


def run_tui(plan: Plan, plan_file: str | Path | None = None) -> int:
    from app.tui.app import PodplanApp

    PodplanApp(plan, plan_file).run()
    return 0
