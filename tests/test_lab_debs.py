"""Parsers of apt-cache output, on output recorded from Debian 12."""

import pathlib

from runners.lab import debs

FIXTURES = pathlib.Path(__file__).parent / "fixtures" / "lab"


def test_policy_candidates():
    got = debs.parse_policy((FIXTURES / "apt_cache_policy.txt").read_text())
    assert got == {"mdadm": "4.2-5", "kmod": "30+20221128-1", "busybox-static": "1:1.35.0-4+deb12u1+b1"}


def test_policy_without_candidate_is_left_out():
    assert debs.parse_policy("foo:\n  Installed: (none)\n  Candidate: (none)\n") == {}


def test_depends_groups_alternatives_and_virtual_providers():
    deps = debs.parse_depends((FIXTURES / "apt_cache_depends.txt").read_text())
    assert deps["linux-image-amd64"] == [["linux-image-6.1.0-56-amd64"]]
    md = deps["mdadm"]
    assert ["init-system-helpers"] in md  # PreDepends count
    # "debconf | debconf-2.0" where debconf-2.0 is virtual: one group, providers included.
    assert ["debconf", "cdebconf", "debconf"] in md
    assert ["lsb-base", "sysvinit-utils"] in md
    lvm = deps["lvm2"]
    assert ["libsystemd0", "libelogind0"] in lvm
    assert ["dmeventd"] in lvm and ["libaio1"] in lvm


def test_kernel_package():
    text = (FIXTURES / "apt_cache_depends.txt").read_text()
    assert debs.parse_kernel_package(text) == "linux-image-6.1.0-56-amd64"


def test_deb_file_name_encodes_the_epoch():
    assert debs.deb_filename_glob("busybox-static", "1:1.35.0-4") == "busybox-static_1%3a1.35.0-4_*.deb"


def test_download_runs_in_the_target_directory_without_a_shell():
    argv = debs.download_argv("/x/debs", ["mdadm=4.2-5"])
    assert argv[:3] == ["env", "-C", "/x/debs"] and argv[3:5] == ["apt-get", "download"]
    assert argv[-1] == "mdadm=4.2-5"
