"""The VM lab: a stock kernel and the storage tools in a throwaway qemu guest.

Typical use: build `Scenario`s (a bash script, its arguments, its own virtual disks),
`run_batch` them in one boot, read each `ScenarioResult` (exit status, output, the
parsed `LabCollection` of what mdadm, LVM and the filesystems report).
"""

from runners.lab.batch import BatchResult, LabConfig, LabError, ScenarioResult, choose_accel, run_batch
from runners.lab.collect import LabCollection, parse_collection
from runners.lab.fio import fio_scenario, parse_fio_json, run_fio, scenario_fio_json, scenario_fio_runs
from runners.lab.kit import Kit, KitError, KitManifest, ensure_kit
from runners.lab.scenario import LabDisk, Scenario

__all__ = [
    "BatchResult",
    "Kit",
    "KitError",
    "KitManifest",
    "LabCollection",
    "LabConfig",
    "LabDisk",
    "LabError",
    "Scenario",
    "ScenarioResult",
    "choose_accel",
    "ensure_kit",
    "fio_scenario",
    "parse_collection",
    "parse_fio_json",
    "run_batch",
    "run_fio",
    "scenario_fio_json",
    "scenario_fio_runs",
]
