"""`podplan validate`: the quick fio suite with live progress, then measured beside predicted."""

from __future__ import annotations

import argparse

from rich.console import Console
from rich.progress import BarColumn, Progress, TaskID, TextColumn, TimeElapsedColumn
from rich.table import Table

from app.cli.validate_health import print_health
from app.shared.console import cli_console
from app.shared.figures import measured_text, running_figures
from app.shared.fit import Col, FitTable
from app.shared.host_cpu import origin_json, origin_text
from app.usecases.validate import (
    Baseline,
    BaselineSkipped,
    BaselineStarted,
    BaselineStopped,
    JobNoted,
    PlanMismatched,
    SectionNotRun,
    SideBySide,
    ValidateEvent,
    ValidateReport,
    ValidateRequest,
    WorkloadProgressed,
    health_json,
    suite_runtime_s,
    validate_session,
    what_ran,
)
from app.usecases.validate_hosts import HostNoted, HostsEvent, RemoteDiskUnguarded
from planners.errors import PlanError
from planners.hardware.disks import DiskPerf
from planners.models import Plan

EXIT_OK, EXIT_PARTIAL, EXIT_INTERRUPTED = 0, 1, 130


class Live:
    """A Rich progress bar per workload on stderr; fio's figures so far in the description."""

    def __init__(self, console: Console, runtime_s: int):
        self.progress = Progress(
            TextColumn("{task.fields[name]:<14}"),
            BarColumn(),
            TextColumn("{task.description}"),
            TimeElapsedColumn(),
            console=console,
            transient=False,
        )
        self.runtime = runtime_s
        self.tasks: dict[str, TaskID] = {}

    def __call__(self, name: str, event: str, elapsed: float, figures) -> None:
        if event == "start":
            if not self.tasks:
                self.progress.start()  # only now: an early refusal prints its one line and nothing else
            self.tasks[name] = self.progress.add_task("starting", total=self.runtime, name=name)
            return
        task = self.tasks[name]
        desc = running_figures(figures.bytes_s, figures.iops) if figures else ""
        if figures is None and event == "progress":
            desc = "running; figures when it ends"
        if event == "end":
            self.progress.update(task, completed=self.runtime, description=desc or "no figures")
        else:
            self.progress.update(task, completed=min(elapsed, self.runtime), description=desc)


def run_validate(
    target: str,
    *,
    plan: Plan | None,
    full: bool,
    as_json: bool,
    report_dir: str | None,
    destroy_data: str | None,
    hosts: str | None = None,
    baseline: bool = False,
    buffered: bool = False,
    job_files: list[str] | None = None,
    logs: bool = False,
) -> int:
    if logs and not report_dir:
        raise PlanError("--logs keeps fio's logs in the report directory: give --report DIR too")
    if logs and hosts:
        raise PlanError("--logs keeps this machine's fio logs; it cannot be combined with --hosts")
    if job_files and hosts:
        raise PlanError("--job runs here only; it cannot be combined with --hosts")
    if hosts:
        if baseline:
            raise PlanError("--baseline reads this machine's disks; it cannot be combined with --hosts")
        return run_validate_hosts(
            target,
            hosts,
            plan=plan,
            full=full,
            as_json=as_json,
            report_dir=report_dir,
            destroy_data=destroy_data,
            buffered=buffered,
        )
    if buffered:
        raise PlanError(
            "--buffered goes with --hosts: here a directory that refuses O_DIRECT is run buffered by itself"
        )
    said = Said(cli_console(stderr=True), suite_runtime_s("full" if full else "quick"), live=not as_json)
    request = ValidateRequest(
        target,
        plan,
        mode="full" if full else "quick",
        destroy_data=destroy_data,
        report_dir=report_dir,
        job_paths=tuple(job_files or ()),
        baseline=baseline,
        logs=logs,
    )
    try:
        out = validate_session(request, said)
    finally:
        said.stop()
    report, rows = out.report, list(out.rows)
    if as_json:
        from app.shared.documents import dumps
        from app.shared.documents_measured import SectionRefused, ValidateDocument

        doc = ValidateDocument(
            report=report,
            side_by_side=rows,
            prediction=out.predicted,
            cpu=origin_json(out.cpu) if out.cpu else None,
            plan_mismatch=list(out.mismatch),
            refused_sections=[
                SectionRefused(section=r.section, reason=r.reason) for jf in out.jobs for r in jf.refused
            ],
            baseline=out.baseline,
            disk_override=out.disk_override,
            health=health_json(out.health) if baseline else None,
        )
        print(dumps(doc, exclude=None if baseline else {"baseline", "disk_override", "health"}))
    else:
        if out.health:
            print_health(cli_console(), out.health)
        if out.baseline is not None:
            print_baseline(cli_console(), out.baseline, out.disk_override)
        print_report(cli_console(), report, rows, out.predicted, mismatch=out.mismatch, what=out.what)
        if out.parity_cpu:
            cli_console().print(f"  CPU: {origin_text(out.parity_cpu)}")
    if report.stopped == "interrupted":
        return EXIT_INTERRUPTED
    return EXIT_PARTIAL if report.partial else EXIT_OK


class Said:
    """The session's events as the command line says them, on stderr: notes as lines, fio's progress
    as a bar per workload (not with --json)."""

    def __init__(self, console: Console, runtime_s: int, *, live: bool):
        self.console = console
        self.live = Live(console, runtime_s) if live else None

    def __call__(self, e: ValidateEvent | HostsEvent) -> None:
        if isinstance(e, WorkloadProgressed):
            if self.live:
                self.live(e.workload, e.event, e.elapsed_s, e.figures)
        elif isinstance(e, PlanMismatched):
            self.console.print(
                f"podplan: the plan does not describe {e.target}: "
                + "; ".join(e.why)
                + ". Measuring without comparing: pass the plan it was built from, or leave out --plan.",
                markup=False,
                highlight=False,
            )
        elif isinstance(e, JobNoted):
            self.console.print(e.text, style="dim", markup=False, highlight=False)
        elif isinstance(e, SectionNotRun):
            self.console.print(f"not run: [{e.section}] {e.reason}", markup=False, highlight=False)
        elif isinstance(e, BaselineSkipped):
            self.console.print(f"baseline skipped: {e.target} is not an md array or LV with members lsblk can see")
        elif isinstance(e, BaselineStarted):
            self.console.print(f"baseline: reading {len(e.members)} member disks at once ({', '.join(e.members)})")
        elif isinstance(e, BaselineStopped):
            self.console.print(f"baseline partial: {e.reason}")
        elif isinstance(e, RemoteDiskUnguarded):
            self.console.print(
                f"{e.target} on remote hosts: write workloads refused unless --destroy-data {e.target} "
                "(podplan cannot check a remote disk for data)",
                soft_wrap=True,
            )
        elif isinstance(e, HostNoted):
            self.console.print(e.text, soft_wrap=True, highlight=False)

    def stop(self) -> None:
        if self.live and self.live.tasks:
            self.live.progress.stop()


def _pct(v: float | None) -> str:
    return "" if v is None else f"{v:+.0f} %"


def print_report(
    console: Console,
    report: ValidateReport,
    rows: list[SideBySide],
    have_plan: bool,
    host: str = "",
    mismatch: tuple[str, ...] = (),
    what: str = "",
) -> None:
    """The run's table and notes; `what` names what ran (the session's outcome says it), the suite by default."""
    what = what or what_ran(report)
    title = (
        f"{host + ': ' if host else ''}{report.target} ({what}, {report.duration_s:.0f} s"
        f"{'' if report.direct else ', buffered'})"
    )
    cells: list[list[str]] = []
    for w, r in zip(report.workloads, rows, strict=True):
        f = w.figures
        p99 = (f.read_p99_us or f.write_p99_us) if f else None
        steady = "" if r.steady is None else ("yes" if r.steady else "not steady")
        if r.predicted_mb_s is not None or r.predicted_iops is not None:
            pred = f"{r.predicted_mb_s:,.0f} MB/s" if w.name.startswith("seq") else f"{r.predicted_iops:,.0f} IOPS"
        else:
            pred = "no prediction"
        cells.append(
            [
                w.name,
                w.status,
                measured_text(r.measured_mb_s, ",.1f", 1),
                measured_text(r.measured_iops, ",.0f", 10),
                f"{p99 / 1000:.2f}" if p99 else "",
                steady,
                pred,
                _pct(r.diff_pct),
                r.binding,
            ]
        )
    heads = ("workload", "status", "MB/s", "IOPS", "p99 ms", "steady", "predicted", "diff", "binding")
    cols = [
        Col(
            h,
            [row[i] for row in cells],
            right=h in ("MB/s", "IOPS", "p99 ms", "predicted", "diff"),
            words=h in ("binding", "predicted"),
            # the lines under the table repeat them: p99 with the other percentiles, and a figure
            # named "steady window" where fio found the workload steady
            spare=h in ("p99 ms", "steady"),
        )
        for i, h in enumerate(heads)
    ]
    t = FitTable(
        cols, [("p99 ms",), ("p99 ms", "steady")], rows_are="workload", table=dict(title=title, title_justify="left")
    )
    console.print(t)
    _print_points(console, report)
    from app.shared.validate_report import report_notes

    for line in report_notes(report, rows, have_plan, mismatch):
        console.print(f"  {line}", markup=False, highlight=False)


def _print_points(console: Console, report: ValidateReport) -> None:
    """Each workload's figure named (steady window or whole run), fio's whole-run figure beside it,
    the window's spread, and its latency: a line each, so no figure is cut at any width."""
    from app.shared.curves import SMALL_REQUEST, latency_line, measured_from, spread_texts

    for w in report.workloads:
        if w.figures is None:
            continue
        m = measured_from(w.figures, w.status, w.block_bytes)
        metric = "IOPS" if w.block_bytes < SMALL_REQUEST else "MB/s"
        said = "; ".join(x for x in spread_texts(m, metric) if x)
        console.print(f"  {w.name}: {said}", markup=False, highlight=False)
        if latency_line(m):
            console.print(f"  {w.name}: {latency_line(m)}", markup=False, highlight=False)


def run_validate_hosts(
    target: str,
    hosts: str,
    *,
    plan: Plan | None,
    full: bool,
    as_json: bool,
    report_dir: str | None,
    destroy_data: str | None,
    buffered: bool = False,
) -> int:
    """The suite on every host at once; a table per host, JSON grouped by host."""
    from app.usecases.validate_hosts import HostsRequest, validate_hosts_session

    said = Said(cli_console(stderr=True), suite_runtime_s("full" if full else "quick"), live=not as_json)
    request = HostsRequest(
        target,
        hosts,
        plan,
        mode="full" if full else "quick",
        destroy_data=destroy_data,
        report_dir=report_dir,
        buffered=buffered,
        follow=not as_json,
    )
    try:
        done = validate_hosts_session(request, said)
    finally:
        said.stop()
    multi = done.report
    groups = [(r.host, r.predictions, list(r.rows)) for r in done.results]
    if as_json:
        from app.shared.documents import dumps
        from app.shared.documents_measured import HostDoc, ValidateHostsDocument

        hosts = [
            HostDoc(
                host=h.host,
                status=h.status,
                reason=h.reason,
                report=h.report,
                side_by_side=rows,
                prediction=preds is not None,
            )
            for h, preds, rows in groups
        ]
        print(dumps(ValidateHostsDocument(target=target, duration_s=multi.duration_s, hosts=hosts)))
    else:
        out = cli_console()
        for h, _preds, rows in groups:
            if h.report is None:
                out.print(
                    f"{h.host}: {h.reason}; skipped" if h.status == "skipped" else f"{h.host}: {h.status}: {h.reason}",
                    soft_wrap=True,
                    highlight=False,
                )
                continue
            print_report(out, h.report, rows, plan is not None, host=h.host)
    if any(h.report and h.report.stopped == "interrupted" for h in multi.hosts):
        return EXIT_INTERRUPTED
    return EXIT_PARTIAL if multi.partial else EXIT_OK


def print_baseline(console: Console, base: Baseline, perf: DiskPerf | None) -> None:
    t = Table(title="per-disk baseline (read-only)", title_justify="left")
    for col in ("disk", "outer MB/s", "inner MB/s", "rand IOPS", "slow"):
        t.add_column(col, justify="left" if col in ("disk", "slow") else "right")
    for d in base.disks:
        t.add_row(
            d.device,
            *(f"{v:,.0f}" if v else "" for v in (d.outer_mb_s, d.inner_mb_s, d.rand_read_iops)),
            ", ".join(d.slow),
        )
    console.print(t)
    slow = [f"{d.device} ({', '.join(d.slow)})" for d in base.disks if d.slow]
    console.print(
        f"  slow disks, more than 20 % below the median: {', '.join(slow)}"
        if slow
        else "  no disk more than 20 % below the median"
    )
    if perf is not None:
        console.print(
            f"  model fed with the measured disks: {perf.seq_read_mb_s:,.0f} MB/s sequential read, "
            f"{perf.rand_read_iops:,.0f} random reads/s; write figures use the disk class's write/read ratio"
        )


def report_dir_of(args: argparse.Namespace) -> str | None:
    """--report DIR made now (or an empty one the user made): a directory that holds files already,
    or a link, is refused unless --force, so a run never writes among (or through) files it did not make."""
    if not args.report:
        return None
    from app.usecases.files import make_run_dir

    make_run_dir(args.report, reuse=args.force)
    return str(args.report)
