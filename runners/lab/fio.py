"""fio inside the lab: a scenario that builds an array, runs a job file, brings back the JSON."""

from __future__ import annotations

import json
import shlex
from collections.abc import Sequence

from runners.lab.batch import BatchResult, LabConfig, run_batch
from runners.lab.scenario import LabDisk, Scenario

FIO_OUTPUT = "fio.json"


def fio_script(setup: str, target: str | None, runs: int = 1) -> str:
    """Run `setup` (bash that builds the array), then fio on job.fio writing JSON to the outputs.

    fio prints notes on stdout ahead of its JSON, so the JSON goes to a file of its own.
    `target`, if given, is exported as FIO_TARGET for the job file to name (`filename=${FIO_TARGET}`).
    With `runs` > 1 the job runs again into fio.2.json, ...: the emulated CPU shares the host with
    other work, which only ever slows a run, so the faster of each workload is the disks' figure.
    """
    export = f"export FIO_TARGET={shlex.quote(target)}\n" if target else ""
    again = "".join(
        f'fio --output-format=json --output="$PODPLAN_OUT/fio.{i}.json" job.fio\n' for i in range(2, runs + 1)
    )
    return (
        "set -e\n"
        f"{setup.rstrip()}\n"
        f"{export}"
        f'fio --output-format=json --output="$PODPLAN_OUT/{FIO_OUTPUT}" job.fio\n'
        f"{again}"
    )


def fio_scenario(
    name: str,
    disks: Sequence[LabDisk],
    setup: str,
    job: str,
    *,
    target: str | None = None,
    timeout_s: float = 600.0,
    collect: bool = True,
    runs: int = 1,
) -> Scenario:
    return Scenario(
        name=name,
        script=fio_script(setup, target, runs),
        disks=tuple(disks),
        files={"job.fio": job},
        timeout_s=timeout_s,
        collect=collect,
    )


def parse_fio_json(text: str) -> dict:
    """The final JSON object of a fio --output-format=json file (notes before it are skipped)."""
    start = text.find("{")
    if start < 0:
        raise ValueError("fio wrote no JSON")
    decoder = json.JSONDecoder()
    last, end = decoder.raw_decode(text, start)
    # With --status-interval fio appends one cumulative object after another: the last is final.
    while (pos := text.find("{", end)) >= 0:
        last, end = decoder.raw_decode(text, pos)
    return last


def scenario_fio_json(result: BatchResult, name: str) -> dict:
    scen = result.scenario(name)
    if FIO_OUTPUT not in scen.outputs:
        raise ValueError(f"scenario {name} left no fio JSON (exit status {scen.returncode}): {scen.stderr[-500:]}")
    return parse_fio_json(scen.outputs[FIO_OUTPUT])


def scenario_fio_runs(result: BatchResult, name: str) -> list[dict]:
    """Every run's fio JSON of a scenario made with `runs` > 1, the first first."""
    scen = result.scenario(name)
    more = sorted(
        (k for k in scen.outputs if k.startswith("fio.") and k != FIO_OUTPUT and k.endswith(".json")),
        key=lambda k: int(k.split(".")[1]),
    )
    return [scenario_fio_json(result, name)] + [parse_fio_json(scen.outputs[k]) for k in more]


def run_fio(
    disks: Sequence[LabDisk],
    setup: str,
    job: str,
    *,
    target: str | None = None,
    config: LabConfig = LabConfig(),
    name: str = "fio",
    **kwargs,
) -> dict:
    """Boot, build the array with `setup`, run the fio job on it, return fio's JSON."""
    scen = fio_scenario(name, disks, setup, job, target=target, collect=False)
    return scenario_fio_json(run_batch([scen], config=config, **kwargs), name)
