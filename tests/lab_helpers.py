"""What every VM lab test module needs before it can boot anything."""

from __future__ import annotations

import pytest

from runners.exec import which
from runners.lab.kit import cache_root, load_kit


def skip_unless_lab() -> None:
    """Skip the calling module, saying why, when this machine cannot boot the lab."""
    if which("qemu-system-x86_64") is None:
        pytest.skip("qemu-system-x86_64 is not installed (scripts/dev.sh setup installs it)", allow_module_level=True)
    if which("apt-get") is None and load_kit(cache_root() / "kit") is None:
        pytest.skip("no apt to fetch the kit's Debian packages and no cached kit", allow_module_level=True)


def record_calibration(doc: dict) -> None:
    """Write a lab test's measured table where PODPLAN_CALIBRATION_OUT says, if it says anywhere."""
    import json
    import os

    path = os.environ.get("PODPLAN_CALIBRATION_OUT")
    if path:
        with open(path, "w") as fh:
            json.dump(doc, fh, indent=1)


def every_figure_checked(batch, expected, name: str) -> list:
    """The rehearsal checks of scenario `name` (its scaled plan and predictions in `expected`), once the
    scenario ran cleanly and every predicted figure equals the VM's."""
    from runners.lab.rehearse import compare

    run = batch.scenario(name)
    assert run.returncode == 0, batch.failure_report(name)
    assert run.collection is not None, run.collection_error
    scaled, result = expected[name]
    checks = compare(scaled, result, run.collection)
    bad = [f"{c.figure}: predicted {c.predicted}, VM {c.actual}" for c in checks if not c.match]
    assert not bad, "\n".join(bad)
    return checks


def prepare_matrix(matrix: dict, tools) -> tuple[list, dict]:
    """Scenarios rehearsing each plan of `matrix` (by name), and each one's (scaled plan, predictions).
    Every figure is set when the build script ends: a matrix does not wait for md's resync."""
    from runners.lab.rehearse import prepare

    scenarios, expected = [], {}
    for name, plan in matrix.items():
        scenario, scaled, result = prepare(plan, name=name, tools=tools, settle=False)
        scenarios.append(scenario)
        expected[name] = (scaled, result)
    return scenarios, expected


def measure_again(missed: dict, scenario, figure, got: dict, timeout_s: float = 900.0) -> list[str]:
    """Run the missed workloads of each scenario once more, in one more boot, and keep each one's
    faster figure in `got` (scenario -> workload name -> figure). Other work on the host only slows
    the emulated CPU, and a throttled disk gives the same every time: a point that misses is run
    again, one that lands is not. `missed` maps a scenario's name to its workloads to run again,
    `scenario(name, workloads)` makes the scenario, `figure(fio_job, workload)` reads one figure.
    Returns 'scenario/workload' of every point that ran again, for the log."""
    from runners.lab import LabConfig, ensure_kit, run_batch, scenario_fio_json

    if not missed:
        return []
    batch = run_batch(
        [scenario(name, ws) for name, ws in missed.items()], kit=ensure_kit(), config=LabConfig(timeout_s=timeout_s)
    )
    again = []
    for name, ws in missed.items():
        jobs = {j["jobname"]: j for j in scenario_fio_json(batch, name)["jobs"]}
        for w in ws:
            got[name][w.name] = max(got[name][w.name], figure(jobs[w.name], w))
            again.append(f"{name}/{w.name}")
    return again
