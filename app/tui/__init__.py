"""The interactive planner (Textual)."""

from __future__ import annotations

from pathlib import Path

from planners.models import Plan


def run_tui(
    plan: Plan, plan_file: str | Path | None = None, theme: str = "textual-dark", units: str = "decimal"
) -> int:
    from app.tui.app import PodplanApp
    from app.tui.keys import read_keymap

    keymap = read_keymap()  # before the screen changes: a bad keymap is one line on the terminal
    app = PodplanApp(plan, plan_file, theme=theme, units=units)
    app.set_keymap(keymap)
    app.run()
    # A crash ends the app with return code 1 (Textual's own handler sets it): a wrapper must see it.
    return app.return_code or 0
