"""Grow: what growing the pod built from the current plan gives, as `podplan grow` shows it.

A compact form (disks to add, their size, a new level, the array, the mode) and below it
every figure before -> after, the backup-file decision, the reshape time, the alignments left
behind and the steps; f2 switches to the grow script, ctrl+s saves it, ctrl+l saves the grown
layout as a plan file.
The arithmetic is pure and quick, so it follows every keystroke like the main form.
"""

from __future__ import annotations

from typing import cast

from rich.syntax import Syntax
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Header, Input, Label, Static

from app.shared.grow import alternative_line, btrfs_growth_lines, render_growth
from app.tui.keys import bindings
from app.tui.widgets.choice import Choice
from app.tui.widgets.footer import ScreenFooter
from app.usecases.grow import (
    BtrfsGrowPlan,
    BtrfsGrowth,
    GrowMode,
    GrowPlan,
    GrowPlanRequest,
    GrowRequest,
    Growth,
    plan_growth,
)
from planners.errors import PlanError
from planners.models import Plan
from planners.units import parse_size

MODES = [("choose", ""), ("reshape an array", "reshape"), ("new array (LVM)", "new-array")]
LEVELS = [("unchanged", ""), ("RAID6", "6")]


class GrowScreen(Screen[None]):
    """Plan growing the pod that the current plan describes."""

    BINDINGS = bindings("grow")

    def __init__(self, plan: Plan) -> None:
        super().__init__(id="grow-screen")
        self.plan = plan
        self.grown: GrowPlan | BtrfsGrowPlan | None = None
        self.growth: Growth | BtrfsGrowth | None = None
        self.target: Plan | None = None
        self.error = ""
        self.show_script = False

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical(id="grow-form"):
            yield Label("add disks", classes="form-label")
            yield Input("1", id="grow-add", compact=True, restrict=r"[0-9]*")
            yield Label("disk size", classes="form-label")
            yield Input(id="grow-size", placeholder="the array's disk size", compact=True)
            yield Label("array", classes="form-label")
            # A btrfs across raw disks has no md array: it grows by device add and a balance.
            last = f"{self.plan.groups[-1].name} (the last)" if self.plan.groups else "none (no md)"
            yield Input(id="grow-group", placeholder=last, compact=True)
            yield Label("new level", classes="form-label")
            yield Choice(LEVELS, "", id="grow-level")
            yield Label("mode", classes="form-label")
            yield Choice(MODES, "", id="grow-mode")
        with VerticalScroll(id="grow-body"):
            yield Static(id="grow-result")
        yield ScreenFooter()

    def on_mount(self) -> None:
        self.query_one("#grow-add", Input).focus()
        self.recompute()

    @on(Input.Changed)
    @on(Choice.Changed)
    def _changed(self) -> None:
        self.recompute()

    def request(self) -> GrowRequest:
        add = self.query_one("#grow-add", Input).value.strip()
        size = self.query_one("#grow-size", Input).value.strip()
        group = self.query_one("#grow-group", Input).value.strip()
        level = self.query_one("#grow-level", Choice).value
        # The choice offers GrowMode's values and '' for none (MODES).
        mode = cast(GrowMode | None, self.query_one("#grow-mode", Choice).value or None)
        return GrowRequest(
            add_disks=int(add or 0),
            size=parse_size(size, what="disk size") if size else None,
            to_level=int(level) if level else None,
            group=group or None,
            mode=mode,
        )

    def recompute(self) -> None:
        others: list[str] = []
        try:
            grown = plan_growth(GrowPlanRequest(self.plan, request=self.request()))
            self.grown, self.target, self.growth = grown, grown.target, grown.growth
            if isinstance(grown, GrowPlan):
                others = [alternative_line(mode, g) for mode, g in grown.alternatives]
            self.error = ""
        except PlanError as exc:
            self.grown, self.growth, self.target, self.error = None, None, None, exc.message
        except ValueError as exc:  # pydantic's own checks of the request
            self.grown, self.growth, self.target, self.error = None, None, None, str(exc).splitlines()[-1]
        self._others = others
        self._show()

    def _show(self) -> None:
        out = self.query_one("#grow-result", Static)
        if self.grown is None:
            out.update(Text(f"Cannot grow: {self.error}", style="bold red"))
        elif self.show_script:
            theme = "monokai" if self.app.current_theme.dark else "default"
            out.update(Syntax(self.grown.script(), "bash", theme=theme, word_wrap=True, background_color="default"))
        elif isinstance(self.grown, BtrfsGrowPlan):
            out.update(Text("\n".join(btrfs_growth_lines(self.grown.growth))))
        else:
            out.update(render_growth(self.grown.growth, alternatives=self._others))

    def action_toggle_script(self) -> None:
        self.show_script = not self.show_script
        self._show()

    def action_save_script(self) -> None:
        if self.grown is None:
            self.notify(f"Nothing to save: {self.error}", severity="error")
            return
        from app.shared.planfile import write_script

        text = self.grown.script()
        # save_file is PodplanApp's; Textual types self.app as its base App.
        self.app.save_file(  # type: ignore[attr-defined]
            "Save the grow script as",
            f"grow-{self.plan.name}.sh",
            "grow script",
            lambda path, force: write_script(path, text, force),
        )

    def action_save_layout(self) -> None:
        if self.target is None:
            self.notify(f"Nothing to save: {self.error}", severity="error")
            return
        from app.shared.planfile import save_plan

        target = self.target
        self.app.save_file(  # type: ignore[attr-defined]
            "Save the grown layout as",
            f"{self.plan.name}-grown.toml",
            "grown layout",
            lambda path, force: save_plan(target, path, overwrite=force),
        )
