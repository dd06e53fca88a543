"""The results beside the form: headline, capacity waterfall, alignment and mkfs geometry, findings.

When the form describes an impossible plan the pane keeps the last valid figures (struck
through in the headline) under a banner that says why the new ones are missing, so the
user never loses sight of where they came from.
"""

from __future__ import annotations

from rich.console import Group
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Static, TabbedContent, TabPane

from app.render import alignment_table, findings_text, volume_table
from app.tui.tables import arrays, summary_text, waterfall
from planners.models import Plan
from planners.results import PlanResult

NARROW_BELOW = 70  # columns of the pane under which the wide tables lose their TB and note columns


class ResultsPane(Vertical):
    """Shows one PlanResult; `reject()` marks it as stale without dropping it."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.plan: Plan | None = None
        self.result: PlanResult | None = None
        self.error = ""
        self._narrow: bool | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="error-banner")
        yield Static(id="summary")
        with TabbedContent(id="result-tabs"):
            with TabPane("Capacity", id="tab-capacity"):
                with VerticalScroll(classes="result-scroll"):
                    yield Static(id="waterfall")
                    yield Static(id="arrays")
            with TabPane("Alignment", id="tab-alignment"):
                with VerticalScroll(classes="result-scroll"):
                    yield Static(id="alignment")
            with TabPane("Findings", id="tab-findings"):
                with VerticalScroll(classes="result-scroll"):
                    yield Static(id="findings")
            with TabPane("Perf", id="tab-performance"):
                yield Static(
                    "Predicted throughput, with the component that limits it, will appear here "
                    "once the performance model exists.", classes="placeholder")

    def show(self, plan: Plan, result: PlanResult) -> None:
        self.plan, self.result, self.error = plan, result, ""
        self._refresh_figures()

    def reject(self, message: str) -> None:
        self.error = message
        self._render_banner()
        if self.result is not None:
            self.query_one("#summary", Static).update(summary_text(self.result, stale=True))

    def on_resize(self) -> None:
        self._narrow = self.size.width < NARROW_BELOW
        self._refresh_figures()

    def _render_banner(self) -> None:
        banner = self.query_one("#error-banner", Static)
        if self.error:
            suffix = "; showing the last valid results" if self.result is not None else ""
            banner.update(Text.assemble(("Not computed: ", "bold"), self.error, suffix))
        banner.display = bool(self.error)

    def _refresh_figures(self) -> None:
        self._render_banner()
        if self.result is None or self.plan is None:
            return
        plan, result = self.plan, self.result
        narrow = bool(self._narrow)
        self.query_one("#summary", Static).update(summary_text(result))
        self.query_one("#waterfall", Static).update(waterfall(result, narrow=narrow, width=self.size.width))
        self.query_one("#arrays", Static).update(arrays(plan, result, narrow=narrow))
        parts: list = []
        for v in result.volumes:
            parts += [alignment_table(plan, v), volume_table(plan, v)]
        self.query_one("#alignment", Static).update(Group(*parts))
        self.query_one("#findings", Static).update(findings_text(result))
        errors = sum(f.severity == "error" for f in result.findings)
        warnings = sum(f.severity == "warning" for f in result.findings)
        label = "Findings" + (f" {errors}E" if errors else "") + (f" {warnings}W" if warnings else "")
        self.query_one("#result-tabs", TabbedContent).get_tab("tab-findings").label = label
