"""Parsers of mdadm's messages, on output recorded from mdadm 4.2 on a kernel without md."""

import pathlib

import pytest

from planners.md.geometry import md_geometry
from planners.units import GiB
from runners.probes.md import create_argv, parse_create_output, parse_examine_data_offset, parse_mdadm_version

FIXTURES = pathlib.Path(__file__).parent / "fixtures" / "md"


def read(name: str) -> str:
    return (FIXTURES / name).read_text()


def test_size_line_and_defaults():
    r = parse_create_output(read("create_raid6_default_chunk_layout.txt"), 1)
    assert r.component_bytes == 1046528 * 1024
    assert r.default_chunk_bytes == 512 * 1024 and r.default_layout == "left-symmetric"
    assert r.errors == () and r.reached_kernel
    assert r.component_bytes == md_geometry([GiB] * 4, level=6).component_bytes


def test_raid0_prints_no_size():
    r = parse_create_output(read("create_raid0.txt"), 1)
    assert r.component_bytes is None and r.errors == () and r.reached_kernel


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("create_raid0_with_bitmap_refused.txt", "bitmaps not meaningful"),
        ("create_raid6_three_refused.txt", "at least 4 raid-devices"),
        ("create_raid1_chunk_refused.txt", "chunk size is forbidden"),
        ("create_raid5_member_too_small.txt", "not suitable"),
    ],
)
def test_refusals_are_errors(name, words):
    r = parse_create_output(read(name), 1)
    assert not r.reached_kernel and r.component_bytes is None
    assert any(words in e for e in r.errors), r.errors


def test_oddities_are_warnings_not_errors():
    r = parse_create_output(read("create_raid5_mixed_sizes_warning.txt"), 1)
    assert r.errors == () and r.reached_kernel
    assert len(r.warnings) == 2 and "exceeds size" in r.warnings[0]
    g = md_geometry([GiB, 2 * GiB, GiB], level=5, metadata="1.0", bitmap="none")
    assert r.component_bytes == g.component_bytes == 1048064 * 1024


def test_examine_and_version_lines():
    # Line format as mdadm's super1.c prints it under --examine.
    assert parse_examine_data_offset("    Data Offset : 264192 sectors\n   Super Offset : 8 sectors\n") == 264192
    assert parse_examine_data_offset("no superblock") is None
    assert parse_mdadm_version("mdadm - v4.2 - 2021-12-30 - Debian 4.2-5\n") == (4, 2)
    assert parse_mdadm_version("mdadm - v3.3.4 - 3rd August 2015") == (3, 3, 4)
    with pytest.raises(ValueError, match="not an mdadm version banner"):
        parse_mdadm_version("bash: mdadm: command not found")


def test_create_argv_puts_the_plan_options_before_the_members():
    argv = create_argv("/dev/md/x", ["/dev/loop1", "/dev/loop2"], ["--level=1", "--raid-devices=2"])
    assert argv[:2] == ["mdadm", "--create"] and argv[-2:] == ["/dev/loop1", "/dev/loop2"]
    assert "--run" in argv and "--verbose" in argv
