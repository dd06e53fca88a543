"""`podplan predict` and `podplan sweep`, and hardware in plan files."""

from __future__ import annotations

import json

import pytest

from app.cli.main import main
from app.shared.planfile import plan_from_toml, plan_to_toml
from planners.example import example_pod
from planners.hardware import Cpu, DiskSpec, Hardware, Wiring
from planners.perf.workloads import VALIDATION_NAMES

HW_TOML = """
name = "hw"
[[disks]]
count = 10
size = "4TB"
model = "ST4000"
[[groups]]
level = 6
members = 10
[hardware]
replace_hours = 24.0
[hardware.disk]
disk_class = "hdd5400"
[hardware.models.ST4000]
disk_class = "hdd7200"
seq_outer_mb_s = 190.0
afr = 0.015
[hardware.wiring]
link = "sas2"
disks_per_link = 4
hbas = 1
[hardware.cpu]
cpu_class = "desktop-2010"
xor_mb_s = 9000.0
"""


def run(capsys, argv):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_predict_on_the_example_pod_names_each_binding_term(capsys):
    code, out, err = run(capsys, ["predict", "--no-host-cpu"])
    assert code == 0, err
    for name in VALIDATION_NAMES:
        line = next(x for x in out.splitlines() if x.strip().startswith(name))
        assert any(t in line for t in ("disks", "queue depth", "md thread", "stripe cache")), line
    for words in ("Reliability", "Data loss within a year", "Assumptions", "P(URE)"):
        assert words in out
    # Each reason a range rests on is said once; one that holds for some rows names them.
    ranges = [x.strip() for x in out.splitlines() if x.startswith("range:")]
    assert ranges[0] == "range: disk speeds from class presets (±35%)"
    assert sum("disk speeds" in x for x in ranges) == 1 and "(seq-write" in ranges[1]


def test_predict_json(capsys):
    code, out, _ = run(capsys, ["predict", "--no-host-cpu", "--json", "--workload", "dd-write",
                                "--workload", "bonnie-seeks", "--mode", "degraded"])
    doc = json.loads(out)
    assert code == 0 and doc["mode"] == "degraded"
    assert [p["workload"] for p in doc["predictions"]] == ["dd-write", "bonnie-seeks"]
    p = doc["predictions"][0]
    assert p["binding"] == p["terms"][0]["name"] and p["mb_s"] == p["terms"][0]["mb_s"]
    assert len(doc["reliability"]["groups"]) == 3 and len(doc["reliability"]["loss_per_year"]) == 2


def test_predict_reads_hardware_from_the_plan_file(capsys, tmp_path):
    f = tmp_path / "hw.toml"
    f.write_text(HW_TOML)
    code, out, err = run(capsys, ["predict", str(f), "--no-host-cpu", "--json"])
    assert code == 0, err
    doc = json.loads(out)
    assert any("sas2 link" in t["note"] for t in doc["predictions"][0]["terms"])
    assert doc["reliability"]["afr_nominal"] == 0.015


def test_hardware_round_trips_through_toml_and_is_absent_by_default():
    plan = plan_from_toml(HW_TOML)
    assert plan.hardware == Hardware(
        disk=DiskSpec(disk_class="hdd5400"), models={"ST4000": DiskSpec(seq_outer_mb_s=190.0, afr=0.015)},
        wiring=Wiring(link="sas2", disks_per_link=4, hbas=1), cpu=Cpu(cpu_class="desktop-2010", xor_mb_s=9000.0),
        replace_hours=24.0)
    assert plan_from_toml(plan_to_toml(plan)) == plan
    assert "hardware" not in plan_to_toml(example_pod())


def test_sweep_table_and_json(capsys):
    code, out, err = run(capsys, ["sweep", "--disks", "12", "--top", "5", "--no-host-cpu"])
    assert code == 0, err
    assert "layouts of 12 disks" in out and "1*" in out and "RAID0 12" not in out  # too risky: hidden
    assert "layouts hidden: more than 1 % odds of losing data in a year" in out
    assert "the first 5 of" in out and "--top 0 shows them all" in out  # rows cut are said, as hidden ones are
    code, out, err = run(capsys, ["sweep", "--disks", "12", "--all", "--top", "0", "--no-host-cpu"])
    assert code == 0 and "RAID0 12" in out and "!" in out and "rebuild" in out
    raid0 = next(line for line in out.splitlines() if "RAID0 12 " in line)
    assert raid0.rstrip().endswith("none")  # RAID0 has nothing to rebuild
    code, out, err = run(capsys, ["sweep", "--disks", "12", "--max-loss", "100", "--top", "3", "--no-host-cpu"])
    assert code == 0 and "no md striped" in out  # striped LVM straight over the disks: RAID0 without md's offset
    code, out, _ = run(capsys, ["sweep", "--disks", "12", "--no-host-cpu", "--json", "--workload", "rand-read-4k"])
    doc = json.loads(out)
    assert doc["workload"] == "rand-read-4k" and doc["disks"] == 12
    assert all("plan" not in r for r in doc["rows"]) and any(r["pareto"] for r in doc["rows"])


@pytest.mark.parametrize("argv,needle", [
    (["predict", "--workload", "nope"], "invalid choice: 'nope'"),
    (["predict", "--mode", "broken"], "invalid choice: 'broken'"),
    (["predict", "missing.toml"], "no such plan file"),
    (["sweep", "--top", "-3"], "--top must be 0 or more"),
    (["sweep", "--max-loss", "0"], "--max-loss is a percentage"),
    (["predict", "--disk-class", "floppy"], "invalid choice: 'floppy'"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, argv, needle):
    code, _, err = run(capsys, argv)
    assert code == 2 and needle in err and len(err.strip().splitlines()) == 1


def test_bad_hardware_in_a_plan_file_is_one_line(capsys, tmp_path):
    f = tmp_path / "bad.toml"
    f.write_text(HW_TOML.replace('disk_class = "hdd5400"', 'disk_class = "tape"'))
    code, _, err = run(capsys, ["predict", str(f)])
    assert code == 2 and "hardware.disk.disk_class" in err and len(err.strip().splitlines()) == 1
