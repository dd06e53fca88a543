"""bonnie++'s presets work on bonnie++'s file, twice the host's memory, not on the whole volume."""

from __future__ import annotations

import pytest

from planners.example import example_luns, example_pod
from planners.hardware.machine import Hardware
from planners.perf.predict import predict
from planners.perf.workloads import PRESETS

NAMES = ("bonnie-write", "bonnie-rewrite", "bonnie-read", "bonnie-seeks")


@pytest.mark.parametrize("make", [example_pod, example_luns], ids=["pod45", "luns8"])
def test_each_bonnie_preset_is_the_same_job_on_a_file_of_twice_the_ram(make) -> None:
    plan = make()
    memory = (plan.hardware or Hardware()).memory_bytes
    presets = predict(plan, workloads=[PRESETS[n] for n in NAMES])
    # the same jobs described by hand, as bonnie++ -s (2 x RAM) runs them: no longer presets, so taken as given
    by_hand = predict(
        plan, workloads=[PRESETS[n].model_copy(update={"name": n + "-s", "size": 2 * memory}) for n in NAMES]
    )
    for p, h in zip(presets, by_hand, strict=True):
        assert (p.mb_s, p.binding) == (h.mb_s, h.binding)


def test_bonnie_seeks_seek_over_its_file_not_the_volume() -> None:
    """128 GiB of a 65 TB pod: the arm moves over a sliver of each disk, so each seek is short."""
    plan = example_pod()
    seeks = predict(plan, workloads=[PRESETS["bonnie-seeks"]])[0]
    whole = predict(plan, workloads=[PRESETS["bonnie-seeks"].model_copy(update={"name": "volume"})])[0]
    assert seeks.iops > 1.5 * whole.iops
