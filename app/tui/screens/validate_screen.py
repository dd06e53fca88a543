"""Validate: run the fio suite on a built array, follow each workload live, then set the
measured figures beside the current plan's prediction, as `podplan validate` does.

The suite runs in a thread worker and reports through FioProgressed messages. Leaving the
screen stops fio (SIGTERM, through the runner's cancel event): a benchmark nobody watches
would otherwise keep loading the array, and on a directory keep its test file on disk.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Button, Checkbox, DataTable, Header, Input, Label, Static
from textual.worker import Worker, WorkerState

from app.shared.figures import measured_text, running_figures
from app.tui.keys import bindings
from app.tui.widgets.choice import Choice
from app.tui.widgets.footer import ScreenFooter
from app.tui.widgets.tick import Tick
from app.tui.work_messages import FioProgressed, TargetMismatched, ValidationFailed, ValidationFinished
from app.usecases.validate import (
    JobFigures,
    PlanMismatched,
    SideBySide,
    ValidateEvent,
    ValidateOutcome,
    ValidateReport,
    ValidateRequest,
    WorkloadProgressed,
    destroy_refusal,
    nothing_to_run,
    suite_runtime_s,
    validate_session,
    workload_names,
)
from planners.errors import PodplanError
from planners.models import Plan

PROGRESS_BAR = 24
CHART_BAR = 32
COLUMNS = ("workload", "status", "MB/s", "IOPS", "steady", "predicted", "diff", "binding", "likely reasons")
NUMERIC = {"MB/s", "IOPS", "predicted", "diff"}


def text_bar(fraction: float, width: int) -> str:
    filled = round(max(0.0, min(1.0, fraction)) * width)
    return "█" * filled + "░" * (width - filled)


def _figures_text(figures: JobFigures | None) -> str:
    return running_figures(figures.bytes_s, figures.iops) if figures else ""


def progress_line(
    name: str, event: str, elapsed_s: float, figures: JobFigures | None, runtime_s: float, status: str = ""
) -> str:
    """One workload's line; `event` is the last thing fio said ('' = not started), `status` how it ended."""
    if not event:
        return f"{name:<14} {text_bar(0, PROGRESS_BAR)}  {status or 'waiting'}"
    # A workload stops as soon as it is steady, usually before its runtime: full when it ended.
    fraction = 1.0 if event == "end" else elapsed_s / runtime_s
    state = status or ("done" if event == "end" else "running")
    return f"{name:<14} {text_bar(fraction, PROGRESS_BAR)} {elapsed_s:5.1f} s {_figures_text(figures)}  {state}"


def _scaled_pair(row: SideBySide) -> tuple[float | None, float | None, str]:
    """(measured, predicted, unit): MB/s for sequential workloads, IOPS for random ones, as the diff is taken."""
    if row.workload.startswith("seq"):
        return row.measured_mb_s, row.predicted_mb_s, "MB/s"
    return row.measured_iops, row.predicted_iops, "IOPS"


def bar_chart(rows: Sequence[SideBySide], width: int = CHART_BAR) -> str:
    """Predicted against measured per workload as text bars.

    MB/s and IOPS share no scale, so each unit is scaled to its own largest figure: the
    sequential bars compare with each other, the random ones with each other.
    """
    pairs = [(r.workload, *_scaled_pair(r)) for r in rows]
    top: dict[str, float] = {}
    for _, measured, predicted, unit in pairs:
        top[unit] = max(top.get(unit, 0.0), measured or 0.0, predicted or 0.0)
    lines = []
    for name, measured, predicted, unit in pairs:
        scale = top[unit] or 1.0
        for i, (label, value) in enumerate((("measured", measured), ("predicted", predicted))):
            head = name if i == 0 else ""
            if value is None:
                text = "none" if label == "measured" else "no prediction"
                lines.append(f"{head:<14} {label:<9} {' ' * width}  {text}")
            else:
                lines.append(f"{head:<14} {label:<9} {text_bar(value / scale, width)}  {value:,.0f} {unit}")
    return "\n".join(lines)


def _predicted_text(row: SideBySide) -> str:
    _, predicted, unit = _scaled_pair(row)
    return "no prediction" if predicted is None else f"{predicted:,.0f} {unit}"


def table_rows(report: ValidateReport, rows: Sequence[SideBySide]) -> list[tuple[str, ...]]:
    """The cells of the results table, one tuple per workload in the order it ran."""
    out: list[tuple[str, ...]] = []
    for w, r in zip(report.workloads, rows, strict=True):
        steady = "" if r.steady is None else ("yes" if r.steady else "not steady")
        notes = "; ".join(([w.reason] if w.reason else []) + list(r.reasons))
        out.append(
            (
                w.name,
                w.status,
                measured_text(r.measured_mb_s, ",.1f", 1),
                measured_text(r.measured_iops, ",.0f", 10),
                steady,
                _predicted_text(r),
                "" if r.diff_pct is None else f"{r.diff_pct:+.0f} %",
                r.binding,
                notes,
            )
        )
    return out


class ValidateScreen(Screen[None]):
    """Measure a device or a directory with the quick or full fio suite and compare with the plan."""

    BINDINGS = bindings("validate")

    def __init__(self, plan: Plan | None) -> None:
        super().__init__(id="validate-screen")
        self.plan = plan
        self._cancel: threading.Event | None = None
        self._runtime_s = float(suite_runtime_s("quick"))
        self._progress: dict[str, tuple[str, float, JobFigures | None]] = {}

    def _suites(self) -> list[tuple[str, str]]:
        """The suite, or the sections of the job file loaded with ctrl+j, grouped as fio runs them."""
        job, source = self.app.loaded_job  # type: ignore[attr-defined]
        return [("quick (about a minute)", "quick"), ("full (several minutes)", "full")] + (
            [(f"the sections of {source}", "job")] if job else []
        )

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical(id="validate-form"):
            yield Label("target", classes="form-label")
            # Compact rows: at 80x24 the results must be in view, not below the fold.
            yield Input(id="target", placeholder="/dev/md0, /dev/vg/lv, or a directory on the array", compact=True)
            yield Label("suite", classes="form-label")
            yield Choice(self._suites(), "quick", id="mode")
            yield Label("destroy data", classes="form-label")
            yield Input(
                id="destroy", placeholder="name the device (or a link to it) to let write jobs erase it", compact=True
            )
            yield Label("", classes="form-label")
            yield Tick(
                "set the current plan's prediction beside the figures",
                self.plan is not None,
                id="use-plan",
                disabled=self.plan is None,
            )
        with Horizontal(id="validate-buttons"):
            yield Button("Start", variant="primary", id="start", compact=True)
            yield Button("Cancel", variant="error", id="cancel", disabled=True, compact=True)
        with VerticalScroll(id="validate-body"):
            yield Static(
                "Type a target and press Start. Write jobs on a raw device run only if it is blank "
                "or that device (its name or a link to it) is typed under destroy data.",
                id="validate-progress",
            )
            yield DataTable(id="validate-table", zebra_stripes=True, cursor_type="row")
            yield Static(id="validate-chart")
            yield Static(id="validate-notes", markup=False)  # notes quote job files: [section] is no tag
        yield ScreenFooter()

    def on_mount(self) -> None:
        table = self.query_one("#validate-table", DataTable)
        for col in COLUMNS:
            table.add_column(col, key=col)
        self.query_one("#target", Input).focus()

    def on_unmount(self) -> None:
        if self._cancel is not None:
            self._cancel.set()

    @property
    def running(self) -> bool:
        return self._cancel is not None

    def _set_running(self, cancel: threading.Event | None) -> None:
        self._cancel = cancel
        for selector in ("#start", "#target", "#mode", "#destroy", "#use-plan"):
            self.query_one(selector).disabled = cancel is not None or (selector == "#use-plan" and self.plan is None)
        self.query_one("#cancel", Button).disabled = cancel is None

    # -- starting and stopping ------------------------------------------------------------------
    @on(Input.Submitted)
    @on(Button.Pressed, "#start")
    def action_start(self) -> None:
        if self.running:
            self.notify("A run is under way: cancel it first", severity="warning")
            return
        target = self.query_one("#target", Input).value.strip()
        if not target:
            self.notify("Type the device or directory to validate", severity="error")
            self.query_one("#target", Input).focus()
            return
        destroy = self.query_one("#destroy", Input).value.strip() or None
        # The runner's own guard decides, before anything runs: it compares devices, not names.
        if destroy is not None and (refusal := destroy_refusal(target, destroy)):
            self.notify(f"Destroy data: {refusal}", severity="error", timeout=8)
            return
        mode = self.query_one("#mode", Choice).value or "quick"
        plan = self.plan if self.query_one("#use-plan", Checkbox).value else None
        job = self.app.loaded_job[0] if mode == "job" else None  # type: ignore[attr-defined]
        jobs = (job,) if job else ()
        if why := nothing_to_run(jobs):
            self.notify(f"{why} (the Perf tab lists why)", severity="error", timeout=10)
            return
        self._runtime_s = float(suite_runtime_s("full" if mode == "full" else "quick"))
        self._progress = dict.fromkeys(workload_names(jobs), ("", 0.0, None))
        self._show_progress()
        self.query_one("#validate-table", DataTable).clear()
        self.query_one("#validate-chart", Static).update("")
        self.query_one("#validate-notes", Static).update("")
        cancel = threading.Event()
        self._set_running(cancel)
        request = ValidateRequest(
            target, plan, mode="full" if mode == "full" else "quick", destroy_data=destroy, jobs=jobs
        )
        self._run(request, cancel)

    @on(Button.Pressed, "#cancel")
    def action_cancel_run(self) -> None:
        if self._cancel is not None and not self._cancel.is_set():
            self._cancel.set()
            self.notify("Stopping fio; the figures so far are kept")

    def action_back(self) -> None:
        self.action_cancel_run()
        self.app.pop_screen()

    # -- the worker -----------------------------------------------------------------------------
    @work(thread=True, exclusive=True, exit_on_error=False, group="validate")
    def _run(self, request: ValidateRequest, cancel: threading.Event) -> None:
        """The session `podplan validate` runs; what it says reaches the screen as messages."""

        def said(event: ValidateEvent) -> None:
            if isinstance(event, WorkloadProgressed):
                self.post_message(FioProgressed(event.workload, event.event, event.elapsed_s, event.figures))
            elif isinstance(event, PlanMismatched):  # said before a minute of fio
                self.post_message(TargetMismatched(event.why))

        try:
            out = validate_session(request, said, cancel)
        except PodplanError as exc:  # a guard, a plan, a program missing or failing: said on this screen
            self.post_message(ValidationFailed(str(exc)))
            return
        except OSError as exc:
            self.post_message(ValidationFailed(f"{request.target}: {exc.strerror or exc}"))
            return
        self.post_message(ValidationFinished(out))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        # Anything the worker did not turn into ValidationFailed is a bug; the session survives it.
        if event.worker.group == "validate" and event.state == WorkerState.ERROR:
            self._set_running(None)
            self.notify(f"Validation failed: {event.worker.error!r}", severity="error", timeout=10)

    # -- what the worker reports ------------------------------------------------------------------
    @on(FioProgressed)
    def _fio_progressed(self, event: FioProgressed) -> None:
        self._progress[event.workload] = (event.event, event.elapsed_s, event.figures)
        self._show_progress()

    def _show_progress(self) -> None:
        lines = [progress_line(name, *state, self._runtime_s) for name, state in self._progress.items()]
        self.query_one("#validate-progress", Static).update("\n".join(lines))

    @on(TargetMismatched)
    def _target_mismatched(self, event: TargetMismatched) -> None:
        self.query_one("#validate-notes", Static).update(_mismatch_note(event.why))
        self.notify(
            "The current plan does not describe this target: measuring without comparing", severity="warning", timeout=8
        )

    @on(ValidationFailed)
    def _validation_failed(self, event: ValidationFailed) -> None:
        self._set_running(None)
        self._progress = {}
        self.query_one("#validate-progress", Static).update(f"Not run: {event.message}")
        self.notify(event.message, severity="error", timeout=8)

    @on(ValidationFinished)
    def _validation_finished(self, event: ValidationFinished) -> None:
        self._set_running(None)
        out = event.outcome
        report, rows = out.report, list(out.rows)
        lines = [
            progress_line(w.name, *self._progress.get(w.name, ("", 0.0, None)), self._runtime_s, w.status)
            for w in report.workloads
        ]
        self.query_one("#validate-progress", Static).update("\n".join(lines))
        table = self.query_one("#validate-table", DataTable)
        table.clear()
        for cells in table_rows(report, rows):
            table.add_row(*cells, key=cells[0])
        self.query_one("#validate-chart", Static).update(bar_chart(rows))
        self.query_one("#validate-notes", Static).update(self._notes(out))
        self.query_one("#validate-body").scroll_to_widget(table, animate=False, top=True)
        if out.predicted:
            # Measured points go on the Perf tab's curves only where the plan describes the target.
            from app.shared.curves import measured_of

            self.app.measured = measured_of(report)  # type: ignore[attr-defined]
        if report.stopped:
            self.notify(f"Stopped early: {report.stopped}; the figures shown are partial", severity="warning")
        else:
            self.notify(f"Validated {report.target} in {report.duration_s:.0f} s")

    def _notes(self, out: ValidateOutcome) -> str:
        report, what, mismatch = out.report, out.what, out.mismatch
        notes = [
            (
                f"{report.target}: {what}, {report.duration_s:.0f} s, "
                f"{'direct I/O' if report.direct else 'buffered (the filesystem refused O_DIRECT)'}"
            )
        ]
        notes += [report.grouping] if report.grouping else []
        notes += [f"not run: [{r.section}] {r.reason}" for jf in out.jobs for r in jf.refused]
        if self.plan is None or not self.query_one("#use-plan", Checkbox).value:
            notes.append("no prediction: the current plan was not used")
        elif mismatch:
            notes.append(_mismatch_note(mismatch))
        if report.stopped:
            notes.append(f"stopped early: {report.stopped}")
        return "\n".join(notes)


def _mismatch_note(why: Sequence[str]) -> str:
    return (
        "not compared: the current plan does not describe this target ("
        + "; ".join(why)
        + "). Open the plan it was built from, or untick the plan."
    )
