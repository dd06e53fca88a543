"""The name rules of planners/names.py against the tools that receive the names: lvm's vgcreate and
lvcreate, mdadm --create, mkfs.xfs, mke2fs and mkfs.btrfs. A name podplan accepts, the tool takes
whole; a name the tool refuses (or cuts), podplan refuses."""

from __future__ import annotations

import os
import random
import string
import subprocess
from collections.abc import Iterator

import pytest

from planners.errors import PlanError
from planners.names import LABELS, LV_NAME, MD_NAME, VG_LV_MAX, VG_NAME
from runners.exec import have
from runners.probes.loopdev import sparse_loops
from runners.probes.lvm import lvm_sandbox
from runners.probes.md import MDADM_ENV, remove_empty_md_dir

pytestmark = [pytest.mark.root]


def _need(*tools: str) -> None:
    for tool in tools:
        if not have(tool):
            pytest.skip(f"{tool} is not installed: setup installs it")
    if os.geteuid() != 0:
        pytest.skip("loop devices need root")


def _accepts(rule, name: str) -> bool:  # type: ignore[no-untyped-def]
    try:
        rule.check(name)
    except PlanError:
        return False
    return True


def _drawn_names(seed: int, count: int) -> list[str]:
    """Names of LVM's own characters with its reserved words spliced in, first characters of every kind."""
    rnd = random.Random(seed)
    chars = string.ascii_letters + string.digits + "._+-"
    words = ["snapshot", "pvmove", "_mlog", "_rimage", "_tmeta", "_cvol", "_vdata", ".", ".."]
    out = []
    for _ in range(count):
        name = "".join(rnd.choice(chars) for _ in range(rnd.randint(1, 6)))
        if rnd.random() < 0.5:
            w = rnd.choice(words)
            at = rnd.randint(0, len(name))
            name = name[:at] + w + name[at:]
        out.append(name)
    return out


@pytest.fixture(scope="module")
def lvm() -> Iterator:  # type: ignore[type-arg]
    _need("pvcreate", "vgcreate", "lvcreate", "losetup")
    with sparse_loops([64 << 20]) as loops, lvm_sandbox(loops) as env:

        def run(*argv: str) -> int:
            return subprocess.run(
                list(argv), env={**os.environ, **env}, capture_output=True, stdin=subprocess.DEVNULL, check=False
            ).returncode

        assert run("pvcreate", loops[0]) == 0
        yield run, loops[0]


VG_CASES = ["a" * 127, "a" * 128, ".", "..", "-x", "+x", ".x", "x.y", "x+y", "x-y", "_x"]


@pytest.mark.parametrize("name", VG_CASES + _drawn_names(1, 12))
def test_vg_names_as_vgcreate_takes_them(lvm, name):
    run, pv = lvm
    took = run("vgcreate", name, pv) == 0
    if took:
        run("vgremove", "-f", name)
    if _accepts(VG_NAME, name):
        assert took, f"podplan accepts the VG name {name!r}, vgcreate refuses it"
    # podplan is stricter about the first character ('+x', '.x'): only the other way must hold
    elif name[:1] not in "+.":
        assert not took, f"vgcreate takes {name!r}, podplan refuses it: {VG_NAME.source}"


LV_CASES = ["snapshot", "snapshotx", "pvmove1", "a_mlog", "x_cvol", "x_cpool", "x_imeta", "x_iorig", "x_vdata"]
LV_CASES += ["x_wcorig", "x_corig", "x_cdata", "x_pmspare", "x_vorigin", "x_rmeta", "x_tdata", "x_tmeta"]
LV_CASES += ["x_mimage", "x_rimage", "snap", "pv", "my_data", "lv-1"]


@pytest.mark.parametrize("name", LV_CASES + _drawn_names(2, 12))
def test_lv_names_as_lvcreate_takes_them(lvm, name):
    run, pv = lvm
    assert run("vgcreate", "vg", pv) == 0
    try:
        took = run("lvcreate", "-y", "-l", "1", "-n", name, "vg") == 0
    finally:
        run("vgremove", "-f", "vg")
    if _accepts(LV_NAME, name):
        assert took, f"podplan accepts the LV name {name!r}, lvcreate refuses it"
    elif name[:1] not in "+.":
        assert not took, f"lvcreate takes {name!r}, podplan refuses it"


@pytest.mark.parametrize("vg_len", [2, 40, 100])
def test_vg_and_lv_length_together(lvm, vg_len):
    run, pv = lvm
    vg = "v" * vg_len
    assert run("vgcreate", vg, pv) == 0
    try:
        longest = VG_LV_MAX - vg_len
        assert run("lvcreate", "-y", "-l", "1", "-n", "l" * longest, vg) == 0
        assert run("lvcreate", "-y", "-l", "1", "-n", "m" * (longest + 1), vg) != 0
    finally:
        run("vgremove", "-f", vg)


CREATE = ("mdadm", "--create")
OPTIONS = ("--run", "--level=1", "--raid-devices=2", "--bitmap=none", "--metadata=1.2")


@pytest.mark.parametrize("length", [MD_NAME.max_len, MD_NAME.max_len + 1])
def test_md_names_as_mdadm_takes_them(length):
    _need("mdadm", "losetup")
    name = "m" * length
    with sparse_loops([32 << 20, 32 << 20]) as loops:
        try:
            res = subprocess.run(
                [*CREATE, f"/dev/md/{name}", *OPTIONS, f"--name={name}", *loops],
                capture_output=True,
                text=True,
                env={**os.environ, **MDADM_ENV},
                stdin=subprocess.DEVNULL,
                timeout=60,
                check=False,
            )
        finally:
            for node in (f"/dev/md/{name}",):
                if os.path.islink(node):
                    os.unlink(node)
            remove_empty_md_dir()
    too_long = "too long" in res.stderr
    assert too_long == (not _accepts(MD_NAME, name)), res.stderr


def test_xfs_labels_as_mkfs_xfs_takes_them(tmp_path):
    _need("mkfs.xfs")
    for length in (LABELS["xfs"].max_len, LABELS["xfs"].max_len + 1):
        res = subprocess.run(
            ["mkfs.xfs", "-N", "-L", "x" * length, "-d", f"file,name={tmp_path / 'img'},size=300m"],
            capture_output=True,
            text=True,
            check=False,
        )
        assert (res.returncode == 0) == _accepts(LABELS["xfs"], "x" * length), res.stderr


def test_ext4_labels_as_mke2fs_keeps_them(tmp_path):
    _need("mke2fs")
    img = tmp_path / "img"
    img.write_bytes(b"")
    for length in (LABELS["ext4"].max_len, LABELS["ext4"].max_len + 1):
        res = subprocess.run(
            ["mke2fs", "-n", "-F", "-t", "ext4", "-L", "x" * length, str(img), "65536"],
            capture_output=True,
            text=True,
            check=False,
        )
        cut = "too long" in res.stdout + res.stderr
        assert cut == (not _accepts(LABELS["ext4"], "x" * length)), res.stdout + res.stderr


def test_btrfs_labels_as_mkfs_btrfs_takes_them(tmp_path):
    _need("mkfs.btrfs")
    img = tmp_path / "img"
    for length in (LABELS["btrfs"].max_len, LABELS["btrfs"].max_len + 1):
        with open(img, "wb") as f:
            f.truncate(256 << 20)
        res = subprocess.run(
            ["mkfs.btrfs", "-q", "-f", "-L", "x" * length, str(img)], capture_output=True, text=True, check=False
        )
        assert (res.returncode == 0) == _accepts(LABELS["btrfs"], "x" * length), res.stderr
