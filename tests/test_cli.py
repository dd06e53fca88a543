"""The command line's good paths: plan (tables and JSON), example, schema, script."""

import json
import re

import pytest

from app.cli.main import main
from app.shared.planfile import plan_from_toml
from planners.example import example_pod

ACCEPTANCE = [
    "plan",
    "--disks",
    "45",
    "--disk-size",
    "2000398934016",
    "--groups",
    "1",
    "--no-lvm",
    "--level",
    "6",
    "--chunk",
    "256K",
    "--fs",
    "xfs",
    "--json",
]


def run(capsys, argv):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_acceptance_plan_json(capsys):
    code, out, err = run(capsys, ACCEPTANCE)
    assert code == 0, err
    doc = json.loads(out)
    res = doc["result"]
    assert doc["plan"]["groups"][0]["members"] == 45 and doc["plan"]["lvm"]["enabled"] is False
    md = res["groups"][0]["md"]
    assert md["chunk_bytes"] == 262144 and md["data_disks_num"] == 43
    assert md["array_bytes"] == 43 * md["component_bytes"]
    vol = res["volumes"][0]
    assert vol["lvm"] is None and vol["ext4"] is None and vol["xfs"]["sunit_blocks"] == 64
    assert vol["alignment"]["xfs_su_bytes"] == 262144 and vol["alignment"]["xfs_sw"] == 43
    assert vol["block_device_bytes"] == md["array_bytes"]
    assert res["usable_bytes"] == vol["df_available_bytes"] < vol["df_size_bytes"] < vol["fs_bytes"]
    assert res["tools"] == {
        "mdadm": "4.2",
        "lvm2": "2.03.16",
        "e2fsprogs": "1.47.0",
        "xfsprogs": "6.1.0",
        "kernel": "6.1",
    }
    assert res["capacity"][0]["key"] == "raw"
    assert 0.9 < res["efficiency"] < 0.96


def test_plan_tables(capsys):
    code, out, _ = run(capsys, ["plan"])
    assert code == 0
    for words in ("Capacity, raw to available", "md arrays", "Alignment chain", "df -B1 available", "pod45"):
        assert words in out


def test_plan_says_each_share_and_count_one_way(capsys):
    # The headline's share of raw is the table's (not 86.1 % above 86.05 %); counts in thousands.
    code, out, _ = run(capsys, ["plan"])
    headline = re.search(r"(\d+\.\d+)% of raw", out)
    table = re.search(r"efficiency \(df available / raw\): (\d+\.\d+)%", out)
    assert code == 0 and headline and table and headline.group(1) == table.group(1)
    assert re.search(r"\(\d{1,3}(,\d{3})+ sectors;", out)


def test_example_is_a_plan(capsys):
    code, out, _ = run(capsys, ["example"])
    assert code == 0
    assert plan_from_toml(out) == example_pod()


def test_schema_describes_the_json(capsys):
    code, out, _ = run(capsys, ["schema"])
    schema = json.loads(out)
    assert code == 0 and schema["title"] == "PlanReport"
    assert {"podplan_version", "plan", "result"} <= set(schema["properties"])
    assert "df_available_bytes" in json.dumps(schema)


def test_flags_override_a_plan_file(capsys, tmp_path):
    f = tmp_path / "pod.toml"
    run(capsys, ["example"])
    main(["example"])
    f.write_text(capsys.readouterr()[0])
    code, out, err = run(capsys, ["plan", str(f), "--groups", "5", "--spares", "1", "--json"])
    assert code == 0, err
    doc = json.loads(out)
    assert [g["members"] for g in doc["plan"]["groups"]] == [8] * 5
    assert doc["plan"]["lvm"]["enabled"] is True  # kept from the file


def test_script_to_stdout(capsys):
    code, out, _ = run(capsys, ["script", *ACCEPTANCE[1:-1]])
    assert code == 0 and out.startswith("#!/usr/bin/env bash")
    assert "--chunk=256K" in out and "sw=43" in out


def test_script_file_says_when_its_devices_are_placeholders(capsys, tmp_path):
    """`bash build.sh` would stop at once: podplan says so when it writes it, with the way out."""
    code, _, err = run(capsys, ["script", "-o", str(tmp_path / "a.sh")])
    assert code == 0 and "45 of the plan's disks have no device path" in err and "--devices" in err
    assert "then run" not in err
    devices = ",".join(f"/dev/disk/by-id/wwn-{i}" for i in range(45))
    code, _, err = run(capsys, ["script", "--devices", devices, "-o", str(tmp_path / "b.sh")])
    assert code == 0 and "review it, then run: bash" in err and "placeholder" not in err


def test_version_names_podplan_and_the_tools_it_follows(capsys):
    from planners import __version__

    for flag in ("--version", "-V"):
        with pytest.raises(SystemExit) as done:
            main([flag])
        assert done.value.code == 0
        lines = capsys.readouterr().out.splitlines()
        assert lines[0] == f"podplan {__version__}"
        assert lines[1].startswith("figures follow mdadm 4.2, lvm2 2.03.16, e2fsprogs 1.47.0, xfsprogs 6.1.0")


def _piped(*args: str) -> str:
    """podplan's stdout when it is a pipe, as in `podplan plan | cat` (Rich would assume 80 columns)."""
    import subprocess
    import sys

    env = {k: v for k, v in __import__("os").environ.items() if k != "COLUMNS"}
    out = subprocess.run(
        [sys.executable, "-m", "app.cli.main", *args], capture_output=True, text=True, env=env, timeout=120, check=True
    )
    return out.stdout


def test_piped_output_never_cuts_a_figure():
    text = _piped("plan")
    doc = json.loads(_piped("plan", "--json"))["result"]
    assert "…" not in text
    figures = [doc["raw_bytes"], doc["usable_bytes"], doc["df_size_bytes"]]
    figures += [g["md"]["array_bytes"] for g in doc["groups"]]
    figures += [v["df_available_bytes"] for v in doc["volumes"]]
    for n in figures:
        assert f"{n:,}" in text, f"{n:,} is missing or cut in `podplan plan | cat`"
    for args in (("predict",), ("sweep",), ("plan", "--disks", "60", "--groups", "4", "--level", "6")):
        assert "…" not in _piped(*args), f"podplan {' '.join(args)} | cat cuts a cell"


def test_flags_alone_change_the_example_pod(capsys):
    example = json.loads(run(capsys, ["plan", "--json"])[1])["plan"]
    code, out, err = run(capsys, ["plan", "--fs", "ext4", "--json"])
    assert code == 0, err
    plan = json.loads(out)["plan"]
    assert plan["filesystem"]["type"] == "ext4"
    assert plan["groups"] == example["groups"] and plan["lvm"] == example["lvm"]


def test_striped_lvm_without_a_stripe_size_takes_one_lvcreate_accepts(capsys):
    code, out, err = run(capsys, ["plan", "--lvm-mode", "striped", "--json"])
    assert code == 0, err
    a = json.loads(out)["result"]["volumes"][0]["alignment"]
    # The example's full stripe (13 x 512K) is no power of two, so the chunk: whole md chunks per LVM stripe.
    assert a["lv_stripes"] == 3 and a["lv_stripe_bytes"] == 512 * 1024
    # Three RAID5 of 9: a full stripe of 8 x 256K = 2M, a power of two within the extent: the full stripe.
    code, out, err = run(
        capsys,
        [
            "plan",
            "--disks",
            "27",
            "--groups",
            "3",
            "--level",
            "5",
            "--chunk",
            "256K",
            "--lvm-mode",
            "striped",
            "--json",
        ],
    )
    assert code == 0, err
    doc = json.loads(out)["result"]
    assert doc["volumes"][0]["alignment"]["lv_stripe_bytes"] == 2 * 1024 * 1024
    assert not [f for f in doc["findings"] if f["layer"] == "lvm" and f["severity"] == "warning"]


def test_devices_alone_say_how_many_disks(capsys):
    code, out, err = run(capsys, ["plan", "--devices", "/dev/sdb,/dev/sdc,/dev/sdd,/dev/sde", "--json"])
    assert code == 0, err
    plan = json.loads(out)["plan"]
    assert plan["disks"][0]["count"] == 4 and plan["disks"][0]["devices"][0] == "/dev/sdb"
    assert len(plan["groups"]) == 1 and plan["groups"][0]["members"] == 4


def test_devices_name_the_plan_s_disks_and_keep_its_layout(capsys, tmp_path):
    """The README's step (`script pod.toml --devices ...`) names the disks of the 3 x RAID6 15 pod:
    it must not turn it into one RAID6 of 45, nor into another layout when a path is missing."""
    pod = tmp_path / "pod.toml"
    code, out, _ = run(capsys, ["example"])
    pod.write_text(out)
    paths = [f"/dev/disk/by-id/wwn-{i:02d}" for i in range(45)]
    code, out, err = run(capsys, ["plan", str(pod), "--devices", ",".join(paths), "--json"])
    assert code == 0, err
    plan = json.loads(out)["plan"]
    assert [(g["name"], g["members"]) for g in plan["groups"]] == [("md0", 15), ("md1", 15), ("md2", 15)]
    assert plan["disks"][0]["devices"] == paths
    code, out, err = run(capsys, ["plan", str(pod), "--devices", ",".join(paths[:44])])
    assert (
        code == 2
        and out == ""
        and err.strip()
        == (
            "podplan: --devices names 44 paths but the plan has 45 disks: give one path per disk, in order "
            "(or --disks 44 for a new layout of these disks)"
        )
    )


def test_several_filesystems_each_have_a_row(capsys):
    code, out, _ = run(capsys, ["plan", "--no-lvm"])
    assert code == 0 and "3 filesystems, one per md array" in out
    for name in ("md0", "md1", "md2"):
        assert f"/dev/md/{name}" in out and f"/srv/pod45/{name}" in out


def test_striped_lvm_over_one_array_is_one_stripe_not_an_error(capsys):
    """`--disks N` makes one array; striping over it is lvcreate's one-stripe (linear) LV, with no stripe size
    to blame: the plan computes, says so, and takes md's alignment."""
    code, out, err = run(capsys, ["plan", "--disks", "12", "--level", "6", "--lvm-mode", "striped", "--json"])
    assert code == 0, err
    doc = json.loads(out)["result"]
    a = doc["volumes"][0]["alignment"]
    assert (a["lv_stripes"], a["lv_stripe_bytes"]) == (1, None)
    assert (a["top_io_min_bytes"], a["top_io_opt_bytes"]) == (a["md_io_min_bytes"], a["md_io_opt_bytes"])
    assert [f for f in doc["findings"] if f["layer"] == "lvm" and "one stripe" in f["message"]]
    code, out, err = run(capsys, ["script", "--disks", "12", "--level", "6", "--lvm-mode", "striped"])
    lvcreate = next(line for line in out.splitlines() if line.startswith("run lvcreate"))
    assert code == 0 and "--stripes" not in lvcreate and "striped over" not in out
    code, out, err = run(
        capsys, ["plan", "--disks", "12", "--level", "6", "--lvm-mode", "striped", "--stripe-size", "64K"]
    )
    assert code == 2 and "one stripe" in err and "linear LV" not in err


def test_a_bare_binary_disk_size_gets_one_line_on_stderr(capsys, tmp_path):
    code, out, err = run(capsys, ["plan", "--disk-size", "18T", "--json"])
    assert code == 0 and json.loads(out)["plan"]["disks"][0]["size"] == 18 * 1024**4
    assert err == "podplan: --disk-size 18T read as 18 TiB = 19.79 TB; write 18TB for a drive sold as 18 TB\n"
    code, out, err = run(capsys, ["plan", "--disk-size", "18TB", "--json"])
    assert code == 0 and err == ""
    pod = tmp_path / "pod.toml"
    pod.write_text(example_toml().replace('size = "2000398934016"', 'size = "18T"'))
    for argv in (["plan", str(pod), "--json"], ["predict", str(pod), "--json"], ["grow", str(pod), "--add-disks", "1"]):
        code, out, err = run(capsys, argv)
        assert code == 0, err
        assert f"podplan: {pod}: disks.0.size 18T read as 18 TiB = 19.79 TB; write 18TB" in err, argv
    code, out, err = run(capsys, ["grow", "--add-disks", "15", "--mode", "new-array", "--size", "4T", "--json"])
    assert code == 0 and err == "podplan: --size 4T read as 4 TiB = 4.40 TB; write 4TB for a drive sold as 4 TB\n"


def test_a_new_disk_size_drops_the_example_s_model_text(capsys):
    for argv, model in ((["--disk-size", "18TB"], ""), (["--ssd"], ""), (["--disks", "30", "--groups", "2"], None)):
        code, out, err = run(capsys, ["plan", *argv, "--json"])
        assert code == 0, err
        assert json.loads(out)["plan"]["disks"][0]["model"] == (
            example_pod().disks[0].model if model is None else model
        )


def example_toml() -> str:
    from app.shared.planfile import plan_to_toml

    return plan_to_toml(example_pod())
