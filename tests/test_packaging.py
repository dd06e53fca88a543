"""What a package index shows of podplan: its licence, its summary, where it sits among tools."""

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def test_the_license_file_is_the_mit_licence_pyproject_names():
    text = (ROOT / "LICENSE").read_text()
    assert PROJECT["license"] == "MIT"
    assert PROJECT["license-files"] == ["LICENSE"]
    assert text.startswith("MIT License\n")
    assert "Copyright (c) 2026 the podplan authors" in text
    assert 'THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND' in text


def test_the_summary_names_every_stack_podplan_plans():
    for name in ("mdadm", "LVM", "ext4", "XFS", "btrfs"):
        assert name in PROJECT["description"], name


def test_classifiers_and_keywords_place_it_among_storage_tools():
    classifiers = PROJECT["classifiers"]
    assert "Topic :: System :: Filesystems" in classifiers
    assert "Intended Audience :: System Administrators" in classifiers
    assert "Operating System :: POSIX :: Linux" in classifiers
    # PEP 639: with a licence expression, a licence classifier is an error for the build backend.
    assert not [c for c in classifiers if c.startswith("License ::")]
    assert {"mdadm", "lvm", "btrfs", "xfs", "ext4", "fio"} <= set(PROJECT["keywords"])
