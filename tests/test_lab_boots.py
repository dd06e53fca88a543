"""The lab's shared boots, checked without booting: each boot's files give their scenarios, which can
share one VM, and a parallel run sends a boot's files to one worker, the lab's long units first."""

from __future__ import annotations

import importlib
import pathlib
import re

import pytest

from tests.lab_helpers import BOOTS, LAB_FIRST, boot_of, lab_rank, work_unit

TESTS = pathlib.Path(__file__).parent


class _Kit:
    class manifest:  # stands in for the kit's manifest attribute
        kernel_release = "6.1.0-56-amd64"


@pytest.mark.parametrize("boot", BOOTS)
def test_a_boots_files_give_scenarios_that_can_share_one_vm(boot):
    stems, cpus = BOOTS[boot]
    assert cpus in (1, 2)
    seen: dict = {}
    for stem in stems:
        module = importlib.import_module(f"tests.{stem}")
        assert module.LAB_TIMEOUT_S > 0
        scenarios = module.lab_scenarios(_Kit())
        assert scenarios, stem
        for s in scenarios:
            # one name, one scenario: a name two files give must be the same scenario (run once)
            assert seen.setdefault(s.name, s) == s, f"{stem} gives another scenario named {s.name}"


def test_the_throttled_boot_measures_its_raw_disk_once():
    from tests.test_lab_btrfs_speed import lab_scenarios as btrfs_speed
    from tests.test_lab_perf import lab_scenarios as perf
    from tests.test_lab_scaling import lab_scenarios as scaling

    names = [s.name for f in (perf, scaling, btrfs_speed) for s in f(_Kit())]
    assert names.count("base") == 3  # each file gives it, the boot runs it once
    assert len({s.name: s for f in (perf, scaling, btrfs_speed) for s in f(_Kit())}) == len(names) - 2


def test_a_boots_files_are_one_unit_of_a_parallel_run():
    assert work_unit("tests/test_lab_perf.py::test_x") == work_unit("tests/test_lab_scaling.py::test_y")
    assert work_unit("tests/test_lab_perf.py::test_x") == "lab_throttled"
    assert work_unit("tests/test_lab_failure.py::test_x[raid6x2]") == "tests/test_lab_failure.py"
    assert work_unit("tests/test_units.py::test_a") != work_unit("tests/test_units_more.py::test_a")


def test_every_file_that_boots_goes_out_first():
    """A lab file left out of LAB_FIRST would start minutes of boot late in a parallel run, in its
    alphabetical place, and hold the run's end back."""
    booting = [
        p.stem
        for p in sorted(TESTS.glob("test_*.py"))
        if re.search(r"\bensure_kit\(\)|shared_batch\(request", p.read_text())
    ]
    assert "test_lab_rehearse" in booting and "test_lab_failure" in booting
    late = [stem for stem in booting if lab_rank(stem) == len(LAB_FIRST)]
    assert not late, f"add their boot or file to tests/lab_helpers.LAB_FIRST: {late}"
    assert all(unit in BOOTS or (TESTS / f"{unit}.py").exists() for unit in LAB_FIRST)
    assert all(boot_of(stem) == boot for boot, (stems, _) in BOOTS.items() for stem in stems)
