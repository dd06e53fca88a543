"""Bad input ends in exactly one clear line on stderr and exit status 2, never a traceback."""

import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.cli.main import main

GOOD_TOML = """
name = "t"
[[disks]]
count = 6
size = "4TB"
[[groups]]
level = 6
members = 6
"""

BAD_FLAGS = {
    "raid6 with 3 disks": ["plan", "--disks", "3", "--level", "6"],
    "raid5 with 1 disk": ["plan", "--disks", "1", "--level", "5"],
    "chunk not a power of two": ["plan", "--chunk", "100K"],
    "chunk below 4K": ["plan", "--chunk", "2K"],
    "more spares than disks": ["plan", "--disks", "10", "--spares", "12"],
    "raid1 with a chunk": ["plan", "--disks", "2", "--level", "1", "--chunk", "64K"],
    "stripe size above extent size": [
        "plan",
        "--groups",
        "3",
        "--lvm-mode",
        "striped",
        "--stripe-size",
        "8M",
        "--extent-size",
        "4M",
    ],
    "stripe size not a power of two": ["plan", "--groups", "3", "--lvm-mode", "striped", "--stripe-size", "96K"],
    "shell metacharacters in a device": [
        "plan",
        "--disks",
        "2",
        "--level",
        "1",
        "--devices",
        "/dev/sda;reboot,/dev/sdb",
    ],
    "device outside /dev": ["plan", "--disks", "2", "--level", "1", "--devices", "/tmp/x,/dev/sdb"],
    "device count mismatch": ["plan", "--disks", "3", "--level", "5", "--devices", "/dev/sda,/dev/sdb"],
    "duplicate device": ["plan", "--disks", "2", "--level", "1", "--devices", "/dev/sda,/dev/sda"],
    "bad size unit": ["plan", "--disk-size", "2XB"],
    "negative size": ["plan", "--disk-size", "-5"],
    "disk too small": ["plan", "--disk-size", "1M"],
    "zero disks": ["plan", "--disks", "0"],
    "negative disks": ["plan", "--disks", "-3"],
    "zero groups": ["plan", "--groups", "0"],
    "uneven groups": ["plan", "--disks", "45", "--groups", "4"],
    "unknown level": ["plan", "--level", "7"],
    "bad raid10 layout": ["plan", "--disks", "4", "--level", "10", "--layout", "f9"],
    "raid10 layout on raid6": ["plan", "--level", "6", "--layout", "n2"],
    "raid10 n3 on 2 disks": ["plan", "--disks", "2", "--level", "10", "--layout", "n3"],
    "unknown filesystem": ["plan", "--fs", "zfs"],
    "bad block size": ["plan", "--block-size", "8192"],
    "unknown flag": ["plan", "--frobnicate"],
    "label with a space": ["plan", "--label", "a b"],
    "xfs label too long": ["plan", "--fs", "xfs", "--label", "thirteenchars"],
    "relative mount point": ["plan", "--mount-point", "srv/pod"],
    "command substitution in mount point": ["plan", "--mount-point", "/srv/$(reboot)"],
    "reserved percent too high": ["plan", "--fs", "ext4", "--reserved", "80"],
    "stripe cache too small": ["plan", "--stripe-cache", "5"],
    "extent size not allowed": ["plan", "--lvm", "--extent-size", "100K"],
    "missing plan file": ["plan", "/nonexistent/plan.toml"],
    "plan file is a directory": ["plan", "/"],
    "script to a missing directory": ["script", "--disks", "4", "--level", "5", "-o", "/nonexistent/dir/build.sh"],
    "non-numeric disk count": ["plan", "--disks", "many"],
}

BAD_FILES = {
    "empty file": "",
    "only whitespace": "  \n\n",
    "truncated TOML": '[[disks]]\ncount = 6\nsize = "4T',
    "not TOML at all": "mdadm --create /dev/md0",
    "unknown key": GOOD_TOML + "\nfoo = 1\n",
    "missing groups": '[[disks]]\ncount = 6\nsize = "4TB"\n',
    "missing disks": "[[groups]]\nlevel = 6\nmembers = 6\n",
    "groups need more disks": GOOD_TOML.replace("members = 6", "members = 8"),
    "vg name starting with a dash": GOOD_TOML + '\n[lvm]\nenabled = true\nvg = "-bad"\n',
    "lv name with a slash": GOOD_TOML + '\n[lvm]\nenabled = true\nlv = "a/b"\n',
    "md name with a semicolon": GOOD_TOML.replace("members = 6", 'members = 6\nname = "md0;ls"'),
    "size is a list": GOOD_TOML.replace('size = "4TB"', "size = [1, 2]"),
    "count is a string": GOOD_TOML.replace("count = 6", 'count = "six"'),
    "sector size 1000": GOOD_TOML.replace("count = 6", "count = 6\nlogical_sector = 1000"),
    "bitmap chunk without bitmap": GOOD_TOML.replace(
        "members = 6", 'members = 6\nbitmap = "none"\nbitmap_chunk = "64M"'
    ),
    "linear with a stripe size": GOOD_TOML + '\n[lvm]\nenabled = true\nstripe_size = "64K"\n',
    "stripe unit without width": GOOD_TOML + '\n[filesystem]\nstripe_unit = "64K"\n',
}


def _run(capsys, argv):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("argv", BAD_FLAGS.values(), ids=BAD_FLAGS.keys())
def test_bad_flags(capsys, argv):
    code, _, err = _run(capsys, argv)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("podplan: ")
    assert "Traceback" not in err


@pytest.mark.parametrize("text", BAD_FILES.values(), ids=BAD_FILES.keys())
def test_bad_plan_files(capsys, tmp_path, text):
    f = tmp_path / "plan.toml"
    f.write_text(text)
    code, _, err = _run(capsys, ["plan", str(f)])
    assert code == 2, err
    assert len(err.strip().splitlines()) == 1, err
    assert str(f) in err


def test_binary_plan_file(capsys, tmp_path):
    f = tmp_path / "plan.toml"
    f.write_bytes(b"\xff\xfe\x00garbage")
    code, _, err = _run(capsys, ["plan", str(f)])
    assert code == 2 and len(err.strip().splitlines()) == 1


def test_good_plan_file_works(capsys, tmp_path):
    f = tmp_path / "plan.toml"
    f.write_text(GOOD_TOML)
    code, out, err = _run(capsys, ["plan", str(f), "--json"])
    assert code == 0, err
    assert '"usable_bytes"' in out


def test_real_entry_point_one_line():
    """The installed console script, not just main(): still one line, status 2."""
    exe = [sys.executable, "-m", "app.cli.main"]
    p = subprocess.run([*exe, "plan", "--disks", "3", "--level", "6"], capture_output=True, text=True)
    assert p.returncode == 2
    assert len(p.stderr.strip().splitlines()) == 1
    assert "RAID6" in p.stderr or "raid6" in p.stderr.lower()


# Hypothesis: arbitrary plan-shaped TOML never produces a traceback.
sizes = st.one_of(
    st.integers(min_value=-10, max_value=2**62),
    st.sampled_from(["2TB", "1.8TiB", "256K", "0", "abc", "4T", "-1G", "1e9", "", "512"]),
)
disk = st.fixed_dictionaries(
    {"count": st.integers(min_value=-1, max_value=80), "size": sizes},
    optional={
        "logical_sector": st.sampled_from([512, 4096, 1000]),
        "rotational": st.booleans(),
        "devices": st.lists(st.sampled_from(["/dev/sda", "/dev/sdb;x", "/dev/disk/by-id/a", "sdc"]), max_size=3),
    },
)
group = st.fixed_dictionaries(
    {"level": st.sampled_from([0, 1, 4, 5, 6, 10, 3, "6"]), "members": st.integers(min_value=-1, max_value=50)},
    optional={
        "spares": st.integers(min_value=-1, max_value=5),
        "chunk": sizes,
        "layout": st.sampled_from(["n2", "f2", "o3", "n3", "left-symmetric", "x"]),
        "metadata": st.sampled_from(["1.0", "1.2", "0.90"]),
        "bitmap": st.sampled_from(["internal", "none", "x"]),
        "name": st.sampled_from(["md0", "md1", "a b", "data"]),
    },
)
plan_data = st.fixed_dictionaries(
    {"disks": st.lists(disk, min_size=0, max_size=3), "groups": st.lists(group, min_size=0, max_size=3)},
    optional={
        "lvm": st.fixed_dictionaries(
            {},
            optional={
                "enabled": st.booleans(),
                "mode": st.sampled_from(["linear", "striped", "x"]),
                "stripe_size": sizes,
                "extent_size": sizes,
            },
        ),
        "filesystem": st.fixed_dictionaries(
            {},
            optional={
                "type": st.sampled_from(["xfs", "ext4", "ext3", "zfs"]),
                "block_size": st.sampled_from([1024, 4096, 3]),
                "reserved_percent": st.floats(-1, 60, allow_nan=False),
            },
        ),
    },
)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(plan_data)
def test_generated_plan_files_never_traceback(tmp_path_factory, data):
    import tomli_w

    from app.shared.planfile import plan_from_toml
    from planners.compute import compute
    from planners.errors import PlanError

    text = tomli_w.dumps(data)
    try:
        plan = plan_from_toml(text)
        compute(plan)
    except PlanError as exc:
        assert "\n" not in exc.message and exc.message


EXPECTED_WORDS = {
    "raid6 with 3 disks": "at least 4 members",
    "chunk not a power of two": "power of two",
    "more spares than disks": "spares",
    "raid1 with a chunk": "RAID1",
    "stripe size above extent size": "larger than the extent size",
    "shell metacharacters in a device": "/dev/sda;reboot",
    "uneven groups": "equal groups",
    "command substitution in mount point": "mount point",
    "extent size not allowed": "extent size",
    "stripe size not a power of two": "power of two",
    "zero disks": "--disks must be 1 or more, not 0",  # not '0 disks per group leave no members'
    "negative disks": "--disks must be 1 or more, not -3",
}


@pytest.mark.parametrize("case", EXPECTED_WORDS, ids=EXPECTED_WORDS.keys())
def test_bad_flags_say_why(capsys, case):
    _, _, err = _run(capsys, BAD_FLAGS[case])
    assert EXPECTED_WORDS[case] in err
