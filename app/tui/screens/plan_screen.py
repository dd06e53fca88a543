"""The plan screen: the form on the left, every figure it implies on the right.

`values` (what the form shows) is the reactive input; each change recomputes the plan at
once. Computing a 60-disk plan takes well under a millisecond, so it runs on the UI thread
and the figures follow the keystroke with no debounce and no race between answers.
"""

from __future__ import annotations

from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.reactive import var
from textual.screen import Screen
from textual.widgets import Footer, Header

from app.tui.form_model import Values, plan_from_values, values_from_plan
from app.tui.messages import FormEdited, PlanComputed, PlanRejected
from app.tui.widgets.plan_form import PlanForm
from app.tui.widgets.results import ResultsPane
from planners.compute import compute
from planners.errors import PlanError
from planners.models import Plan


class PlanScreen(Screen[None]):
    """Edit a plan and watch its capacity, alignment and findings follow."""

    AUTO_FOCUS = "#count"

    values: var[Values] = var(dict, init=False)

    def __init__(self, plan: Plan) -> None:
        super().__init__(id="plan-screen")
        self.base = plan
        self._initial = values_from_plan(plan)

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="plan-body"):
            yield PlanForm(self._initial, id="form")
            yield ResultsPane(id="results")
        yield Footer()

    def on_mount(self) -> None:
        self.values = dict(self._initial)

    def load(self, plan: Plan) -> None:
        """Start over from `plan` (a file just opened, or a pinned variant)."""
        self.base = plan
        values = values_from_plan(plan)
        self.query_one(PlanForm).fill(values)
        self.values = values

    @on(FormEdited)
    def _form_edited(self, event: FormEdited) -> None:
        self.values = event.values

    def watch_values(self, values: dict[str, Any]) -> None:
        form = self.query_one(PlanForm)
        try:
            plan = plan_from_values(self.base, values)
            result = compute(plan)
        except PlanError as exc:
            form.show_error(exc.field, exc.message)
            self.query_one(ResultsPane).reject(exc.message)
            self.post_message(PlanRejected(exc.message, exc.field))
            return
        except Exception as exc:  # noqa: BLE001 - a planner bug must not take the user's session down
            form.show_error("", "")
            self.query_one(ResultsPane).reject(f"internal error: {exc!r}")
            self.post_message(PlanRejected(f"internal error: {exc!r}", ""))
            return
        form.clear_error()
        self.query_one(ResultsPane).show(plan, result)
        self.post_message(PlanComputed(plan, result))
