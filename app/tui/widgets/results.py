"""The results beside the form: headline, capacity waterfall, alignment and mkfs geometry, findings.

When the form describes an impossible plan the pane keeps the last valid figures (struck
through in the headline) under a banner that says why the new ones are missing, so the
user never loses sight of where they came from.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.timer import Timer
from textual.widgets import Static, TabbedContent, TabPane
from textual.worker import get_current_worker

from app.tui.tables import arrays, filesystems_text, summary_text, waterfall, waterfall_notes
from app.tui.widgets.table_static import TableStatic
from planners.models import Plan
from planners.results import PlanResult

if TYPE_CHECKING:
    from app.tui.widgets.curve import MeasuredPoints
    from app.usecases.predict import HostParity, JobFile

    PerfState = tuple[HostParity | None, JobFile | None, str, MeasuredPoints]
    """The App's host parity, loaded job file and where it was read, and validate's last figures."""

SECTIONS_SAID = 20
"""Job sections from which the Perf tab predicts once typing pauses, and says so (fewer take no
noticeable time)."""
TYPING_PAUSE_S = 0.4
"""Seconds without a change before a big job file is predicted again."""
NARROW_BELOW = 70  # columns of the pane under which the wide tables lose their TB and note columns

# The result tabs in order: (title, what each shows, for the command palette).
RESULT_TABS = {
    "tab-capacity": ("Capacity", "raw bytes to df available step by step, and the md arrays"),
    "tab-alignment": ("Alignment", "the alignment chain from md chunk to filesystem, and the mkfs geometry"),
    "tab-findings": ("Findings", "every misalignment and warning, in full"),
    "tab-performance": ("Perf", "predicted MB/s and IOPS per workload, and what limits each"),
}
# The tabs out of view at start, and the Static each shows. Their scroll and Static are made
# when the tab is first shown: six widgets fewer to build, style and lay out before the first paint.
LATER_TABS = {"tab-alignment": "alignment", "tab-findings": "findings", "tab-performance": "perf"}


class ResultsPane(Vertical):
    """Shows one PlanResult; `reject()` marks it as stale without dropping it."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.plan: Plan | None = None
        self.result: PlanResult | None = None
        self.error = ""
        self._narrow: bool | None = None
        self._shapes: dict[str, tuple[int, ...] | tuple[str]] = {}  # a table's shape, or a text's words
        self._filled: set[str] = set()
        self._perf_timer: Timer | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="summary")
        with TabbedContent(id="result-tabs"):
            with TabPane(RESULT_TABS["tab-capacity"][0], id="tab-capacity"):
                with VerticalScroll(classes="result-scroll"):
                    yield Static(id="filesystems")
                    yield TableStatic(id="waterfall")
                    yield Static(id="waterfall-notes")
                    yield TableStatic(id="arrays")
            for tab in LATER_TABS:
                yield TabPane(RESULT_TABS[tab][0], id=tab)

    def show(self, plan: Plan, result: PlanResult) -> None:
        self.plan, self.result, self.error = plan, result, ""
        self._refresh_figures()

    def reject(self, message: str) -> None:
        self.error = message
        self._put("#summary", summary_text(self.result, error=message, units=self._units()))

    def on_tabbed_content_tab_activated(self) -> None:
        self._refresh_figures()

    def on_resize(self) -> None:
        self._narrow = self.size.width < NARROW_BELOW
        self._refresh_figures()

    def _put(self, selector: str, content: Text | Table | Group) -> None:
        """Show `content`; ask for a new layout only when its size differs from what it replaces.

        A layout pass reflows the whole screen (the form included) and costs more than all the
        arithmetic, while most keystrokes change digits, not the shape of a table.
        """
        if selector == "#summary" and isinstance(content, Text):
            # Three lines unless a narrow pane wraps one: lay out only when the count changes.
            width = max(1, self.size.width - 1)
            shape: tuple[int, ...] = (len(content.wrap(self.app.console, width)),)
        elif isinstance(content, Table):
            # The longest cell of each column decides the table's width: cheaper than Rich's
            # measurement (2.5 ms a table), and it changes exactly when the width can; a column held
            # narrower than its longest cell wraps, and its limit decides the table's height.
            shape = (
                content.row_count,
                *(max((len(str(c)) for c in col.cells), default=0) for col in content.columns),
                *(col.max_width or 0 for col in content.columns),
            )
        else:
            shape = ()  # no cheap way to know: always lay out
        same = bool(shape) and self._shapes.get(selector) == shape
        self._shapes[selector] = shape
        self.query_one(selector, Static).update(content, layout=not same)

    def _put_if_changed(self, selector: str, text: Text) -> None:
        """Text whose size cannot be known cheaply: lay out only when the words changed."""
        if self._shapes.get(selector) != (str(text),):
            self._shapes[selector] = (str(text),)
            self.query_one(selector, Static).update(text)

    def refresh_figures(self) -> None:
        """Redraw from the last plan (something behind the figures changed, not the plan)."""
        self._refresh_figures()

    def _units(self) -> str:
        """TB or TiB first, as the config file said at the app's start (PodplanApp.units)."""
        return str(getattr(self.app, "units", "decimal"))

    def _refresh_figures(self) -> None:
        if self.result is None or self.plan is None:
            return
        plan, result = self.plan, self.result
        narrow = bool(self._narrow)
        self._put("#summary", summary_text(result, error=self.error, units=self._units()))
        errors = sum(f.severity == "error" for f in result.findings)
        warnings = sum(f.severity == "warning" for f in result.findings)
        label = "Findings" + (f" {errors}E" if errors else "") + (f" {warnings}W" if warnings else "")
        tabs = self.query_one("#result-tabs", TabbedContent)
        tab = tabs.get_tab("tab-findings")
        if str(tab.label) != label:
            tab.label = label
        # Only the tab in view is drawn; switching tabs draws the one that appears.
        active = tabs.active
        if active in LATER_TABS and active not in self._filled:
            self._filled.add(active)
            # Mounted one inside the other, not as a child given to the scroll: that one would join
            # the screen only when the scroll composes, after the figures below are put in it.
            scroll = VerticalScroll(classes="result-scroll")
            tabs.get_pane(active).mount(scroll)
            if active == "tab-performance":
                from app.tui.widgets.prerendered import Prerendered

                note = Static(id="perf-note")
                note.display = False
                scroll.mount(note, Prerendered(id="perf"))
            else:
                scroll.mount(Static(id=LATER_TABS[active]))
        if active == "tab-capacity":
            room = self.size.width - 2  # the pane's left padding and the scroll bar (podplan.tcss)
            table = waterfall(result, narrow=narrow, width=room)
            several = filesystems_text(result)
            self._put_if_changed("#filesystems", several)
            self.query_one("#filesystems").display = bool(several)
            self._put("#waterfall", table)
            self._put_if_changed("#waterfall-notes", waterfall_notes(result, table))
            if result.groups:
                self._put("#arrays", arrays(plan, result, narrow=narrow, width=room))
            self.query_one("#arrays").display = bool(result.groups)  # no md: no arrays to list
        # The other tabs' renderers are imported when first shown: the first paint needs none of them.
        elif active == "tab-alignment":
            from app.shared.render import alignment_table, volume_table

            parts: list = []
            for v in result.volumes:
                parts += [alignment_table(plan, v), volume_table(plan, v, self._units())]
            self._put("#alignment", Group(*parts))
        elif active == "tab-findings":
            from app.shared.render import findings_text

            self._put("#findings", findings_text(result))
        elif active == "tab-performance":
            self._predict_soon(plan, result, self.size.width - 2)

    def _predict_soon(self, plan: Plan, result: PlanResult, width: int) -> None:
        """At once for the suite; for a big job file once typing pauses, with a note meanwhile: a
        thread per keystroke would take the interpreter from the typing it should leave alone."""
        if self._perf_timer is not None:
            self._perf_timer.stop()
            self._perf_timer = None
        # The App's state as it is now, read here on the UI thread: the worker gets its own copy.
        app = self.app
        state = (app.host_parity, *app.loaded_job, app.measured)  # type: ignore[attr-defined]
        job = state[1]
        sections = len(job.workloads) if job else 0
        if sections < SECTIONS_SAID:
            self._predict(plan, result, width, state)
            return
        self._note(f"Predicting {sections} job sections once typing pauses...")
        self._perf_timer = self.set_timer(TYPING_PAUSE_S, lambda: self._predict(plan, result, width, state))

    # A big job file's predictions take seconds: in a thread, the next keystroke's run replaces this
    # one (exclusive), and a run that was replaced shows nothing.
    @work(thread=True, exclusive=True, exit_on_error=False, group="perf")
    def _predict(self, plan: Plan, result: PlanResult, width: int, state: PerfState) -> None:
        from app.tui.widgets.curve import curve_groups
        from app.tui.widgets.perf import perf_view
        from app.tui.widgets.prerendered import render_strips

        parity, job, source, measured = state
        worker = get_current_worker()
        view = perf_view(plan, result, width, parity, job, source)
        strips = render_strips(view, width) if not worker.is_cancelled else []
        groups = curve_groups(plan, result, parity, job, measured) if not worker.is_cancelled else []
        if not worker.is_cancelled:
            self.app.call_from_thread(self._show_predictions, view, strips, groups)

    def _note(self, text: str) -> None:
        """The Perf tab's line above its figures: shown only while it says something."""
        note = self.query_one("#perf-note", Static)
        note.display = bool(text)
        self._put_if_changed("#perf-note", Text(text))

    def _show_predictions(self, view: Group, strips: list, groups: list) -> None:
        from app.tui.widgets.curve import show_curves
        from app.tui.widgets.prerendered import Prerendered

        self.query_one("#perf", Prerendered).show(view, strips)
        self._note("")
        show_curves(self.query_one("#tab-performance .result-scroll", VerticalScroll), groups)
