"""`podplan predict` and `podplan sweep`, and hardware in plan files."""

from __future__ import annotations

import json

import pytest

from app.cli.main import main
from app.shared.planfile import plan_from_toml, plan_to_toml
from planners.example import example_pod
from planners.hardware.disks import DiskSpec
from planners.hardware.machine import Cpu, Hardware, Wiring
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
    assert ranges[0] == "range: disk transfer rates hdd7200 preset ±35% (seq-read, seq-write)"
    assert sum("disk transfer rates" in x for x in ranges) == 1 and "(seq-write" in ranges[1]


def test_predict_json(capsys):
    code, out, _ = run(
        capsys,
        [
            "predict",
            "--no-host-cpu",
            "--json",
            "--workload",
            "dd-write",
            "--workload",
            "bonnie-seeks",
            "--mode",
            "degraded",
        ],
    )
    doc = json.loads(out)
    assert code == 0 and doc["mode"] == "degraded"
    assert [p["workload"] for p in doc["predictions"]] == ["dd-write", "bonnie-seeks"]
    p = doc["predictions"][0]
    assert p["binding"] == p["terms"][0]["name"] and p["mb_s"] == p["terms"][0]["mb_s"]
    assert len(doc["reliability"]["groups"]) == 3 and len(doc["reliability"]["loss"]["per_year"]) == 2


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
        disk=DiskSpec(disk_class="hdd5400"),
        models={"ST4000": DiskSpec(seq_outer_mb_s=190.0, afr=0.015)},
        wiring=Wiring(link="sas2", disks_per_link=4, hbas=1),
        cpu=Cpu(cpu_class="desktop-2010", xor_mb_s=9000.0),
        replace_hours=24.0,
    )
    assert plan_from_toml(plan_to_toml(plan)) == plan
    assert "hardware" not in plan_to_toml(example_pod())


def test_sweep_table_and_json(capsys):
    code, out, err = run(capsys, ["sweep", "--disks", "12", "--top", "5", "--no-host-cpu"])
    assert code == 0, err
    assert "layouts of 12 disks" in out and "1*" in out and "RAID0 12" not in out  # too risky: hidden
    assert "layouts hidden (!): loss odds above 1/100 a year" in out
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


def test_sweep_and_predict_give_one_loss_figure(capsys):
    # 5 x RAID5 of 9 on 18 TB disks: arrays rarely lost, but nearly every rebuild hits a URE.
    layout = ["--disk-size", "18TB", "--no-host-cpu"]
    code, out, err = run(capsys, ["sweep", *layout, "--json"])
    assert code == 0, err
    row = next(r for r in json.loads(out)["rows"] if r["label"] == "5x RAID5 9 512K striped")
    code, out, err = run(
        capsys, ["predict", *layout, "--groups", "5", "--level", "5", "--lvm-mode", "striped", "--json"]
    )
    assert code == 0, err
    loss = json.loads(out)["reliability"]["loss"]
    assert row["loss"] == loss and row["risk"] == "rebuilds" and not row["pareto"]
    # Named apart in the text: the arrays' odds and the share of rebuilds losing data, within 80 columns.
    code, out, err = run(capsys, ["predict", *layout, "--groups", "5", "--level", "5", "--lvm-mode", "striped"])
    text = out[out.index("Data loss within a year") : out.index("Assumptions")]
    assert "array loss (a failure too many): 1 in 2,100 to 1 in 130 a year" in text  # one notation
    assert "data lost to UREs in 100% of rebuilds (0.45 to 1.8 rebuilds a year):" in text
    assert max(len(line.rstrip()) for line in text.splitlines()) <= 80
    code, out, err = run(capsys, ["sweep", *layout])
    assert "5x RAID5 9 512K striped" not in out and "(~): loses data to a URE in over 50% of rebuilds" in out
    code, out, err = run(capsys, ["sweep", *layout, "--all", "--top", "0"])
    line = next(x for x in out.splitlines() if "5x RAID5 9 512K striped" in x)
    assert line.split()[0].endswith("~") and " 100% " in line
    # `plan` warns of it too, in the same figures.
    code, out, err = run(
        capsys, ["plan", "--disk-size", "18TB", "--groups", "5", "--level", "5", "--lvm-mode", "striped", "--json"]
    )
    (f,) = [f for f in json.loads(out)["result"]["findings"] if "unreadable sector" in f["message"]]
    assert f["severity"] == "warning" and "0.45 to 1.8 rebuilds a year" in f["message"]
    assert f"data loss within a year {loss['per_year'][0]:.0%} to {loss['per_year'][1]:.0%}" in f["message"]


@pytest.mark.parametrize("tiny", [1e-3, 1e-9, 1e-15])
def test_loss_lines_fit_80_columns_whole(tiny):
    from app.shared.figures import loss_lines, odds
    from planners.reliability.loss import Loss

    loss = Loss(
        per_year=(tiny, 0.9),
        array_per_year=(tiny / 3, tiny),
        ure_per_year=(tiny, 0.5),
        rebuilds_per_year=(0.123456, 12.3456),
        ure_per_rebuild=(tiny / 7, 0.3),
        per_year_nominal=tiny,
    )
    lines = loss_lines(loss, 0.02)
    assert max(map(len, lines)) <= 80
    assert odds(tiny / 3) in " ".join(lines) and odds(tiny / 7) in " ".join(lines)  # wrapped, never cut


@pytest.mark.parametrize(
    "argv,needle",
    [
        (["predict", "--workload", "nope"], "invalid choice: 'nope'"),
        (["predict", "--mode", "broken"], "invalid choice: 'broken'"),
        (["predict", "missing.toml"], "no such plan file"),
        (["sweep", "--top", "-3"], "--top must be 0 or more"),
        (["sweep", "--max-loss", "0"], "--max-loss is a percentage"),
        (["sweep", "--max-rebuild-loss", "101"], "--max-rebuild-loss is a percentage"),
        (["predict", "--disk-class", "floppy"], "invalid choice: 'floppy'"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(capsys, argv, needle):
    code, _, err = run(capsys, argv)
    assert code == 2 and needle in err and len(err.strip().splitlines()) == 1


def test_bad_hardware_in_a_plan_file_is_one_line(capsys, tmp_path):
    f = tmp_path / "bad.toml"
    f.write_text(HW_TOML.replace('disk_class = "hdd5400"', 'disk_class = "tape"'))
    code, _, err = run(capsys, ["predict", str(f)])
    assert code == 2 and "hardware.disk.disk_class" in err and len(err.strip().splitlines()) == 1
