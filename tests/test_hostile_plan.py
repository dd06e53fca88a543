"""A plan file or flags written by someone else: every name, label, path and option that reaches a
root script, fstab, a udev rule or a file name is refused with one line when the tool that
receives it would not take it whole, through the real command line."""

import subprocess
import sys

import pytest
import tomli_w

from app.cli.main import main
from planners.names import LABELS, LV_NAME, MD_NAME, NAME_MAX, PLAN_FILE_AFFIXES, PLAN_NAME, VG_NAME

BASE = {
    "name": "t",
    "disks": [{"count": 4, "size": "4TB", "devices": ["/dev/sdb", "/dev/sdc", "/dev/sdd", "/dev/sde"]}],
    "groups": [{"name": "md0", "level": 5, "members": 4}],
    "lvm": {"enabled": True, "vg": "pod", "lv": "data"},
    "filesystem": {"type": "ext4", "label": "data", "mount_point": "/srv/pod", "mount_options": ["noatime"]},
}

# Where each text field sits in the plan's data, and a good value to spoil.
FIELDS = {
    "name": (("name",), "t"),
    "md name": (("groups", 0, "name"), "md0"),
    "vg": (("lvm", "vg"), "pod"),
    "lv": (("lvm", "lv"), "data"),
    "label": (("filesystem", "label"), "data"),
    "mount point": (("filesystem", "mount_point"), "/srv/pod"),
    "mount option": (("filesystem", "mount_options", 0), "noatime"),
    "device": (("disks", 0, "devices", 1), "/dev/sdc"),
    "journal device": (("filesystem", "journal_device"), "/dev/nvme0n1p1"),
    "disk model": (("disks", 0, "model"), "WDC WD40EFRX"),
}
SPOILS = {"newline": "\n", "carriage return": "\r", "NUL": "\x00", "tab": "\t", "bidi override": "\u202e"}


def _plan(path: tuple, value: object) -> dict:
    import copy

    data = copy.deepcopy(BASE)
    node: object = data
    for key in path[:-1]:
        node = node[key]  # type: ignore[index]
    if isinstance(node, list) and path[-1] >= len(node):  # type: ignore[operator]
        node.append(value)
    else:
        node[path[-1]] = value  # type: ignore[index]
    return data


def _run_plan(capsys, tmp_path, data: dict, command: str = "script") -> tuple[int, str]:
    f = tmp_path / "plan.toml"
    f.write_text(tomli_w.dumps(data))
    code = main([command, str(f)])
    _, err = capsys.readouterr()
    return code, err


def _one_refusal(code: int, err: str) -> str:
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("podplan: "), err
    assert "Traceback" not in err
    return lines[0]


def test_the_base_plan_scripts(capsys, tmp_path):
    code, err = _run_plan(capsys, tmp_path, BASE)
    assert code == 0, err


@pytest.mark.parametrize("spoil", SPOILS.values(), ids=SPOILS.keys())
@pytest.mark.parametrize("field", FIELDS, ids=FIELDS.keys())
def test_a_control_character_in_any_field_is_refused(capsys, tmp_path, field, spoil):
    path, good = FIELDS[field]
    for bad in (good + spoil, spoil + good, good[:1] + spoil + good[1:]):
        line = _one_refusal(*_run_plan(capsys, tmp_path, _plan(path, bad)))
        assert "control character" in line or "not allowed" in line, line


def test_a_trailing_newline_passes_no_flag(capsys):
    for argv in (["--label", "lab\n"], ["--mount-point", "/srv/pod\n"], ["--devices", "/dev/sdb\n"]):
        code = main(["script", "--disks", "1", "--no-md", "--no-lvm", "--fs", "ext4", *argv])
        _one_refusal(code, capsys.readouterr()[1])


LONG = {
    "name": PLAN_NAME.max_len,
    "md name": MD_NAME.max_len,
    "vg": VG_NAME.max_len,
    "lv": LV_NAME.max_len,
    "label": LABELS["ext4"].max_len,
}


@pytest.mark.parametrize("field", LONG, ids=LONG.keys())
def test_names_end_at_the_receiving_tools_length(capsys, tmp_path, field):
    path, _ = FIELDS[field]
    ok = _plan(path, "a" * LONG[field])
    if field in ("vg", "lv"):  # the two together are bounded too: keep the other short
        ok["lvm"]["lv" if field == "vg" else "vg"] = "x"
        ok["lvm"][path[-1]] = "a" * (124 - 1 if LONG[field] > 123 else LONG[field])
    assert _run_plan(capsys, tmp_path, ok)[0] == 0
    line = _one_refusal(*_run_plan(capsys, tmp_path, _plan(path, "a" * (LONG[field] + 1))))
    assert "characters" in line


def test_a_10000_letter_name_gives_one_short_line(capsys, tmp_path):
    line = _one_refusal(*_run_plan(capsys, tmp_path, _plan(("name",), "A" * 10_000)))
    assert len(line) < 400 and "not 10000" in line


def test_every_file_named_after_the_plan_fits_name_max():
    name = "a" * PLAN_NAME.max_len
    assert max(len(f"{a}{name}{b}".encode()) for a, b in PLAN_FILE_AFFIXES) == NAME_MAX


def test_vg_and_lv_together_as_lvcreate_allows(capsys, tmp_path):
    data = _plan(("lvm", "vg"), "v" * 100)
    data["lvm"]["lv"] = "l" * 24
    assert _run_plan(capsys, tmp_path, data)[0] == 0
    data["lvm"]["lv"] = "l" * 25
    assert "124" in _one_refusal(*_run_plan(capsys, tmp_path, data))


RESERVED_LV = ["snapshot", "snapshot1", "pvmove0", "data_mlog", "x_rimage_0", "a_tmeta", "b_cvol", ".", ".."]


@pytest.mark.parametrize("lv", RESERVED_LV)
def test_lv_names_lvm_keeps_are_refused(capsys, tmp_path, lv):
    line = _one_refusal(*_run_plan(capsys, tmp_path, _plan(("lvm", "lv"), lv)))
    assert "reserved" in line or "not allowed" in line


PATHS = {
    "dot component": "/srv/./pod",
    "dot-dot component": "/srv/../etc",
    "trailing dot-dot": "/srv/pod/..",
    "empty component": "/srv//pod",
    "trailing slash": "/srv/pod/",
    "relative": "srv/pod",
    "long component": "/srv/" + "a" * 256,
    "glob": "/srv/p*",
    "space": "/srv/my pod",
}


@pytest.mark.parametrize("value", PATHS.values(), ids=PATHS.keys())
def test_mount_points_and_devices_are_plain_paths(capsys, tmp_path, value):
    _one_refusal(*_run_plan(capsys, tmp_path, _plan(("filesystem", "mount_point"), value)))
    device = "/dev" + value.removeprefix("/srv") if value.startswith("/srv") else value
    _one_refusal(*_run_plan(capsys, tmp_path, _plan(("disks", 0, "devices", 1), device)))


SYSTEM = ["/", "/etc", "/usr", "/boot", "/var", "/root", "/proc", "/sys", "/dev", "/run", "/tmp", "/home", "/var/lib"]
SYSTEM += ["/etc/pod", "/boot/efi", "/usr/local/pod", "/proc/x", "/run/pod", "/var/run/pod"]


@pytest.mark.parametrize("mount_point", SYSTEM)
def test_a_system_directory_is_refused_unless_named(capsys, tmp_path, mount_point):
    data = _plan(("filesystem", "mount_point"), mount_point)
    line = _one_refusal(*_run_plan(capsys, tmp_path, data))
    assert f"--mount-over {mount_point}" in line
    assert _run_plan(capsys, tmp_path, data, "plan")[0] == 1  # the plan shows it as an error finding
    f = tmp_path / "plan.toml"
    assert main(["script", str(f), "--mount-over", mount_point]) == 0
    assert f" {mount_point} " in capsys.readouterr()[0]


@pytest.mark.parametrize("mount_point", ["/srv/pod", "/data", "/var/lib/postgresql", "/home/pod", "/mnt", "/srv"])
def test_data_places_are_accepted(capsys, tmp_path, mount_point):
    assert _run_plan(capsys, tmp_path, _plan(("filesystem", "mount_point"), mount_point))[0] == 0


def test_the_whole_command_line_says_one_line(tmp_path):
    """The installed entry point, not main(): a newline in a label ends in one line and exit 2."""
    f = tmp_path / "plan.toml"
    f.write_text(tomli_w.dumps(_plan(("filesystem", "label"), "lab\n")))
    res = subprocess.run(
        [sys.executable, "-m", "app.cli.main", "script", str(f)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    _one_refusal(res.returncode, res.stderr)
    assert res.stdout == ""


def test_the_names_page_has_every_rule():
    from pathlib import Path

    from planners.names import MOUNT_OPTION, SYSTEM_DIRS, SYSTEM_TREES

    page = (Path(__file__).parent.parent / "docs" / "names.md").read_text()
    for rule in (PLAN_NAME, MD_NAME, VG_NAME, LV_NAME, *LABELS.values(), MOUNT_OPTION):
        words = (*rule.reserved, *rule.prefixes, *rule.substrings)
        rows = [ln for ln in page.splitlines() if f"`{rule.pattern}`" in ln and f"| {rule.max_len} " in ln]
        assert any(all(f"`{w}`" in row for w in words) for row in rows), f"docs/names.md: no row for {rule.what}"
    assert all(f"`{d}`" in page for d in (*SYSTEM_DIRS, *SYSTEM_TREES))


def test_md_names_that_differ_give_different_bash_arrays(capsys, tmp_path):
    """md0 and MD0, a-b and a_b are distinct md names; a name may start with a digit (no bash name may)."""
    data = _plan(("groups", 0, "name"), "0")
    data["disks"][0]["count"] = 12
    data["disks"][0]["devices"] = [f"/dev/sd{c}" for c in "bcdefghijklm"]
    data["groups"] = [{"name": n, "level": 1, "members": 2} for n in ("0", "md0", "MD0", "a-b", "a_b", "a.b")]
    assert _run_plan(capsys, tmp_path, data)[0] == 0
    out = tmp_path / "build.sh"
    assert main(["script", str(tmp_path / "plan.toml"), "-o", str(out)]) == 0
    text = out.read_text()
    arrays = [ln.split("=", 1)[0] for ln in text.splitlines() if ln.startswith("MD_") and "_MEMBERS=(" in ln]
    assert len(set(arrays)) == 6, arrays
    res = subprocess.run(["bash", "-n", str(out)], capture_output=True, text=True, check=False)
    assert res.returncode == 0, res.stderr
