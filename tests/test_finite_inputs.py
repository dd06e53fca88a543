"""inf and nan are refused wherever a plan or a job file gives a number, and each figure keeps to
bounds that make physical sense: one line naming the field, exit status 2, never a traceback."""

from __future__ import annotations

import math

import pytest
from pydantic import ValidationError

from app.cli.main import main
from app.shared.planfile import plan_to_toml
from planners.example import example_pod
from planners.hardware.machine import Controller, Hardware, Wiring
from planners.perf.jobfile import parse_job_file
from planners.perf.predict import predict
from planners.perf.workloads import Workload

# (TOML section, key, value) -> the field the one line names. TOML writes inf and nan as literals.
BAD = {
    ("hardware", "replace_hours", "inf"): "hardware.replace_hours",
    ("hardware", "replace_hours", "nan"): "hardware.replace_hours",
    ("hardware", "replace_hours", "1e308"): "hardware.replace_hours",
    ("hardware", "replace_hours", "0.0"): "hardware.replace_hours",
    ("hardware", "write_cache_mb_s", "inf"): "hardware.write_cache_mb_s",
    ("hardware", "dirty_ratio", "nan"): "hardware.dirty_ratio",
    ("hardware.disk", "seq_outer_mb_s", "inf"): "hardware.disk.seq_outer_mb_s",
    ("hardware.disk", "afr", "5e-324"): "hardware.disk.afr",
    ("hardware.disk", "rpm", "100000000000000000000"): "hardware.disk.rpm",
    ("hardware.disk.lun", "rebuild_hours", "inf"): "hardware.disk.lun.rebuild_hours",
    ("hardware.wiring", "link_mb_s", "5e-324"): "hardware.wiring.link_mb_s",
    ("hardware.cpu", "xor_mb_s", "-inf"): "hardware.cpu.xor_mb_s",
    ("hardware.controller", "round_trip_us", "nan"): "hardware.controller.round_trip_us",
    ("hardware.controller", "cache_bytes", "100000000000000000000"): "hardware.controller.cache_bytes",
    ("hardware.md", "speed_limit_max_kib_s", "100000000000000000000"): "hardware.md.speed_limit_max_kib_s",
    ("filesystem", "reserved_percent", "nan"): "filesystem.reserved_percent",
}


def _plan_file(tmp_path, section: str, key: str, value: str):  # type: ignore[no-untyped-def]
    toml = plan_to_toml(example_pod())
    if section == "filesystem":
        toml = toml.replace("reserved_percent = 5.0\n", f"{key} = {value}\n")
    else:
        must = "disks = 4\n" if section.endswith(".lun") else ""  # a LUN needs its disk count
        toml += f"\n[{section}]\n{must}{key} = {value}\n"
    path = tmp_path / "pod.toml"
    path.write_text(toml)
    return path


@pytest.mark.parametrize("case", BAD, ids=["-".join(c) for c in BAD])
def test_a_number_past_its_bounds_is_one_line(capsys, tmp_path, case) -> None:  # type: ignore[no-untyped-def]
    code = main(["predict", str(_plan_file(tmp_path, *case)), "--no-host-cpu"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert len(err.strip().splitlines()) == 1 and BAD[case] + ":" in err, err


def test_replace_hours_at_the_bounds_predicts(capsys, tmp_path) -> None:  # type: ignore[no-untyped-def]
    for hours in ("0.01", "87660.0"):
        assert main(["predict", str(_plan_file(tmp_path, "hardware", "replace_hours", hours)), "--no-host-cpu"]) == 0


def test_a_controller_with_no_round_trip_on_a_direct_link() -> None:
    """Zero round trip and no link to cross: the queue-depth limit is left out, not a division by zero."""
    hw = Hardware(wiring=Wiring(link="direct"), controller=Controller(kind="raid", round_trip_us=0))
    plan = example_pod().model_copy(update={"hardware": hw})
    for p in predict(plan, workloads=[Workload(name="w", rw="write", bs=1 << 20, iodepth=8)]):
        assert math.isfinite(p.mb_s)


@pytest.mark.parametrize("value", [math.inf, math.nan, -math.inf])
def test_workloads_refuse_non_finite_numbers(value: float) -> None:
    for field in ("runtime_s", "thinktime_us", "read_mix"):
        with pytest.raises(ValidationError):
            Workload(name="w", rw="read", bs=4096, **{field: value})


@pytest.mark.parametrize(
    ("line", "field"),
    [
        ("bs=0", "bs"),
        ("bs=" + "9" * 20, "bs"),
        ("numjobs=100000", "numjobs"),
        ("runtime=" + "9" * 20, "runtime_s"),
        ("rate=" + "9" * 20, "rate_bytes_s"),
    ],
)
def test_job_values_past_the_model_are_one_line(line: str, field: str) -> None:
    """The section is refused in one line naming the field; the file's other sections would still predict."""
    jf = parse_job_file(f"[j]\nrw=write\n{line}\n[k]\nrw=read\n", source="mine.fio")
    [refused] = jf.refused
    assert refused.section == "j" and [w.name for w in jf.workloads] == ["k"]
    assert field in refused.reason and "\n" not in refused.reason
    assert refused.reason.startswith("mine.fio: [j] ")
