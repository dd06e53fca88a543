"""The validate session: one flow for `podplan validate` and the TUI's validate screen.

Real fio on a loop device or a directory, with the suite's timing shrunk through the runner's own
parameters; this host's kernel log is replaced by a recorded one (a machine whose kernel benchmarked
its parity code) so that the host-CPU step has figures to put in.
"""

from __future__ import annotations

import functools
import json
import os
from pathlib import Path

import pytest
from textual.widgets import DataTable, Input

import app.usecases.validate as session
import runners.host.kernel_log as kernel_log
from app.cli.main import main
from app.shared.planfile import load_plan, plan_to_toml
from app.tui.app import PodplanApp
from app.tui.screens.validate_screen import ValidateScreen, _predicted_text
from app.usecases.validate import (
    BaselineSkipped,
    PlanMismatched,
    SectionNotRun,
    ValidateRequest,
    WorkloadProgressed,
    measure_baseline,
    validate_session,
)
from planners.errors import PlanError
from planners.example import EXAMPLES, example_pod
from planners.models import Plan
from planners.perf.jobfile import parse_job_file
from runners.exec import which
from runners.fio.jobs import WORKLOADS, Timing
from runners.validate.compare import SideBySide
from runners.validate.suite import validate
from tests.tui_helpers import SIZE

MiB = 1024**2
FAST = Timing(runtime_s=2, ss_duration_s=1, ss_ramp_s=0, ss_slope_pct=50.0)
KERNEL_LOG = Path(__file__).parent / "fixtures" / "kernel_log" / "dmesg-5.15-ubuntu2204.txt"
needs_fio = pytest.mark.skipif(which("fio") is None, reason="fio is not installed")


@pytest.fixture
def fast_fio_and_a_recorded_kernel_log(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(session, "validate", functools.partial(validate, timing=FAST, file_size=16 * MiB))
    monkeypatch.setattr(
        kernel_log,
        "read_host_parity",
        functools.partial(kernel_log.read_host_parity, commands=(), kern_log=str(KERNEL_LOG)),
    )
    # The Perf tab's own read of this host's log: not wanted.
    monkeypatch.setattr(PodplanApp, "_read_host_parity", lambda self: None)


def _one_nvme(size: int) -> Plan:
    """The NVMe example on one disk of `size` bytes: a plan that describes a loop device of that size."""
    data = EXAMPLES["nvme"][1]().model_dump()
    data["disks"][0]["size"] = size
    return Plan.model_validate(data)


@needs_fio
@pytest.mark.skipif(os.geteuid() != 0 or which("losetup") is None, reason="a loop device needs root and losetup")
async def test_the_cli_and_the_tui_set_the_same_prediction_beside_the_same_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fast_fio_and_a_recorded_kernel_log: None
) -> None:
    from runners.probes.loopdev import sparse_loop

    plan_file = tmp_path / "nvme.toml"
    plan_file.write_text(plan_to_toml(_one_nvme(512 * MiB)))
    with sparse_loop(512 * MiB) as dev:
        assert main(["validate", dev, "--plan", str(plan_file), "--destroy-data", dev, "--json"]) == 0
        doc = json.loads(capsys.readouterr().out)
        app = PodplanApp(load_plan(plan_file))
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("f5")
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, ValidateScreen)
            screen.query_one("#target", Input).value = dev
            screen.query_one("#destroy", Input).value = dev
            await pilot.press("ctrl+r")
            await pilot.pause()
            await app.workers.wait_for_complete()
            await pilot.pause()
            table = screen.query_one("#validate-table", DataTable)
            tui = {table.get_row_at(i)[0]: table.get_row_at(i)[5] for i in range(table.row_count)}
    assert doc["prediction"] is True and doc["plan_mismatch"] == []
    assert "kernel log" in doc["cpu"]["summary"]  # the host-CPU step ran
    cli = {r["workload"]: _predicted_text(SideBySide.model_validate(r)) for r in doc["side_by_side"]}
    assert list(cli) == list(WORKLOADS) and "no prediction" not in cli.values()
    assert tui == cli


@needs_fio
def test_a_plan_of_other_storage_is_said_first_and_nothing_is_compared(
    tmp_path: Path, fast_fio_and_a_recorded_kernel_log: None
) -> None:
    events: list[object] = []
    out = validate_session(ValidateRequest(str(tmp_path), example_pod()), events.append)
    assert isinstance(events[0], PlanMismatched) and "the plan on 45" in " ".join(events[0].why)
    progressed = [e for e in events if isinstance(e, WorkloadProgressed)]
    assert {e.workload for e in progressed} == set(WORKLOADS)
    assert [e.event for e in progressed if e.workload == "seq-read"][::-1][0] == "end"
    assert not out.predicted and out.plan is None and out.cpu is None and out.mismatch == events[0].why
    assert [r.workload for r in out.rows] == list(WORKLOADS)
    assert all(r.predicted_mb_s is None for r in out.rows)
    assert list(tmp_path.iterdir()) == []


def test_a_job_file_with_nothing_to_predict_is_refused_before_fio(tmp_path: Path) -> None:
    job = parse_job_file("[t]\nrw=randtrim\nbs=4k\n", source="trim.fio")
    events: list[object] = []
    with pytest.raises(PlanError, match="no section of the job file can be predicted"):
        validate_session(ValidateRequest(str(tmp_path), jobs=(job,)), events.append)
    assert [type(e) for e in events] == [SectionNotRun] and events[0].section == "t"  # type: ignore[attr-defined]
    assert list(tmp_path.iterdir()) == []


def test_a_baseline_of_a_plain_directory_is_skipped(tmp_path: Path) -> None:
    events: list[object] = []
    where = str(tmp_path / "nowhere")
    assert measure_baseline(where, None, None, events.append) == (None, None)
    assert events == [BaselineSkipped(where)]


def test_the_requests_and_events_are_frozen() -> None:
    import dataclasses

    req = ValidateRequest("/srv/pod")
    with pytest.raises(dataclasses.FrozenInstanceError):
        req.target = "/elsewhere"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        WorkloadProgressed("seq-read", "start", 0.0, None).event = "end"  # type: ignore[misc]


@needs_fio
def test_a_device_on_remote_hosts_is_said_unguarded_before_any_host_is_asked() -> None:
    import socket

    from app.usecases.validate_hosts import HostsRequest, RemoteDiskUnguarded, validate_hosts_session
    from planners.errors import PodplanError

    with socket.socket() as s:  # a port nobody listens on: the host is unreachable
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    events: list[object] = []
    with pytest.raises(PodplanError):
        validate_hosts_session(HostsRequest("/dev/null", f"127.0.0.1:{port}"), events.append)
    assert events[0] == RemoteDiskUnguarded("/dev/null")
