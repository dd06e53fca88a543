"""What every VM lab test module needs before it can boot anything, and the boots they share."""

from __future__ import annotations

import pytest

from runners.exec import which
from runners.lab.kit import cache_root, load_kit

# Lab test files whose scenarios run in one boot, with the guest CPUs that boot gets. Under
# emulation a boot costs the guest about 20 s of a host core before its first scenario, and the
# suite's VMs share two cores: files share a boot where their scenarios mind no neighbour (each
# scenario has its own disks, and the batch tears down what it built before the next). Each boot's
# files go to one worker of a parallel run (tests/conftest.py), so the boot happens once. A file in
# a boot gives its scenarios with `lab_scenarios(kit)` and its share of the VM's time limit as
# LAB_TIMEOUT_S. Boots that compare exact figures (sizes, offsets, geometry) take one CPU: a second
# emulated CPU only adds work (test_lab_direct's boot took 88 s of host CPU with two, 66 with one,
# in the same wall time), while the boots that measure speeds keep the two their figures were
# calibrated with.
BOOTS: dict[str, tuple[tuple[str, ...], int]] = {
    "lab_rehearse": (("test_lab_rehearse",), 1),
    # The speed model against throttled disks: one raw disk measured once feeds all three.
    "lab_throttled": (("test_lab_perf", "test_lab_scaling", "test_lab_btrfs_speed"), 2),
    # What the kernel does with requests (windows in flight, merging, bitmap writes, placement), SMART.
    "lab_witness": (
        ("test_lab_readahead", "test_lab_placement", "test_lab_bitmap", "test_lab_merging", "test_lab_smart"),
        2,
    ),
    "lab_stacks": (("test_lab_validate", "test_lab_btrfs", "test_lab_direct"), 1),
    "lab_growth": (("test_lab_growth",), 1),
}


# What a parallel run sends out first, longest first: a shared boot, or a file that boots on its
# own. A boot that waits on throttled or delayed disks (witness, throttled, failure) takes little
# of a host core; one that builds (rehearse, growth, stacks) takes a whole one: they alternate, so
# that the first three workers (scripts/dev.sh: one more than CPUs) keep two cores busy. Every other
# file comes after, in its order.
LAB_FIRST = (
    "lab_rehearse",
    "lab_witness",
    "lab_growth",
    "lab_throttled",
    "lab_stacks",
    "test_lab_failure",
    "test_lab_boot",
)


def lab_rank(stem: str) -> int:
    """Where a test file's tests go in the suite's order (tests/conftest.py)."""
    unit = boot_of(stem) or stem
    return LAB_FIRST.index(unit) if unit in LAB_FIRST else len(LAB_FIRST)


def boot_of(stem: str) -> str | None:
    """The shared boot a test file (by its stem) runs in, if any."""
    return next((boot for boot, (stems, _) in BOOTS.items() if stem in stems), None)


def work_unit(nodeid: str) -> str:
    """What a parallel run sends to one worker: the shared boot a test's file is in, or its file."""
    path = nodeid.split("::", 1)[0]
    return boot_of(path.rpartition("/")[2].removesuffix(".py")) or path


def lab_boot_scheduling(config, log):  # type: ignore[no-untyped-def]
    """xdist's loadfile scheduling with each shared boot's files as one unit (they share its batch,
    which a process runs once), and a worker given its next unit only once it runs the last test of
    the one it has: loadfile hands it out two tests ahead, so a lab file of one or two tests (a boot
    of minutes) held the next long file back behind it while other workers went idle."""
    from xdist.scheduler import LoadFileScheduling

    class LabBootScheduling(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return work_unit(nodeid)

        def _reschedule(self, node) -> None:  # type: ignore[no-untyped-def]
            # A worker runs a test once it knows the next (for teardown): one pending test is its last.
            if not node.shutting_down and self.workqueue and self._pending_of(self.assigned_work[node]) > 1:
                return
            super()._reschedule(node)

    return LabBootScheduling(config, log)


_BATCHES: dict[str, object] = {}


def shared_batch(request: pytest.FixtureRequest):  # type: ignore[no-untyped-def]
    """The batch of the boot the requesting test file is in: booted once per process, with the
    scenarios of every file of that boot collected in this session (a run of one file boots
    with its own). A scenario two files give alike (the raw disk the speed model is fed) runs once."""
    from runners.lab import LabConfig, LabError, ensure_kit, run_batch

    boot = boot_of(request.module.__name__.rpartition(".")[2])
    assert boot is not None, f"{request.module.__name__} is in no shared boot (tests/lab_helpers.BOOTS)"
    if boot not in _BATCHES:
        stems, cpus = BOOTS[boot]
        modules = {item.module for item in request.session.items if item.path.stem in stems}
        kit = ensure_kit()
        scenarios: dict = {}
        timeout_s = 0.0
        for module in sorted(modules, key=lambda m: stems.index(m.__name__.rpartition(".")[2])):
            for s in module.lab_scenarios(kit):
                if scenarios.setdefault(s.name, s) != s:
                    raise ValueError(f"two files of boot {boot} give different scenarios named {s.name}")
            timeout_s += module.LAB_TIMEOUT_S
        try:
            _BATCHES[boot] = run_batch(
                list(scenarios.values()), kit=kit, config=LabConfig(timeout_s=timeout_s, cpus=cpus)
            )
        except LabError as exc:  # every file of the boot reports it; none boots again
            _BATCHES[boot] = exc
    got = _BATCHES[boot]
    if isinstance(got, BaseException):
        raise got
    return got


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
